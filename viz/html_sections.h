// The sections of the HTML report (viz/html_report.h), one function each.
// A section renders its body from the ReportContext and returns "" when it
// has nothing to show; RenderHtmlReport lists them in page order. A new
// section is one function here plus one line in html_report.cc.
#ifndef MEMPLAN_VIZ_HTML_SECTIONS_H_
#define MEMPLAN_VIZ_HTML_SECTIONS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "analyzer/analysis.h"
#include "ir/program.h"
#include "viz/html_report.h"

namespace memplan::viz {

struct ReportContext {
  const ir::Program& program;
  const analyzer::Analysis& analysis;
  const std::string& choice;
  const HtmlReportLimits& limits;
  const predictor::Prediction* prediction = nullptr;  // with --plan
};

// Module, inputs, bytes per category, total vs stated, device footprint, the
// live peak and the check against the dump's own peak list.
std::string RenderSummarySection(const ReportContext& context);
// Per-device bytes under the plan (context.prediction; "" without one).
std::string RenderPredictionSection(const ReportContext& context);
// Memory occupied per schedule step, stacked by category, the peaks marked,
// with a toggle that starts the axis at the bytes live throughout.
std::string RenderTimelineSection(const ReportContext& context);
// Each value of a multi-value allocation as a rectangle over its live range
// and its byte range (the picture XLA's heap simulator draws).
std::string RenderAllocationMapSection(const ReportContext& context);
// The largest values live at the peak (or, without live ranges, overall).
std::string RenderPeakValuesSection(const ReportContext& context);
// The attribution tree, collapsible.
std::string RenderAttributionSection(const ReportContext& context);
// The temp-arena simulation table.
std::string RenderTempArenaSection(const ReportContext& context);
// The largest allocations.
std::string RenderAllocationsSection(const ReportContext& context);
// Notes on what the input cannot tell, and recoverable input problems.
std::string RenderNotesSection(const ReportContext& context);

// Shared by the sections.
// "showing the 2,000 largest of 1,000,000 values" as a highlighted notice.
std::string SamplingNotice(std::string_view text);
// "<td class=num>1.50 KiB</td><td class=num>1,536</td>"
std::string BytesCells(int64_t bytes);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_HTML_SECTIONS_H_
