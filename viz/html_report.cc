#include "viz/html_report.h"

#include <string>
#include <vector>

#include "ir/strings.h"
#include "viz/format.h"
#include "viz/html_page.h"
#include "viz/html_sections.h"

namespace memplan::viz {
namespace {

struct SectionSpec {
  const char* id;
  const char* title;
  std::string (*render)(const ReportContext&);
};

// The page, in order. A section whose function returns "" is left out.
constexpr SectionSpec kSections[] = {
    {"summary", "Summary", RenderSummarySection},
    {"prediction", "Predicted per device under the plan", RenderPredictionSection},
    {"timeline", "Memory timeline", RenderTimelineSection},
    {"allocation-map", "Allocation map", RenderAllocationMapSection},
    {"peak-values", "Largest values", RenderPeakValuesSection},
    {"attribution", "Attribution", RenderAttributionSection},
    {"temp-arena", "Temp arena simulation", RenderTempArenaSection},
    {"allocations", "Largest allocations", RenderAllocationsSection},
    {"notes", "Notes and input problems", RenderNotesSection},
};

}  // namespace

std::string RenderHtmlReport(const HtmlReportInput& input) {
  const ReportContext context{input.program, input.analysis, input.choice, input.limits,
                              input.prediction};
  HtmlPage page;
  page.title = StrCat("memplan report: ", input.program.module_name);
  page.subtitle = StrCat(input.program.input_format.empty() ? "input" : input.program.input_format,
                         " \xC2\xB7 ", GroupedBytes(static_cast<int64_t>(input.program.values.size())),
                         " values in ",
                         GroupedBytes(static_cast<int64_t>(input.program.allocations.size())),
                         " allocations");
  for (const SectionSpec& spec : kSections) {
    std::string body = spec.render(context);
    if (body.empty()) continue;
    page.sections.push_back({spec.id, spec.title, std::move(body)});
  }
  return RenderHtmlPage(page);
}

}  // namespace memplan::viz
