// libFuzzer target: baselines for `memplan check --baseline`, the JSON of
// `memplan analyze --format=json` (parsers/analyze_json_metrics.h's
// MetricsFromAnalyzeJson).
// Beyond "no crash, no sanitizer report, no hang" (deep nesting included) it
// aborts when a promise breaks:
//   - an error reads "fuzz-baseline.json:line:col: error: ... expected ...";
//   - accepted metrics are byte counts of 0 or more.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/analyze_json_metrics.h"
#include "viz/analyze_report.h"

namespace {

constexpr std::string_view kName = "fuzz-baseline.json";

[[noreturn]] void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "analyze_json_fuzzer: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ir::ModuleMetrics> m = parsers::MetricsFromAnalyzeJson(
      text, std::string(kName), viz::kAnalyzeJsonSchemaVersion);
  if (!m.ok()) {
    const std::string_view message(m.status().message().data(), m.status().message().size());
    // "fuzz-baseline.json:3:17: error: ..."
    const std::string prefix = std::string(kName) + ":";
    if (!message.starts_with(prefix) || message.size() <= prefix.size() ||
        message[prefix.size()] < '0' || message[prefix.size()] > '9') {
      Fail("error does not give file:line:col", message);
    }
    if (message.find("expected") == std::string_view::npos) {
      Fail("error does not say what was expected", message);
    }
    return 0;
  }
  for (const std::optional<int64_t>& bytes : m->bytes) {
    if (bytes && *bytes < 0) Fail("negative byte count accepted", text);
  }
  return 0;
}
