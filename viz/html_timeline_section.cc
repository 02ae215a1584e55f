// The memory timeline: the memory live values occupy at each schedule step
// (shared bytes once: analyzer/occupied_memory.h, the headline), stacked by
// category, with XLA's figure (live value sizes added) as a line where it
// differs, the peaks marked, and a toggle that starts the y axis at the bytes
// live at every step (arguments and constants), so activations show.
//
// Contract with the page script (html_page.cc): each <svg class="timeline">
// carries data-x0/data-x1 (the plot's left and right edge in SVG units),
// data-steps (steps on the x axis) and data-json (the id of a <script
// type="application/json"> holding {"categories": [name], "bucketed": bool,
// "names_per_row": bool, "names": [instruction], "rows": [[start, end, rep,
// occupied bytes per category..., bytes of live values added]]}). Row i
// covers steps [start, end); `rep` is the step its occupied bytes were taken
// at (bucketed: the last number is the most within the row). `names` is the
// whole schedule, or, with names_per_row, the instruction at each row's `rep`.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "analyzer/value_category.h"
#include "ir/strings.h"
#include "viz/describe.h"
#include "viz/format.h"
#include "viz/html_page.h"
#include "viz/html_sections.h"
#include "viz/svg.h"

namespace memplan::viz {
namespace {

using analyzer::BytesByCategory;
using analyzer::kNumValueCategories;

struct Row {
  ir::ScheduleStep start = 0;
  ir::ScheduleStep end = 0;  // exclusive
  ir::ScheduleStep rep = 0;
  BytesByCategory bytes{};   // occupied, by category
  int64_t added = 0;         // live value sizes added (XLA's rule)
  int64_t total() const {
    int64_t t = 0;
    for (int64_t b : bytes) t += b;
    return t;
  }
};

// Both step functions over [0, steps), one row per run where neither
// changes.
std::vector<Row> ExactRows(const analyzer::Timeline& occupied, const analyzer::Timeline& added,
                           ir::ScheduleStep steps) {
  std::vector<ir::ScheduleStep> cuts = {0};
  for (const auto& p : occupied.points) cuts.push_back(p.step);
  for (const auto& p : added.points) cuts.push_back(p.step);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<Row> rows;
  size_t o = 0, a = 0;  // the points in force: the last at or before a cut
  BytesByCategory occupied_now{};
  int64_t added_now = 0;
  for (size_t i = 0; i < cuts.size(); ++i) {
    const ir::ScheduleStep start = cuts[i];
    while (o < occupied.points.size() && occupied.points[o].step <= start) {
      occupied_now = occupied.points[o++].bytes;
    }
    while (a < added.points.size() && added.points[a].step <= start) {
      added_now = added.points[a++].total();
    }
    const ir::ScheduleStep end = i + 1 < cuts.size() ? std::min(steps, cuts[i + 1]) : steps;
    if (start < 0 || start >= end) continue;
    rows.push_back({start, end, start, occupied_now, added_now});
  }
  return rows;
}

// `columns` equal runs of steps, each holding the row with the most bytes
// occupied within it (ties: the earliest), so the peak survives; `added` is
// the most within the run, so XLA's peak survives too.
std::vector<Row> BucketRows(const std::vector<Row>& rows, ir::ScheduleStep steps, int columns) {
  const ir::ScheduleStep width = (steps + columns - 1) / columns;
  std::vector<Row> buckets;
  size_t r = 0;
  for (ir::ScheduleStep start = 0; start < steps; start += width) {
    const ir::ScheduleStep end = std::min(steps, start + width);
    while (r < rows.size() && rows[r].end <= start) ++r;
    Row best;
    bool found = false;
    int64_t most_added = 0;
    for (size_t i = r; i < rows.size() && rows[i].start < end; ++i) {
      most_added = std::max(most_added, rows[i].added);
      if (!found || rows[i].total() > best.total()) {
        best = rows[i];
        best.rep = std::max(rows[i].start, start);
        found = true;
      }
    }
    best.start = start;
    best.end = end;
    best.added = most_added;
    if (!found) best.rep = start;
    buckets.push_back(best);
  }
  return buckets;
}

// Bottom to top: what lives throughout first, temporaries (the most
// changeable) on top.
constexpr std::array<analyzer::ValueCategory, kNumValueCategories> kStackOrder = {
    analyzer::ValueCategory::kParameter, analyzer::ValueCategory::kConstant,
    analyzer::ValueCategory::kThreadLocal, analyzer::ValueCategory::kOutput,
    analyzer::ValueCategory::kTemporary};

constexpr double kWidth = 1180, kHeight = 350;
constexpr double kLeft = 84, kRight = 1140, kTop = 62, kBottom = 312;
// Baselines of the marker labels above the plot, first choice first.
const std::vector<double> kLabelRows = {16, 32, 48};

struct Chart {
  const ReportContext& context;
  const std::vector<Row>& rows;
  const BytesByCategory& any;
  ir::ScheduleStep steps;
  int64_t y_min;  // bytes at the x axis: 0, or the baseline
  int64_t y_max;
  bool draw_added;

  double X(double step) const { return kLeft + step / steps * (kRight - kLeft); }
  double Y(double bytes) const {
    const double y = kBottom - (bytes - y_min) / (y_max - y_min) * (kBottom - kTop);
    return std::clamp(y, kTop - 2, kBottom);
  }
};

void AppendAxes(std::string& out, const Chart& chart) {
  const std::vector<int64_t> y_ticks = chart.y_min == 0
                                           ? NiceByteTicks(chart.y_max, 5)
                                           : NiceByteTicksInRange(chart.y_min, chart.y_max, 5);
  for (int64_t tick : y_ticks) {
    const double y = chart.Y(static_cast<double>(tick));
    AppendSvgLine(out, kLeft, y, kRight, y, "grid");
    AppendSvgText(out, kLeft - 6, y + 4, AxisBytes(tick), "end");
  }
  // The zoomed axis says where it starts, where the first tick leaves room.
  if (chart.y_min > 0 &&
      (y_ticks.empty() || kBottom - chart.Y(static_cast<double>(y_ticks.front())) >= 16)) {
    AppendSvgText(out, kLeft - 6, kBottom + 4, AxisBytes(chart.y_min), "end");
  }
  for (int64_t tick : NiceTicks(chart.steps, 10)) {
    const double x = chart.X(static_cast<double>(tick));
    AppendSvgLine(out, x, kBottom, x, kBottom + 4, "axis");
    AppendSvgText(out, x, kBottom + 18, GroupedBytes(tick), "middle");
  }
  AppendSvgText(out, (kLeft + kRight) / 2, kHeight - 4, "schedule step", "middle");
  out += "\n";
}

// One stacked area per category: along the top edge left to right, back
// along the bottom edge right to left.
void AppendAreas(std::string& out, const Chart& chart) {
  const std::vector<Row>& rows = chart.rows;
  std::vector<int64_t> below(rows.size(), 0);
  for (analyzer::ValueCategory category : kStackOrder) {
    const int c = static_cast<int>(category);
    if (chart.any[c] == 0) continue;
    std::string path;
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string y = SvgNumber(chart.Y(static_cast<double>(below[i] + rows[i].bytes[c])));
      if (i == 0) {
        StrAppend(&path, "M", SvgNumber(chart.X(rows[i].start)), " ", y);
      } else {
        StrAppend(&path, "V", y);
      }
      StrAppend(&path, "H", SvgNumber(chart.X(rows[i].end)));
    }
    for (size_t i = rows.size(); i-- > 0;) {
      StrAppend(&path, "V", SvgNumber(chart.Y(static_cast<double>(below[i]))), "H",
                SvgNumber(chart.X(rows[i].start)));
    }
    path += "Z";
    StrAppend(&out, "<path d=\"", path, "\" fill=\"", CategoryColor(c),
              "\" fill-opacity=\"0.85\" stroke=\"none\"/>\n");
    for (size_t i = 0; i < rows.size(); ++i) below[i] += rows[i].bytes[c];
  }
  if (!chart.draw_added) return;
  // XLA's figure as a step line over the areas.
  std::string path;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string y = SvgNumber(chart.Y(static_cast<double>(rows[i].added)));
    if (i == 0) {
      StrAppend(&path, "M", SvgNumber(chart.X(rows[i].start)), " ", y);
    } else {
      StrAppend(&path, "V", y);
    }
    StrAppend(&path, "H", SvgNumber(chart.X(rows[i].end)));
  }
  StrAppend(&out, "<path class=\"added\" d=\"", path, "\"/>\n");
}

// The occupied peak, XLA's live peak where it differs, the dump's own peak
// step where it is another one; their labels above the plot, placed so that
// none overlaps another. Returns the labels that found no room.
std::vector<std::string> AppendMarkers(std::string& out, const Chart& chart,
                                       const analyzer::LivePeak& occupied,
                                       const analyzer::LivePeak& added) {
  const ReportContext& context = chart.context;
  std::vector<SvgLabel> labels;
  const double x = chart.X(static_cast<double>(occupied.step) + 0.5);
  AppendSvgLine(out, x, kLabelRows.back() + 4, x, kBottom, "peak");
  StrAppend(&out, "<circle cx=\"", SvgNumber(x), "\" cy=\"",
            SvgNumber(chart.Y(static_cast<double>(occupied.bytes))),
            "\" r=\"3.5\" fill=\"#b3261e\"/>");
  std::string label = StrCat("peak ", HumanBytes(occupied.bytes), " at step ", occupied.step);
  if (occupied.instruction.valid()) {
    StrAppend(&label, " (", HtmlElideMiddle(InstructionLabel(context.program, occupied.instruction), 40),
              ")");
  }
  labels.push_back({x, label, "peaklabel"});
  if (added.bytes != occupied.bytes || added.step != occupied.step) {
    const double ax = chart.X(static_cast<double>(added.step) + 0.5);
    StrAppend(&out, "<circle cx=\"", SvgNumber(ax), "\" cy=\"",
              SvgNumber(chart.Y(static_cast<double>(added.bytes))),
              "\" r=\"3.5\" fill=\"none\" stroke=\"#1d232b\" stroke-width=\"1.5\"/>");
    if (ax != x) AppendSvgLine(out, ax, kLabelRows.back() + 4, ax, kBottom, "stated");
    labels.push_back({ax, StrCat("XLA's live peak ", HumanBytes(added.bytes), " at step ",
                                 added.step, " (sizes added)"),
                      "addedlabel"});
  }
  if (const auto& stated = context.analysis.stated_peak;
      stated && stated->stated_step != occupied.step && stated->stated_step != added.step &&
      stated->stated_step >= 0 && stated->stated_step < chart.steps) {
    const double sx = chart.X(static_cast<double>(stated->stated_step) + 0.5);
    AppendSvgLine(out, sx, kLabelRows.back() + 4, sx, kBottom, "stated");
    labels.push_back({sx, StrCat("the dump's peak list: step ", stated->stated_step), ""});
  }
  std::vector<std::string> unplaced;
  for (size_t i : AppendPlacedLabels(out, labels, kLabelRows, 4, kWidth - 4)) {
    unplaced.push_back(labels[i].text);
  }
  return unplaced;
}

std::string RenderChart(const Chart& chart, const analyzer::LivePeak& occupied,
                        const analyzer::LivePeak& added, std::string_view css_class) {
  std::string out;
  StrAppend(&out, "<svg class=\"timeline ", css_class, "\" viewBox=\"0 0 ", SvgNumber(kWidth),
            " ", SvgNumber(kHeight), "\" width=\"", SvgNumber(kWidth), "\" height=\"",
            SvgNumber(kHeight), "\" data-x0=\"", SvgNumber(kLeft), "\" data-x1=\"",
            SvgNumber(kRight), "\" data-steps=\"", chart.steps,
            "\" data-json=\"timeline-data\" role=\"img\" aria-label=\"memory timeline\">\n");
  AppendAxes(out, chart);
  AppendAreas(out, chart);
  AppendSvgLine(out, kLeft, kBottom, kRight, kBottom, "axis");
  AppendSvgLine(out, kLeft, kTop, kLeft, kBottom, "axis");
  const std::vector<std::string> unplaced = AppendMarkers(out, chart, occupied, added);
  StrAppend(&out, "\n<line class=\"cursor\" visibility=\"hidden\" x1=\"0\" y1=\"",
            SvgNumber(kTop), "\" x2=\"0\" y2=\"", SvgNumber(kBottom), "\"/>");
  AppendSvgRect(out, kLeft, kTop, kRight - kLeft, kBottom - kTop, "transparent");
  out += "\n</svg>\n";
  for (const std::string& text : unplaced) {
    StrAppend(&out, "<p class=\"muted\">", HtmlEscape(text), "</p>\n");
  }
  return out;
}

void AppendTooltipData(std::string& out, const ReportContext& context,
                       const std::vector<Row>& rows, bool bucketed, bool names_per_row) {
  const auto& schedule = context.program.schedule.instructions;
  out += "<script type=\"application/json\" id=\"timeline-data\">{\"categories\":[";
  for (int c = 0; c < kNumValueCategories; ++c) {
    StrAppend(&out, c ? "," : "",
              JsonStringForScript(CategoryWord(static_cast<analyzer::ValueCategory>(c))));
  }
  StrAppend(&out, "],\"bucketed\":", bucketed ? "true" : "false",
            ",\"names_per_row\":", names_per_row ? "true" : "false", ",\"names\":[");
  if (names_per_row) {
    for (size_t i = 0; i < rows.size(); ++i) {
      const ir::ScheduleStep s = rows[i].rep;
      StrAppend(&out, i ? "," : "",
                JsonStringForScript(s < static_cast<ir::ScheduleStep>(schedule.size())
                                        ? InstructionLabel(context.program, schedule[s])
                                        : std::string_view()));
    }
  } else {
    for (size_t i = 0; i < schedule.size(); ++i) {
      StrAppend(&out, i ? "," : "",
                JsonStringForScript(InstructionLabel(context.program, schedule[i])));
    }
  }
  out += "],\"rows\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    StrAppend(&out, i ? "," : "", "[", rows[i].start, ",", rows[i].end, ",", rows[i].rep);
    for (int c = 0; c < kNumValueCategories; ++c) StrAppend(&out, ",", rows[i].bytes[c]);
    StrAppend(&out, ",", rows[i].added, "]");
  }
  out += "]}</script>\n";
}

// The rows a timeline draws and how they were chosen.
struct TimelineRows {
  ir::ScheduleStep steps = 0;
  size_t exact_count = 0;      // rows before bucketing: the steps where it changes
  std::vector<Row> rows;       // drawn: the exact rows, or buckets of them
  bool bucketed = false;       // more exact rows than the column limit
  bool names_per_row = false;  // the tooltip names only the drawn rows' steps
};

// The rows of `occupied` (and the analysis's XLA timeline) the section
// draws under the context's column and schedule-name limits.
TimelineRows ChooseRows(const ReportContext& context, const analyzer::Timeline& occupied) {
  const analyzer::Analysis& analysis = context.analysis;
  TimelineRows out;
  out.steps = analysis.timeline.last_step + 1;
  const std::vector<Row> exact = ExactRows(occupied, analysis.timeline, out.steps);
  out.exact_count = exact.size();
  out.bucketed = context.limits.timeline_columns > 0 &&
                 exact.size() > static_cast<size_t>(context.limits.timeline_columns);
  out.rows = out.bucketed ? BucketRows(exact, out.steps, context.limits.timeline_columns) : exact;
  out.names_per_row = context.program.schedule.instructions.size() >
                      static_cast<size_t>(std::max(0, context.limits.schedule_names));
  return out;
}

// Figures over the drawn rows that choose the legend and the axes.
struct RowSummary {
  BytesByCategory any{};      // per category, the most bytes in any row
  int64_t max_total = 0;      // the most bytes, occupied or added, in any row
  int64_t steady = 0;         // the fewest occupied bytes in any row
  bool added_differs = false;  // some row's XLA figure is not its occupied total
};

// The RowSummary of `rows`.
RowSummary SummarizeRows(const std::vector<Row>& rows) {
  RowSummary out;
  int64_t steady = -1;
  for (const Row& row : rows) {
    for (int c = 0; c < kNumValueCategories; ++c) out.any[c] = std::max(out.any[c], row.bytes[c]);
    out.max_total = std::max({out.max_total, row.total(), row.added});
    steady = steady < 0 ? row.total() : std::min(steady, row.total());
    out.added_differs = out.added_differs || row.added != row.total();
  }
  out.steady = std::max<int64_t>(0, steady);
  return out;
}

// The paragraph above the chart, and notices of what the limits left out.
void AppendIntro(std::string& out, const ReportContext& context, const TimelineRows& layout,
                 bool added_differs) {
  StrAppend(&out, "<p>Memory the live values occupy at each of the ", GroupedBytes(layout.steps),
            " schedule steps (bytes two live values share counted once), stacked by "
            "category.");
  if (added_differs) {
    out += " The dark line is XLA's figure, the sizes of the live values added, which counts "
           "shared bytes twice.";
  }
  out += " Hover the chart for a step's instruction and bytes.</p>\n";
  const int columns = context.limits.timeline_columns;
  if (layout.bucketed) {
    out += SamplingNotice(StrCat(
        "the timeline changes at ", GroupedBytes(static_cast<int64_t>(layout.exact_count)),
        " steps; drawn as ", GroupedBytes(static_cast<int64_t>(layout.rows.size())),
        " columns of up to ", GroupedBytes((layout.steps + columns - 1) / columns),
        " steps, each showing the most bytes live within it"));
  }
  const auto& schedule = context.program.schedule.instructions;
  if (layout.names_per_row && !schedule.empty()) {
    out += SamplingNotice(StrCat("the schedule has ",
                                 GroupedBytes(static_cast<int64_t>(schedule.size())),
                                 " instructions; the tooltip names only those at the drawn "
                                 "columns' steps"));
  }
}

// The legend: only the categories that hold bytes, and the line when drawn.
void AppendLegend(std::string& out, const RowSummary& summary) {
  out += "<div class=\"legend\">";
  for (analyzer::ValueCategory category : kStackOrder) {
    const int c = static_cast<int>(category);
    if (summary.any[c] == 0) continue;
    StrAppend(&out, "<span><span class=\"swatch\" style=\"background:", CategoryColor(c),
              "\"></span>", CategoryWord(category), "</span>");
  }
  if (summary.added_differs) {
    out += "<span><span class=\"swatch line\"></span>live value sizes added (XLA)</span>";
  }
  out += "</div>\n";
}

// The full chart, and where the steady bytes are a good share of the most,
// a toggle and a chart whose axis starts at them.
void AppendCharts(std::string& out, const ReportContext& context, const TimelineRows& layout,
                  const RowSummary& summary, const analyzer::LivePeak& occupied) {
  const analyzer::LivePeak& added = *context.analysis.peak;
  const int64_t max_total = summary.max_total, steady = summary.steady;
  const int64_t y_max = std::max<int64_t>(1, static_cast<int64_t>(max_total * 1.06));
  const Chart full{context, layout.rows, summary.any, layout.steps, 0, y_max, summary.added_differs};
  const bool zoom = steady > 0 && steady * 10 >= max_total && steady < max_total;
  if (zoom) {
    StrAppend(&out,
              "<input type=\"checkbox\" id=\"timeline-zoom\" class=\"zoom-toggle\">"
              "<label for=\"timeline-zoom\" class=\"zoom-label\">Start the axis at the ",
              HtmlEscape(HumanBytes(steady)),
              " live at every step (arguments, constants and whatever else lives "
              "throughout), to see the activations above them</label>\n");
  }
  out += "<div class=\"timeline-full\">\n";
  out += RenderChart(full, occupied, added, "full");
  out += "</div>\n";
  if (zoom) {
    const int64_t top = steady + std::max<int64_t>(1, static_cast<int64_t>((max_total - steady) * 1.08));
    const Chart zoomed{context, layout.rows, summary.any, layout.steps, steady, top,
                       summary.added_differs};
    out += "<div class=\"timeline-zoomed\">\n";
    out += RenderChart(zoomed, occupied, added, "zoomed");
    out += "</div>\n";
  }
}

}  // namespace

std::string RenderTimelineSection(const ReportContext& context) {
  const analyzer::Analysis& analysis = context.analysis;
  if (!analysis.peak || analysis.timeline.last_step < 0) {
    return "<p class=\"muted\">Not available: the input has no live ranges.</p>\n";
  }
  // An Analysis built without the occupied figures draws XLA's alone.
  const bool has_occupied = analysis.occupied_peak && !analysis.occupied_timeline.points.empty();
  const analyzer::Timeline& occupied_timeline =
      has_occupied ? analysis.occupied_timeline : analysis.timeline;
  const analyzer::LivePeak& occupied = has_occupied ? *analysis.occupied_peak : *analysis.peak;
  const TimelineRows layout = ChooseRows(context, occupied_timeline);
  const RowSummary summary = SummarizeRows(layout.rows);
  std::string out;
  AppendIntro(out, context, layout, summary.added_differs);
  AppendLegend(out, summary);
  AppendCharts(out, context, layout, summary, occupied);
  AppendTooltipData(out, context, layout.rows, layout.bucketed, layout.names_per_row);
  return out;
}

}  // namespace memplan::viz
