// libFuzzer target: measured collectives (nccl-tests text or JSON, memplan's
// collectives JSON) through `memplan calibrate`. Beyond "no crash, no
// sanitizer report, no hang" it aborts when a promise breaks:
//   - a parse error names the input ("fuzz-collectives.txt:line:col: ...");
//   - every run it returns has samples with sizes >= 0 and times >= 0;
//   - a calibration renders deterministically, its JSON parses, and the
//     hardware file it writes loads back with the fitted values.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "llvm/Support/JSON.h"
#include "parsers/collective_measurements_parser.h"
#include "simulator/calibration.h"
#include "simulator/hardware_loader.h"
#include "viz/simulator_reports.h"

namespace {

constexpr std::string_view kName = "fuzz-collectives.txt";

[[noreturn]] void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "collective_measurements_fuzzer: %.*s\n%.*s\n",
               static_cast<int>(what.size()), what.data(), static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

void CheckCalibration(const memplan::simulator::Hardware& base,
                      const memplan::ir::CollectiveMeasurements& m) {
  using namespace memplan;
  absl::StatusOr<simulator::Calibration> c = simulator::Calibrate(base, m.runs, {});
  if (!c.ok()) return;
  const std::vector<std::string> sources = {std::string(kName)};
  const viz::CalibrationReportInput input{*c, "h100", "given", sources, &m.diagnostics};
  const std::string text = viz::RenderCalibrationText(input);
  const std::string json = viz::RenderCalibrationJson(input);
  if (text != viz::RenderCalibrationText(input)) Fail("text report not deterministic", text);
  if (json != viz::RenderCalibrationJson(input)) Fail("JSON report not deterministic", json);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) Fail("JSON report does not parse", llvm::toString(parsed.takeError()));
  const std::string yaml = simulator::CalibrationYaml(*c, "h100", sources);
  absl::StatusOr<simulator::Hardware> back = simulator::LoadHardwareText(yaml, "links.yaml");
  if (!back.ok()) Fail("calibrated file does not load", yaml + "\n" + std::string(back.status().message()));
  for (const simulator::LinkFit& f : c->fits) {
    const simulator::AlphaBeta read = back->ParamsFor(f.link, f.kind);
    if (std::fabs(read.bandwidth / f.fit.bandwidth - 1) > 1e-3) {
      Fail("calibrated bandwidth does not read back", yaml);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  static const simulator::Hardware* base = [] {
    absl::StatusOr<simulator::Hardware> hw = simulator::LoadHardware("h100");
    if (!hw.ok()) Fail("h100 preset does not load", std::string(hw.status().message()));
    return new simulator::Hardware(*std::move(hw));
  }();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto source = parsers::SourceText::FromString(std::string(kName), text);
  for (int variant = 0; variant < 2; ++variant) {
    parsers::CollectiveParseOptions options;
    if (variant == 1) options.collective = ir::CollectiveKind::kAllReduce;
    absl::StatusOr<ir::CollectiveMeasurements> m =
        parsers::ParseCollectiveMeasurements(*source, options);
    if (!m.ok()) {
      const std::string_view message(m.status().message().data(), m.status().message().size());
      if (message.substr(0, kName.size() + 1) != std::string(kName) + ":") {
        Fail("parse error does not name the input", message);
      }
      continue;
    }
    for (const ir::CollectiveRun& run : m->runs) {
      if (run.samples.empty()) Fail("run without samples", run.location);
      for (const ir::CollectiveSample& s : run.samples) {
        if (s.bytes < 0 || !(s.time_us >= 0)) Fail("negative size or time", s.location);
      }
    }
    CheckCalibration(*base, *m);
  }
  return 0;
}
