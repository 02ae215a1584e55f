// `memplan check`: reading budget files and the modules to check, for the
// command and its tests. The budget file format is in docs/ci.md; the
// evaluation is analyzer/budget_check.h, its words viz/check_report.h.
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
#include "analyzer/budget_check.h"
#include "ir/program.h"

namespace memplan::cli {

using analyzer::kAllMetrics;
using analyzer::kNumMetrics;
using analyzer::Metric;
using analyzer::MetricKey;
using analyzer::MetricsOf;
using analyzer::ModuleMetrics;

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

// Parses a budget file, in time linear in its size. InvalidArgument with
// "file:line:col: error: ..." naming what was expected (and the line with a
// caret) on bad YAML, nesting deeper than a budget file needs (checked before
// the YAML parser runs), a second YAML document, unknown or duplicate keys,
// bad values, a fraction of the device where no device memory is known, or a
// fraction that comes to 2^63 bytes or more.
absl::StatusOr<BudgetFile> ParseBudgets(std::string_view text, const std::string& file_name);
absl::StatusOr<BudgetFile> LoadBudgets(const std::string& path);

// A module's budget with "*" filled in where the module's own entry is
// silent, and fractions of the device resolved to bytes. nullopt when the
// file has neither an entry for `module` (its name, or its dump file stem)
// nor "*".
struct ResolvedBudget : analyzer::BudgetLimits {
  std::string key;  // the entry used: the module's, or "*"
  std::array<std::string, kNumMetrics> limit_text;  // as written ("0.8 * device")
  std::optional<int64_t> device_memory;
};
std::optional<ResolvedBudget> ResolveBudget(const BudgetFile& file, std::string_view module,
                                            std::string_view stem = {});

// Metrics from `memplan analyze --format=json` output. InvalidArgument
// "file:line:col: error: expected ..." when the text is not such a document:
// invalid JSON or nested deeper than parsers::kMaxJsonDepth, a schema_version
// other than 1 to viz::kAnalyzeJsonSchemaVersion, a key missing, or a byte
// count that is negative or not below 2^63. A null byte count is a number
// the input did not state.
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

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_CHECK_H_
