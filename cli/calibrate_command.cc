// memplan calibrate: measured collectives in, fitted links out.
#include <cstdio>
#include <filesystem>
#include <set>
#include <vector>

#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/output_file.h"
#include "cli/simulator_commands.h"
#include "ir/collective.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/collective_measurements_parser.h"
#include "simulator/calibration.h"
#include "simulator/hardware_loader.h"
#include "simulator/presets.h"
#include "simulator/units.h"
#include "viz/simulator_reports.h"

namespace memplan::cli {
namespace {

std::string CollectiveNames() {
  std::string out;
  for (ir::CollectiveKind k : ir::kAllCollectiveKinds) {
    StrAppend(&out, out.empty() ? "" : ", ", ir::CollectiveName(k));
  }
  return out;
}

struct Base {
  simulator::Hardware hardware;
  std::string spec;    // what the calibrated file extends
  std::string reason;  // for the report
};

// The file `hw` as named from the directory of `output`.
std::string ExtendsPath(const std::string& hw, const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::absolute(hw, ec);
  if (output.empty() || output == "-") return target.string();
  const fs::path from = fs::absolute(output, ec).parent_path();
  const fs::path relative = target.lexically_relative(from);
  return relative.empty() ? target.string() : relative.string();
}

absl::StatusOr<Base> ChooseBase(const CalibrateFlags& flags,
                                const std::vector<ir::CollectiveRun>& runs) {
  Base base;
  if (!flags.hw.empty()) {
    ASSIGN_OR_RETURN(base.hardware, simulator::LoadHardware(flags.hw));
    const bool preset = simulator::FindPreset(flags.hw) != nullptr &&
                        !std::filesystem::exists(flags.hw);
    base.spec = preset ? base.hardware.name : ExtendsPath(flags.hw, flags.output);
    base.reason = "given";
    return base;
  }
  std::set<std::string> presets;
  std::set<std::string> unknown;
  for (const ir::CollectiveRun& run : runs) {
    if (run.device.empty()) continue;
    if (std::optional<std::string> p = simulator::PresetForDevice(run.device)) {
      presets.insert(*p);
    } else {
      unknown.insert(run.device);
    }
  }
  if (presets.size() == 1 && unknown.empty()) {
    base.spec = *presets.begin();
    ASSIGN_OR_RETURN(base.hardware, simulator::LoadHardware(base.spec));
    std::string device;
    for (const ir::CollectiveRun& run : runs) {
      if (!run.device.empty()) device = run.device;
    }
    base.reason = StrCat("recognised from the device \"", device, "\"");
    return base;
  }
  std::string seen;
  for (const std::string& d : unknown) StrAppend(&seen, seen.empty() ? "" : ", ", "\"", d, "\"");
  for (const std::string& p : presets) StrAppend(&seen, seen.empty() ? "" : ", ", p);
  return absl::InvalidArgumentError(StrCat(
      "cannot tell which hardware the runs measured (",
      seen.empty() ? "they name no device" : StrCat("devices: ", seen),
      "); pass --hw with a preset (", simulator::PresetNames(), ") or a hardware file"));
}

absl::StatusOr<int64_t> ByteFlag(const std::string& text, std::string_view flag, int64_t dflt) {
  if (text.empty()) return dflt;
  absl::StatusOr<double> v = simulator::ParseQuantity(text, simulator::Quantity::kBytes);
  if (!v.ok()) {
    return absl::InvalidArgumentError(StrCat("--", flag, "=", text, ": ", v.status().message()));
  }
  return static_cast<int64_t>(*v);
}

}  // namespace

int RunCalibrate(const CalibrateFlags& flags) {
  std::optional<ir::CollectiveKind> collective;
  if (!flags.collective.empty()) {
    collective = ir::CollectiveFromName(flags.collective);
    if (!collective) {
      return Fail(StrCat("--collective=", flags.collective, ": expected one of ",
                         CollectiveNames()));
    }
  }
  simulator::CalibrationOptions options;
  absl::StatusOr<int64_t> min = ByteFlag(flags.min_bytes, "min-bytes", 1);
  absl::StatusOr<int64_t> max = ByteFlag(flags.max_bytes, "max-bytes", INT64_MAX);
  if (!min.ok()) return Fail(FromAbsl(min.status().message()));
  if (!max.ok()) return Fail(FromAbsl(max.status().message()));
  options.min_bytes = *min;
  options.max_bytes = *max;
  options.include_in_place = flags.in_place;

  std::vector<ir::CollectiveRun> runs;
  ir::Diagnostics warnings;
  for (const std::string& path : flags.inputs) {
    absl::StatusOr<ir::CollectiveMeasurements> m =
        parsers::LoadCollectiveMeasurements(path, collective);
    if (!m.ok()) {
      std::string message(FromAbsl(m.status().message()));
      if (m.status().code() == absl::StatusCode::kFailedPrecondition) {
        StrAppend(&message, "\nmemplan: name it with --collective (", CollectiveNames(), ")");
      }
      return Fail(message);
    }
    for (const ir::Warning& w : m->diagnostics.warnings()) {
      for (int64_t i = 0; i < w.count; ++i) warnings.Warn(w.kind, w.first_location);
    }
    for (ir::CollectiveRun& run : m->runs) runs.push_back(std::move(run));
  }
  absl::StatusOr<Base> base = ChooseBase(flags, runs);
  if (!base.ok()) return Fail(FromAbsl(base.status().message()));
  absl::StatusOr<simulator::Calibration> calibration =
      simulator::Calibrate(base->hardware, runs, options);
  if (!calibration.ok()) return Fail(FromAbsl(calibration.status().message()));

  const viz::CalibrationReportInput input{*calibration, base->spec, base->reason, flags.inputs,
                                          &warnings};
  if (!flags.output.empty()) {
    const std::string yaml = simulator::CalibrationYaml(*calibration, base->spec, flags.inputs);
    if (absl::Status s = WriteOutput(flags.output, yaml); !s.ok()) {
      return Fail(FromAbsl(s.message()));
    }
  }
  const std::string report = flags.format == CalibrateFormat::kJson
                                 ? viz::RenderCalibrationJson(input)
                                 : viz::RenderCalibrationText(input);
  if (absl::Status s = WriteOutput(flags.report, report); !s.ok()) {
    return Fail(FromAbsl(s.message()));
  }
  return kExitOk;
}

}  // namespace memplan::cli
