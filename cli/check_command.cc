// `memplan check`: loads the budgets, the modules and the baseline, runs
// analyzer::CheckModule on each module and writes viz's reports.
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/budget_check.h"
#include "cli/check.h"
#include "cli/commands.h"
#include "cli/device_memory.h"
#include "cli/errors.h"
#include "cli/output_file.h"
#include "ir/status_macros.h"
#include "parsers/budget_file.h"
#include "viz/check_report.h"

namespace memplan::cli {

// ---------------------------------------------------------------------------
// The command.

namespace {

using analyzer::kNumMetrics;
using analyzer::ModuleMetrics;

// The baseline module for the `index`th current module: the one with its
// name (the k-th of that name for the k-th, when a dump compiled one name
// several times); or, when each side has just one module, that one whatever
// its name.
const ModuleMetrics* MatchBaseline(const std::vector<ModuleMetrics>& current, size_t index,
                                   const std::vector<ModuleMetrics>& baseline) {
  const std::string& name = current[index].module;
  size_t occurrence = 0;
  for (size_t i = 0; i < index; ++i) occurrence += current[i].module == name ? 1 : 0;
  for (const ModuleMetrics& b : baseline) {
    if (b.module != name) continue;
    if (occurrence == 0) return &b;
    --occurrence;
  }
  if (current.size() == 1 && baseline.size() == 1) return &baseline.front();
  return nullptr;
}

// What the checks of all modules came to.
struct CheckTally {
  bool checked = false;    // some budget set a limit on some module
  bool failed = false;     // some outcome fails
  bool untrusted = false;  // some failure is because an input stops early
};

// The report of module `i` of `current` against its budget (none: nothing
// checked) and, when `baseline` is given, its matching baseline module.
viz::CheckModuleReport CheckOne(const std::vector<ModuleMetrics>& current, size_t i,
                                const std::optional<parsers::ResolvedBudget>& budget,
                                const std::vector<ModuleMetrics>* baseline,
                                const analyzer::CheckOptions& options, CheckTally& tally) {
  const ModuleMetrics& m = current[i];
  viz::CheckModuleReport report;
  report.module = m.module;
  report.source = m.source;
  if (!budget) return report;
  report.budget_key = budget->key;
  for (int k = 0; k < kNumMetrics; ++k) {
    // Limits written in bytes read as bytes; others as written.
    if (!parsers::ParseByteCount(budget->limit_text[k])) report.limit_text[k] = budget->limit_text[k];
  }
  const ModuleMetrics* base = nullptr;
  if (baseline != nullptr) {
    base = MatchBaseline(current, i, *baseline);
    if (base == nullptr) {
      report.notes.push_back({viz::CheckNote::Kind::kNoBaselineModule, m.module});
    } else {
      report.baseline = base->source;
      if (base->module != m.module) {
        report.notes.push_back({viz::CheckNote::Kind::kBaselineOtherModule, base->module});
      }
    }
  }
  const analyzer::BudgetLimits limits{budget->limit_bytes, budget->regression_percent};
  report.outcomes = analyzer::CheckModule(m, limits, base, options);
  if (report.outcomes.empty()) {
    report.notes.push_back({viz::CheckNote::Kind::kBudgetSetsNoLimit, budget->key});
  }
  tally.checked = tally.checked || !report.outcomes.empty();
  for (const analyzer::CheckOutcome& o : report.outcomes) {
    tally.failed = tally.failed || analyzer::Fails(o);
    tally.untrusted = tally.untrusted || (analyzer::Fails(o) && o.untrusted.has_value());
  }
  return report;
}

// What `check` reads: the budgets, the modules (with their names as the
// budget resolves them) and the baseline, if given.
struct CheckInputs {
  parsers::BudgetFile budgets;
  std::vector<ModuleMetrics> current;
  std::vector<std::pair<std::string, std::string>> names;
  std::vector<ModuleMetrics> baseline;
};

absl::StatusOr<CheckInputs> LoadCheckInputs(const CheckFlags& flags) {
  CheckInputs in;
  ASSIGN_OR_RETURN(in.budgets, parsers::LoadBudgets(flags.budget, DeviceMemoryCatalog()));
  ASSIGN_OR_RETURN(in.current, LoadModules(flags.path, flags.module, &in.names));
  if (!flags.baseline.empty()) {
    ASSIGN_OR_RETURN(in.baseline, LoadBaseline(flags.baseline, flags.module));
  }
  return in;
}

std::vector<viz::CheckModuleReport> CheckAll(const CheckFlags& flags, const CheckInputs& in,
                                             CheckTally& tally) {
  std::vector<viz::CheckModuleReport> reports;
  analyzer::CheckOptions options;
  options.strict = flags.strict;
  options.check_untrusted = flags.allow_truncated;
  for (size_t i = 0; i < in.current.size(); ++i) {
    const std::optional<parsers::ResolvedBudget> budget =
        parsers::ResolveBudget(in.budgets, in.current[i].module, in.names[i].second);
    const std::vector<ModuleMetrics>* base = flags.baseline.empty() ? nullptr : &in.baseline;
    reports.push_back(CheckOne(in.current, i, budget, base, options, tally));
  }
  return reports;
}

}  // namespace

int RunCheck(const CheckFlags& flags) {
  absl::StatusOr<CheckInputs> in = LoadCheckInputs(flags);
  if (!in.ok()) {
    PrintError(in.status());
    return kExitBadInput;
  }
  CheckTally tally;
  const std::vector<viz::CheckModuleReport> reports = CheckAll(flags, *in, tally);
  const std::string text = viz::RenderCheckText(reports);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (!tally.checked) {
    std::fprintf(stderr,
                 "memplan: nothing was checked: %s names no module found in %s, has no \"*\", "
                 "or sets no limit\n",
                 flags.budget.c_str(), flags.path.c_str());
    return kExitBadInput;
  }
  if (!flags.junit.empty()) {
    if (absl::Status written = WriteOutput(flags.junit, viz::RenderCheckJUnit(reports)); !written.ok()) {
      PrintError(written);
      return kExitBadInput;
    }
  }
  // A budget this input cannot check does not fail the run (it says so)
  // unless --strict made it a failure; bad input exits 2 above.
  if (tally.untrusted) {
    std::fprintf(stderr,
                 "memplan: an input stops early, so its budgets fail whatever its numbers; "
                 "--allow-truncated checks them anyway\n");
  }
  if (tally.failed) {
    std::fprintf(stderr, "memplan: check failed (budgets: %s)\n", flags.budget.c_str());
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace memplan::cli
