// The budget file of `memplan check` (docs/ci.md): a YAML mapping of module
// names (or "*") to limits. Read with LLVM's YAML parser into data; the
// check is analyzer/budget_check.h, the words viz/check_report.h.
#ifndef MEMPLAN_PARSERS_BUDGET_FILE_H_
#define MEMPLAN_PARSERS_BUDGET_FILE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/budget_metrics.h"
#include "parsers/byte_count.h"  // ParseByteCount, ParsePercent

namespace memplan::parsers {

// The device names a budget file may give (`device: H100-80GB`) and their
// memory. The reader knows no devices itself: its caller supplies them
// (the CLI from the simulator's hardware presets).
struct DeviceCatalog {
  // The memory of the device `name` names; nullopt when it names none.
  std::function<std::optional<int64_t>(std::string_view name)> memory_of;
  // What names it knows, as a phrase after "expected", for the error of an
  // unknown one ("a hardware preset (h100, ...)").
  std::string names;
};

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
  std::array<std::optional<Limit>, ir::kNumMetrics> limits;
  std::optional<double> regression_percent;
  std::string regression_location;
  std::optional<int64_t> device_memory;  // from device_memory or a device name
  std::string device;                    // the device name or the device_memory text
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
// bad values, a device `devices` does not know, a fraction of the device
// where no device memory is known, or a fraction that comes to 2^63 bytes or
// more.
absl::StatusOr<BudgetFile> ParseBudgets(std::string_view text, const std::string& file_name,
                                        const DeviceCatalog& devices);
// The same for the file at `path` (a pipe is read once).
absl::StatusOr<BudgetFile> LoadBudgets(const std::string& path, const DeviceCatalog& devices);

// A module's budget with "*" filled in where the module's own entry is
// silent, and fractions of the device resolved to bytes.
struct ResolvedBudget {
  std::string key;  // the entry used: the module's, or "*"
  std::array<std::string, ir::kNumMetrics> limit_text;  // as written ("0.8 * device")
  std::array<std::optional<int64_t>, ir::kNumMetrics> limit_bytes;
  std::optional<double> regression_percent;
  std::optional<int64_t> device_memory;
};
// nullopt when the file has neither an entry for `module` (its name, or its
// dump file stem) nor "*".
std::optional<ResolvedBudget> ResolveBudget(const BudgetFile& file, std::string_view module,
                                            std::string_view stem = {});

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_BUDGET_FILE_H_
