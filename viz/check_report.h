// `memplan check`'s words: each outcome of analyzer/budget_check.h as a
// sentence, the text report and JUnit XML.
#ifndef MEMPLAN_VIZ_CHECK_REPORT_H_
#define MEMPLAN_VIZ_CHECK_REPORT_H_

#include <array>
#include <string>
#include <vector>

#include "analyzer/budget_check.h"

namespace memplan::viz {

// Why a module was checked as it was, beside its outcomes.
struct CheckNote {
  enum class Kind {
    kBaselineOtherModule,  // `module`: the baseline's only module, another name
    kNoBaselineModule,     // no module of this name in the baseline
    kBudgetSetsNoLimit,    // the budget entry limits nothing
  };
  Kind kind;
  std::string module;
};

// One module's results.
struct CheckModuleReport {
  std::string module;
  std::string source;
  std::string budget_key;  // empty when no entry applied (module skipped)
  std::string baseline;    // the baseline module's source, or empty
  // Each limit the budget file writes as other than bytes ("0.8 * device"),
  // as written, by metric; empty for limits written in bytes.
  std::array<std::string, analyzer::kNumMetrics> limit_text;
  std::vector<CheckNote> notes;
  std::vector<analyzer::CheckOutcome> outcomes;
};

// "peak", "temp vs baseline".
std::string OutcomeName(const analyzer::CheckOutcome& outcome);
// A sentence: what the number is against its limit or baseline, what grew
// and by how much; for a number the input cannot tell, why.
std::string DescribeOutcome(const analyzer::CheckOutcome& outcome, const std::string& limit_text);

std::string RenderCheckText(const std::vector<CheckModuleReport>& reports);
std::string RenderCheckJUnit(const std::vector<CheckModuleReport>& reports);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_CHECK_REPORT_H_
