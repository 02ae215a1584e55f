// Views of `memplan validate`: predicted against measured, per rank, as text
// and as JSON ("memplan.validate.v1", docs/executor-plan.md). Collectives
// carry the record shape of viz/collectives_report.h.
#ifndef MEMPLAN_VIZ_VALIDATE_REPORT_H_
#define MEMPLAN_VIZ_VALIDATE_REPORT_H_

#include <optional>
#include <string>

#include "executor/plan.h"
#include "executor/report.h"
#include "viz/html_page.h"

namespace memplan::viz {

struct ValidateViewInput {
  const executor::ExecutorPlan& plan;
  const executor::ValidationReport& report;
  std::optional<double> max_peak_error_percent;  // the tolerance, when given
};

std::string RenderValidateText(const ValidateViewInput& input);
std::string RenderValidateJson(const ValidateViewInput& input);
// The same as a section of memplan's HTML page shell (a ranks table and a
// table of ops per rank), and as a page of its own.
HtmlSection RenderValidateHtmlSection(const ValidateViewInput& input);
std::string RenderValidateHtml(const ValidateViewInput& input);

// One sentence for a rank that did not complete ("rank 1: timed out at step
// 3: ..."); empty for a rank that did. The text view and the CLI's stderr
// use it.
std::string RankProblemSentence(const executor::RankReport& rank);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_VALIDATE_REPORT_H_
