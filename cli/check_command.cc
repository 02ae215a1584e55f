// `memplan check`: the checks against budgets and a baseline, the text and
// JUnit reports, and RunCheck.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <utility>
#include "analyzer/analysis.h"
#include "cli/check.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "parsers/load_program.h"
#include "viz/format.h"
#include "viz/junit.h"

namespace memplan::cli {

// ---------------------------------------------------------------------------
// The checks.

namespace {

std::string OnePlace(double percent) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%+.1f%%", percent);
  return buffer;
}

std::string PercentAllowed(double percent) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g%%", percent);
  return buffer;
}

std::string Bytes(int64_t bytes) {
  return StrCat(viz::HumanBytes(bytes), " (", viz::GroupedBytes(bytes), " bytes)");
}

CheckOutcome BudgetOutcome(Metric metric, const ModuleMetrics& current,
                           const ResolvedBudget& budget) {
  const int i = static_cast<int>(metric);
  const std::string key(MetricKey(metric));
  CheckOutcome o;
  o.metric = metric;
  o.kind = CheckOutcome::Kind::kBudget;
  o.name = key;
  const std::optional<int64_t>& value = current.bytes[i];
  const int64_t limit = *budget.limit_bytes[i];
  const std::string limit_text =
      ParseByteCount(budget.limit_text[i]) ? Bytes(limit)
                                           : StrCat(budget.limit_text[i], " = ", Bytes(limit));
  if (!value) {
    o.result = CheckOutcome::Result::kError;
    o.message = StrCat(key, " is unknown: the input has no live ranges (use a buffer-assignment "
                            "dump with its HloLiveRange), so the budget of ",
                       viz::HumanBytes(limit), " cannot be checked");
    return o;
  }
  if (*value <= limit) {
    o.result = CheckOutcome::Result::kPass;
    o.message = StrCat(key, " is ", Bytes(*value), ", within its budget of ", limit_text);
    return o;
  }
  o.result = CheckOutcome::Result::kFail;
  o.message = StrCat(key, " is ", Bytes(*value), ", over its budget of ", limit_text, " by ",
                     viz::HumanBytes(*value - limit));
  if (limit > 0) {
    StrAppend(&o.message, " (",
              OnePlace(100.0 * static_cast<double>(*value - limit) / static_cast<double>(limit)),
              ")");
  }
  return o;
}

CheckOutcome RegressionOutcome(Metric metric, const ModuleMetrics& current,
                               const ModuleMetrics& baseline, double allowed) {
  const int i = static_cast<int>(metric);
  const std::string key(MetricKey(metric));
  CheckOutcome o;
  o.metric = metric;
  o.kind = CheckOutcome::Kind::kRegression;
  o.name = StrCat(key, " vs baseline");
  if (!current.bytes[i] || !baseline.bytes[i]) {
    o.result = CheckOutcome::Result::kSkipped;
    o.message = StrCat(key, " is unknown in the ", !current.bytes[i] ? "input" : "baseline",
                       " (no live ranges): not compared");
    return o;
  }
  const int64_t before = *baseline.bytes[i];
  const int64_t after = *current.bytes[i];
  const std::string allowed_text = PercentAllowed(allowed);
  if (after == before) {
    o.message = StrCat(key, " is unchanged at ", viz::HumanBytes(after));
    return o;
  }
  const bool grew = after > before;
  std::string change = StrCat(key, grew ? " grew" : " shrank", " from ", viz::HumanBytes(before),
                              " to ", viz::HumanBytes(after));
  if (before == 0) {
    StrAppend(&change, " (from nothing)");
    o.result = grew ? CheckOutcome::Result::kFail : CheckOutcome::Result::kPass;
    o.message = grew ? StrCat(change, ", over the ", allowed_text, " allowed") : change;
    return o;
  }
  const double percent =
      100.0 * static_cast<double>(after - before) / static_cast<double>(before);
  StrAppend(&change, " (", OnePlace(percent), ")");
  // A hair of slack so that "5%" allows exactly 5% despite rounding.
  if (grew && percent > allowed + 1e-9) {
    o.result = CheckOutcome::Result::kFail;
    o.message = StrCat(change, ", over the ", allowed_text, " allowed");
  } else {
    o.message = grew ? StrCat(change, ", within the ", allowed_text, " allowed") : change;
  }
  return o;
}

}  // namespace

std::vector<CheckOutcome> CheckModule(const ModuleMetrics& current, const ResolvedBudget& budget,
                                      const ModuleMetrics* baseline) {
  std::vector<CheckOutcome> outcomes;
  for (Metric metric : kAllMetrics) {
    if (budget.limit_bytes[static_cast<int>(metric)]) {
      outcomes.push_back(BudgetOutcome(metric, current, budget));
    }
  }
  if (baseline != nullptr) {
    const double allowed = budget.regression_percent.value_or(0.0);
    for (Metric metric : kAllMetrics) {
      outcomes.push_back(RegressionOutcome(metric, current, *baseline, allowed));
    }
  }
  return outcomes;
}

void FailUntrusted(const ModuleMetrics& current, bool allow, std::vector<CheckOutcome>& outcomes) {
  if (allow || current.untrusted.empty()) return;
  for (CheckOutcome& o : outcomes) {
    if (o.result != CheckOutcome::Result::kPass && o.result != CheckOutcome::Result::kFail) {
      continue;
    }
    o.result = CheckOutcome::Result::kFail;
    o.message = StrCat("cannot be trusted: ", current.untrusted,
                       " (--allow-truncated checks it anyway)");
  }
}

// ---------------------------------------------------------------------------
// Reports.

namespace {

const char* ResultWord(CheckOutcome::Result r) {
  switch (r) {
    case CheckOutcome::Result::kPass:
      return "pass";
    case CheckOutcome::Result::kFail:
      return "FAIL";
    case CheckOutcome::Result::kError:
      return "ERROR";
    case CheckOutcome::Result::kSkipped:
      return "skip";
  }
  return "?";
}

}  // namespace

std::string RenderCheckText(const std::vector<ModuleReport>& reports) {
  std::string out;
  int64_t checks = 0;
  int64_t failed = 0;
  int64_t errors = 0;
  size_t name_width = 0;
  for (const ModuleReport& r : reports) {
    for (const CheckOutcome& o : r.outcomes) name_width = std::max(name_width, o.name.size());
  }
  for (const ModuleReport& r : reports) {
    StrAppend(&out, "module ", r.module, " (", r.source, ")\n");
    if (r.budget_key.empty()) {
      StrAppend(&out, "  skipped: no budget for it (neither its name nor \"*\")\n");
    } else {
      StrAppend(&out, "  budget \"", r.budget_key, "\"");
      if (!r.baseline.empty()) StrAppend(&out, ", baseline ", r.baseline);
      out += "\n";
    }
    for (const std::string& note : r.notes) StrAppend(&out, "  note: ", note, "\n");
    for (const CheckOutcome& o : r.outcomes) {
      ++checks;
      if (o.result == CheckOutcome::Result::kFail) ++failed;
      if (o.result == CheckOutcome::Result::kError) ++errors;
      StrAppend(&out, "  ", ResultWord(o.result), std::string(6 - std::strlen(ResultWord(o.result)), ' '),
                o.name, std::string(name_width - o.name.size() + 2, ' '), o.message, "\n");
    }
  }
  out += "\n";
  if (checks == 0) {
    out += "no checks ran\n";
  } else if (failed == 0 && errors == 0) {
    StrAppend(&out, "all ", checks, " checks passed\n");
  } else {
    StrAppend(&out, failed, " of ", checks, " checks failed");
    if (errors > 0) StrAppend(&out, ", ", errors, " could not be checked");
    out += "\n";
  }
  return out;
}

std::string RenderCheckJUnit(const std::vector<ModuleReport>& reports) {
  std::vector<viz::JUnitSuite> suites;
  std::map<std::string, int> seen;
  for (const ModuleReport& r : reports) {
    viz::JUnitSuite suite;
    suite.name = r.module;
    if (seen[r.module]++ > 0) suite.name = StrCat(r.module, " (", r.source, ")");
    suite.properties.emplace_back("source", r.source);
    if (!r.budget_key.empty()) suite.properties.emplace_back("budget", r.budget_key);
    if (!r.baseline.empty()) suite.properties.emplace_back("baseline", r.baseline);
    const std::string classname = StrCat("memplan.check.", r.module);
    if (r.budget_key.empty()) {
      suite.cases.push_back({"budget", classname, viz::JUnitCase::Outcome::kSkipped,
                             "no budget for this module (neither its name nor \"*\")", ""});
    }
    for (const CheckOutcome& o : r.outcomes) {
      viz::JUnitCase c;
      c.name = o.name;
      c.classname = classname;
      switch (o.result) {
        case CheckOutcome::Result::kPass:
          c.outcome = viz::JUnitCase::Outcome::kPass;
          break;
        case CheckOutcome::Result::kFail:
          c.outcome = viz::JUnitCase::Outcome::kFailure;
          c.message = o.message;
          c.details = StrCat(r.module, ": ", o.message);
          break;
        case CheckOutcome::Result::kError:
          c.outcome = viz::JUnitCase::Outcome::kError;
          c.message = o.message;
          break;
        case CheckOutcome::Result::kSkipped:
          c.outcome = viz::JUnitCase::Outcome::kSkipped;
          c.message = o.message;
          break;
      }
      suite.cases.push_back(std::move(c));
    }
    suites.push_back(std::move(suite));
  }
  return viz::RenderJUnit("memplan check", suites);
}

// ---------------------------------------------------------------------------
// The command.

namespace {

void ReportError(const absl::Status& status) {
  std::fprintf(stderr, "memplan: %.*s\n", static_cast<int>(status.message().size()),
               status.message().data());
}

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

}  // namespace

int RunCheck(const CheckFlags& flags) {
  absl::StatusOr<BudgetFile> budgets = LoadBudgets(flags.budget);
  if (!budgets.ok()) {
    ReportError(budgets.status());
    return kExitBadInput;
  }
  std::vector<std::pair<std::string, std::string>> names;
  absl::StatusOr<std::vector<ModuleMetrics>> current = LoadModules(flags.path, flags.module, &names);
  if (!current.ok()) {
    ReportError(current.status());
    return kExitBadInput;
  }
  std::vector<ModuleMetrics> baseline;
  if (!flags.baseline.empty()) {
    absl::StatusOr<std::vector<ModuleMetrics>> loaded = LoadBaseline(flags.baseline, flags.module);
    if (!loaded.ok()) {
      ReportError(loaded.status());
      return kExitBadInput;
    }
    baseline = *std::move(loaded);
  }

  std::vector<ModuleReport> reports;
  bool any_checked = false;
  bool any_failed = false;
  bool any_error = false;
  for (size_t i = 0; i < current->size(); ++i) {
    const ModuleMetrics& m = (*current)[i];
    ModuleReport report;
    report.module = m.module;
    report.source = m.source;
    const std::optional<ResolvedBudget> budget = ResolveBudget(*budgets, m.module, names[i].second);
    if (budget) {
      report.budget_key = budget->key;
      const ModuleMetrics* base = nullptr;
      if (!flags.baseline.empty()) {
        base = MatchBaseline(*current, i, baseline);
        if (base != nullptr) {
          report.baseline = base->source;
          if (base->module != m.module) {
            report.notes.push_back(StrCat("the baseline's module is ", base->module,
                                          "; compared as the only module on each side"));
          }
        } else {
          report.notes.push_back(
              StrCat("no module ", m.module, " in the baseline: no regression checks"));
        }
      }
      report.outcomes = CheckModule(m, *budget, base);
      FailUntrusted(m, flags.allow_truncated, report.outcomes);
      if (report.outcomes.empty()) {
        report.notes.push_back(StrCat("budget \"", budget->key, "\" sets no limit"));
      }
      any_checked = any_checked || !report.outcomes.empty();
      for (const CheckOutcome& o : report.outcomes) {
        any_failed = any_failed || o.result == CheckOutcome::Result::kFail;
        any_error = any_error || o.result == CheckOutcome::Result::kError;
      }
    }
    reports.push_back(std::move(report));
  }

  const std::string text = RenderCheckText(reports);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (!any_checked) {
    std::fprintf(stderr,
                 "memplan: nothing was checked: %s names no module found in %s, has no \"*\", "
                 "or sets no limit\n",
                 flags.budget.c_str(), flags.path.c_str());
    return kExitBadInput;
  }
  if (!flags.junit.empty()) {
    if (absl::Status written = WriteOutput(flags.junit, RenderCheckJUnit(reports)); !written.ok()) {
      ReportError(written);
      return kExitBadInput;
    }
  }
  if (any_error) return kExitBadInput;
  if (any_failed) {
    std::fprintf(stderr, "memplan: check failed (budgets: %s)\n", flags.budget.c_str());
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace memplan::cli
