// `memplan check`: memory budgets and regressions for CI, as functions that
// tests call directly. The budget file format is in docs/ci.md.
//
// Implemented in check_command.cc, which instantiates llvm::yaml templates
// and is therefore compiled without RTTI; this header includes no LLVM.
#ifndef MEMPLAN_CLI_CHECK_H_
#define MEMPLAN_CLI_CHECK_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis.h"
#include "ir/program.h"

namespace memplan::cli {

// What a budget can limit, in the order reports list them.
enum class Metric { kPeak, kTemp, kArgument, kOutput, kDeviceFootprint, kTotalAllocation };
inline constexpr int kNumMetrics = 6;
inline constexpr Metric kAllMetrics[kNumMetrics] = {
    Metric::kPeak,   Metric::kTemp,            Metric::kArgument,
    Metric::kOutput, Metric::kDeviceFootprint, Metric::kTotalAllocation};

// The budget file's key: "peak", "temp", "argument", "output",
// "device_footprint", "total_allocation".
std::string_view MetricKey(Metric metric);

// "1234", "1234B", "1.5GiB", "800MB", "64 KiB": binary units (KiB..PiB) are
// powers of 1024, decimal ones (KB..PB) powers of 1000; K/M/G/T/P alone are
// binary. nullopt when the text is none of these or does not fit in int64.
std::optional<int64_t> ParseByteCount(std::string_view text);

// "5%", "2.5 %": the percent as a number; nullopt otherwise.
std::optional<double> ParsePercent(std::string_view text);

// A device preset's memory ("H100-80GB" -> 80 GiB); nullopt when unknown.
std::optional<int64_t> DevicePresetBytes(std::string_view name);
// The preset names, for messages.
std::string DevicePresetNames();

// One limit as written: bytes, or a fraction of the device's memory.
struct Limit {
  std::string text;      // as written in the file
  std::string location;  // "budgets.yaml:4:9"
  std::optional<int64_t> bytes;
  std::optional<double> device_fraction;  // "0.8 * device"
};

// One entry of the budget file: a module name (or "*") and its fields.
struct ModuleBudget {
  std::string key;
  std::string location;  // where its mapping starts
  std::array<std::optional<Limit>, kNumMetrics> limits;
  std::optional<double> regression_percent;
  std::string regression_location;
  std::optional<int64_t> device_memory;  // from device_memory or a device preset
  std::string device;                    // the preset or the device_memory text
};

struct BudgetFile {
  std::string path;
  std::vector<ModuleBudget> modules;  // in file order

  const ModuleBudget* Find(std::string_view key) const;
};

// Parses a budget file. InvalidArgument with "file:line:col: error: ..."
// (and the line with a caret) on bad YAML, unknown keys, bad values, or a
// fraction of the device where no device memory is known.
absl::StatusOr<BudgetFile> ParseBudgets(std::string_view text, const std::string& file_name);
absl::StatusOr<BudgetFile> LoadBudgets(const std::string& path);

// A module's budget with "*" filled in where the module's own entry is
// silent, and fractions of the device resolved to bytes. nullopt when the
// file has neither an entry for `module` (its name, or its dump file stem)
// nor "*".
struct ResolvedBudget {
  std::string key;  // the entry used: the module's, or "*"
  std::array<std::optional<int64_t>, kNumMetrics> limit_bytes;
  std::array<std::string, kNumMetrics> limit_text;  // as written ("0.8 * device")
  std::optional<double> regression_percent;
  std::optional<int64_t> device_memory;
};
std::optional<ResolvedBudget> ResolveBudget(const BudgetFile& file, std::string_view module,
                                            std::string_view stem = {});

// The numbers a budget checks, for one module. Absent: the input cannot tell
// (a live peak without live ranges).
struct ModuleMetrics {
  std::string module;
  std::string source;  // the file or directory it came from
  std::array<std::optional<int64_t>, kNumMetrics> bytes;
  // Why its numbers cannot be trusted (the input stops early), or "".
  std::string untrusted;
};
ModuleMetrics MetricsOf(const ir::Program& program, const analyzer::Analysis& analysis);

// Metrics from `memplan analyze --format=json` output. InvalidArgument when
// the text is not such a document.
absl::StatusOr<ModuleMetrics> MetricsFromAnalyzeJson(std::string_view text,
                                                     const std::string& file_name);
// True when `text` looks like that JSON (an object with "schema_version").
bool LooksLikeAnalyzeJson(std::string_view text);

// The baseline's metrics: from an analyze JSON, else from a dump that
// LoadProgram reads (every module of a dump directory, or only `module`).
// Every module at `path` (all of a dump directory, or only `module`), loaded
// and analyzed; `names_and_stems` (optional) gets each module's name and
// file stem.
absl::StatusOr<std::vector<ModuleMetrics>> LoadModules(
    const std::string& path, const std::string& module,
    std::vector<std::pair<std::string, std::string>>* names_and_stems);

absl::StatusOr<std::vector<ModuleMetrics>> LoadBaseline(const std::string& path,
                                                        const std::string& module);

// One checked metric: a budget ("peak") or a regression ("peak vs baseline").
struct CheckOutcome {
  enum class Kind { kBudget, kRegression };
  enum class Result { kPass, kFail, kError, kSkipped };
  Metric metric = Metric::kPeak;
  Kind kind = Kind::kBudget;
  Result result = Result::kPass;
  std::string name;     // "peak", "temp vs baseline"
  std::string message;  // a sentence; says what grew and by how much on failure
};

// Every budget of `budget` held against `current`, then, with a baseline,
// every metric both know held against the allowed regression (0% when the
// budget sets none).
std::vector<CheckOutcome> CheckModule(const ModuleMetrics& current, const ResolvedBudget& budget,
                                      const ModuleMetrics* baseline);

// Fails every budget and regression outcome of a module whose input cannot
// be trusted (ModuleMetrics::untrusted), saying why, unless `allow`.
void FailUntrusted(const ModuleMetrics& current, bool allow, std::vector<CheckOutcome>& outcomes);

// The results of one run, per module, for the text report and JUnit.
struct ModuleReport {
  std::string module;
  std::string source;
  std::string budget_key;  // empty when no entry applied (module skipped)
  std::string baseline;    // the baseline module's source, or empty
  std::vector<std::string> notes;
  std::vector<CheckOutcome> outcomes;
};

std::string RenderCheckText(const std::vector<ModuleReport>& reports);
std::string RenderCheckJUnit(const std::vector<ModuleReport>& reports);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_CHECK_H_
