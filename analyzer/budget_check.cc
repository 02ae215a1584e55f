#include "analyzer/budget_check.h"

namespace memplan::analyzer {

ModuleMetrics MetricsOf(const ir::Program& program, const Analysis& analysis) {
  ModuleMetrics m;
  m.module = program.module_name;
  m.source = program.source_files.empty() ? "" : program.source_files.front();
  const MemoryStats& s = analysis.stats;
  auto at = [&](Metric metric) -> std::optional<int64_t>& {
    return m.bytes[static_cast<int>(metric)];
  };
  if (analysis.occupied_peak) at(Metric::kPeak) = analysis.occupied_peak->bytes;
  at(Metric::kTemp) = s.Get(StatsField::kTemp);
  at(Metric::kArgument) = s.Get(StatsField::kArgument);
  at(Metric::kOutput) = s.Get(StatsField::kOutput);
  at(Metric::kDeviceFootprint) = s.Get(StatsField::kDeviceFootprint);
  at(Metric::kTotalAllocation) = s.Get(StatsField::kTotalAllocation);
  for (const ir::Note& note : program.notes) {
    if (note.code == ir::NoteCode::kInputEndsEarly) m.untrusted = note;
  }
  return m;
}

std::optional<double> CheckOutcome::Percent() const {
  const std::optional<int64_t>& reference = kind == Kind::kBudget ? limit : baseline;
  if (!value || !reference || *reference == 0) return std::nullopt;
  return 100.0 * static_cast<double>(*value - *reference) / static_cast<double>(*reference);
}

namespace {

CheckOutcome BudgetOutcome(Metric metric, const ModuleMetrics& current, int64_t limit,
                           const CheckOptions& options) {
  CheckOutcome o;
  o.metric = metric;
  o.kind = CheckOutcome::Kind::kBudget;
  o.value = current.bytes[static_cast<int>(metric)];
  o.limit = limit;
  if (!o.value) {
    o.result = options.strict ? CheckOutcome::Result::kFail : CheckOutcome::Result::kUncheckable;
  } else {
    o.result = *o.value <= limit ? CheckOutcome::Result::kPass : CheckOutcome::Result::kFail;
  }
  return o;
}

CheckOutcome RegressionOutcome(Metric metric, const ModuleMetrics& current,
                               const ModuleMetrics& baseline, double allowed) {
  CheckOutcome o;
  o.metric = metric;
  o.kind = CheckOutcome::Kind::kRegression;
  o.value = current.bytes[static_cast<int>(metric)];
  o.baseline = baseline.bytes[static_cast<int>(metric)];
  o.allowed_percent = allowed;
  if (!o.value || !o.baseline) {
    o.result = CheckOutcome::Result::kSkipped;
    return o;
  }
  if (*o.value <= *o.baseline) return o;  // unchanged or shrank
  if (*o.baseline == 0) {
    o.result = CheckOutcome::Result::kFail;  // grew from nothing
    return o;
  }
  // A hair of slack so that "5%" allows exactly 5% despite rounding.
  if (*o.Percent() > allowed + 1e-9) o.result = CheckOutcome::Result::kFail;
  return o;
}

}  // namespace

std::vector<CheckOutcome> CheckModule(const ModuleMetrics& current, const BudgetLimits& limits,
                                      const ModuleMetrics* baseline,
                                      const CheckOptions& options) {
  std::vector<CheckOutcome> outcomes;
  for (Metric metric : kAllMetrics) {
    if (const std::optional<int64_t>& limit = limits.limit_bytes[static_cast<int>(metric)]) {
      outcomes.push_back(BudgetOutcome(metric, current, *limit, options));
    }
  }
  if (baseline != nullptr) {
    const double allowed = limits.regression_percent.value_or(0.0);
    for (Metric metric : kAllMetrics) {
      outcomes.push_back(RegressionOutcome(metric, current, *baseline, allowed));
    }
  }
  if (current.untrusted && !options.check_untrusted) {
    for (CheckOutcome& o : outcomes) {
      if (o.result != CheckOutcome::Result::kPass && o.result != CheckOutcome::Result::kFail) {
        continue;
      }
      o.result = CheckOutcome::Result::kFail;
      o.untrusted = current.untrusted;
    }
  }
  return outcomes;
}

}  // namespace memplan::analyzer
