// HTML views beyond the memory report, each a section for memplan's page
// shell (viz/html_page.h) rendered only from library results: the predicted
// per-device memory under a sharding plan (`memplan report --plan`), the
// ranked candidates (`memplan rank --format=html`) and a call tree
// (`memplan calltree --format=html`). Deterministic; every name escaped.
#ifndef MEMPLAN_VIZ_HTML_VIEWS_H_
#define MEMPLAN_VIZ_HTML_VIEWS_H_

#include <string>
#include <string_view>

#include "viz/call_tree_report.h"
#include "viz/html_page.h"
#include "viz/predict_report.h"
#include "viz/rank_report.h"

namespace memplan::viz {

// Per-device bytes against the program as compiled, the collectives, and
// the arguments and places replicated by default.
std::string RenderPredictionHtmlBody(const PredictReportInput& input);

// The candidates within the budget (fastest first), those over it and
// those not priced, each with its reason; the budget as a bar per row.
HtmlSection RenderRankHtmlSection(const RankReportInput& input);
std::string RenderRankHtml(const RankReportInput& input);

// Calls per function and per file, the deepest paths, repeated subtrees and,
// from a trace with memory events, the memory timeline per device and the
// call stacks live at its peak.
HtmlSection RenderCallTreeHtmlSection(const CallTreeReportInput& input);
std::string RenderCallTreeHtml(const CallTreeReportInput& input, std::string_view title);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_HTML_VIEWS_H_
