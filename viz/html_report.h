// `memplan report`: one self-contained HTML page (inline SVG and CSS, a
// little plain JavaScript, nothing fetched) over one analysis result. A pure
// function of its input, byte-for-byte deterministic.
//
// The page stays usable on very large programs: where a browser would choke
// it draws at most the limits below (the largest items first, the rest
// aggregated) and says so on the page.
#ifndef MEMPLAN_VIZ_HTML_REPORT_H_
#define MEMPLAN_VIZ_HTML_REPORT_H_

#include <string>

#include "analyzer/analysis.h"
#include "ir/program.h"
#include "predictor/predict.h"

namespace memplan::viz {

struct HtmlReportLimits {
  // The timeline is a step function; beyond this many change points it is
  // drawn as this many columns, each the most bytes live within it.
  int timeline_columns = 1200;
  // Schedules up to this long carry every instruction name for the
  // timeline's tooltip; longer ones only the names at the drawn columns.
  int schedule_names = 20000;
  // Allocation maps: at most this many panels, and in each the largest
  // values as rectangles (the rest drawn as a density grid).
  int map_panels = 6;
  int map_rects = 2000;
  // Rows in each table.
  int table_rows = 100;
  // Attribution tree: children shown per node, and nodes in all.
  int attribution_children = 25;
  int attribution_nodes = 1500;
};

struct HtmlReportInput {
  const ir::Program& program;
  const analyzer::Analysis& analysis;
  std::string choice;  // which module of a dump directory, and why; may be empty
  HtmlReportLimits limits = {};
  // With a sharding plan (`memplan report --plan`): the prediction for it,
  // shown as a section of its own; null for none.
  const predictor::Prediction* prediction = nullptr;
};

std::string RenderHtmlReport(const HtmlReportInput& input);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_HTML_REPORT_H_
