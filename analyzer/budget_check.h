// `memplan check`'s evaluation: the numbers a budget limits, taken from an
// analysis, held against limits and a baseline. Data only; viz/check_report.h
// words it; parsers/budget_file.h reads the budget file and
// parsers/analyze_json_metrics.h a baseline.
#ifndef MEMPLAN_ANALYZER_BUDGET_CHECK_H_
#define MEMPLAN_ANALYZER_BUDGET_CHECK_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis.h"
#include "ir/budget_metrics.h"
#include "ir/notes.h"
#include "ir/program.h"

namespace memplan::analyzer {

// What a budget can limit and the numbers it checks (ir/budget_metrics.h).
using ir::kAllMetrics;
using ir::kNumMetrics;
using ir::Metric;
using ir::MetricKey;
using ir::ModuleMetrics;

// The peak is the occupied peak (analysis.occupied_peak: shared memory
// counted once), not XLA's sum of live value sizes. `untrusted` is the
// program's kInputEndsEarly note, when it has one.
ModuleMetrics MetricsOf(const ir::Program& program, const Analysis& analysis);

// The limits of one module's budget, resolved to bytes.
struct BudgetLimits {
  std::array<std::optional<int64_t>, kNumMetrics> limit_bytes;
  // Allowed growth against a baseline, percent; 0 when unset.
  std::optional<double> regression_percent;
};

struct CheckOptions {
  // A budget that this input cannot check fails instead of being reported
  // as uncheckable.
  bool strict = false;
  // Check the numbers of a module whose input cannot be trusted
  // (ModuleMetrics::untrusted) instead of failing its budgets.
  bool check_untrusted = false;
};

// One checked metric: a budget, or a regression against the baseline.
struct CheckOutcome {
  enum class Kind { kBudget, kRegression };
  enum class Result {
    kPass,
    kFail,
    // The input cannot tell the number (value absent): not a failure unless
    // CheckOptions::strict (then kFail with value absent).
    kUncheckable,
    // A regression one side cannot tell: not compared.
    kSkipped,
  };
  Metric metric = Metric::kPeak;
  Kind kind = Kind::kBudget;
  Result result = Result::kPass;
  std::optional<int64_t> value;     // the current number
  std::optional<int64_t> limit;     // budgets: the limit
  std::optional<int64_t> baseline;  // regressions: the baseline's number
  double allowed_percent = 0.0;     // regressions: the growth allowed
  // Set when the outcome fails because the input cannot be trusted, whatever
  // its number: the note that says why (ModuleMetrics::untrusted).
  std::optional<ir::Note> untrusted;

  // Budgets: (value - limit) / limit; regressions: (value - baseline) /
  // baseline; in percent. Absent when a side is unknown or 0.
  std::optional<double> Percent() const;
};

// Every limit of `limits` held against `current`, then, with a baseline,
// every metric held against the allowed regression (0% when unset). When
// `current` cannot be trusted and !options.check_untrusted, every outcome
// that has its numbers (pass or fail) fails instead, with `untrusted` set;
// those the input cannot tell stay uncheckable or skipped.
std::vector<CheckOutcome> CheckModule(const ModuleMetrics& current, const BudgetLimits& limits,
                                      const ModuleMetrics* baseline,
                                      const CheckOptions& options = {});

// True when an outcome fails the run.
inline bool Fails(const CheckOutcome& o) { return o.result == CheckOutcome::Result::kFail; }

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_BUDGET_CHECK_H_
