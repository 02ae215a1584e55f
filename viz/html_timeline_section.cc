// The memory timeline: bytes live per schedule step, stacked by category,
// with the peak marked.
//
// Contract with the page script (html_page.cc): the <svg class="timeline">
// carries data-x0/data-x1 (the plot's left and right edge in SVG units),
// data-steps (steps on the x axis) and data-json (the id of a <script
// type="application/json"> holding {"categories": [name], "bucketed": bool,
// "names_per_row": bool, "names": [instruction], "rows": [[start, end, rep,
// bytes per category...]]}). Row i covers steps [start, end); `rep` is the
// step its bytes were taken at. `names` is the whole schedule, or, with
// names_per_row, the instruction at each row's `rep`.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "analyzer/value_category.h"
#include "ir/strings.h"
#include "viz/format.h"
#include "viz/html_page.h"
#include "viz/describe.h"
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
  BytesByCategory bytes{};
  int64_t total() const {
    int64_t t = 0;
    for (int64_t b : bytes) t += b;
    return t;
  }
};

// The timeline's step function over [0, steps), one row per constant run.
std::vector<Row> ExactRows(const analyzer::Timeline& timeline, ir::ScheduleStep steps) {
  std::vector<Row> rows;
  const auto& points = timeline.points;
  if (points.empty() || points.front().step > 0) {
    const ir::ScheduleStep end = points.empty() ? steps : std::min(steps, points.front().step);
    rows.push_back({0, end, 0, {}});
  }
  for (size_t i = 0; i < points.size(); ++i) {
    const ir::ScheduleStep start = std::max<ir::ScheduleStep>(0, points[i].step);
    const ir::ScheduleStep end = i + 1 < points.size() ? std::min(steps, points[i + 1].step) : steps;
    if (start >= end) continue;
    rows.push_back({start, end, start, points[i].bytes});
  }
  return rows;
}

// `columns` equal runs of steps, each holding the row with the most bytes
// within it (ties: the earliest), so the peak survives.
std::vector<Row> BucketRows(const std::vector<Row>& rows, ir::ScheduleStep steps, int columns) {
  const ir::ScheduleStep width = (steps + columns - 1) / columns;
  std::vector<Row> buckets;
  size_t r = 0;
  for (ir::ScheduleStep start = 0; start < steps; start += width) {
    const ir::ScheduleStep end = std::min(steps, start + width);
    while (r < rows.size() && rows[r].end <= start) ++r;
    Row best;
    bool found = false;
    for (size_t i = r; i < rows.size() && rows[i].start < end; ++i) {
      if (!found || rows[i].total() > best.total()) {
        best = rows[i];
        best.rep = std::max(rows[i].start, start);
        found = true;
      }
    }
    best.start = start;
    best.end = end;
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

constexpr double kWidth = 1180, kHeight = 320;
constexpr double kLeft = 84, kRight = 1140, kTop = 28, kBottom = 282;

}  // namespace

std::string RenderTimelineSection(const ReportContext& context) {
  const analyzer::Analysis& analysis = context.analysis;
  const ir::Program& program = context.program;
  std::string out;
  if (!analysis.peak || analysis.timeline.last_step < 0) {
    return "<p class=\"muted\">Not available: the input has no live ranges.</p>\n";
  }
  const ir::ScheduleStep steps = analysis.timeline.last_step + 1;
  const std::vector<Row> exact = ExactRows(analysis.timeline, steps);
  const bool bucketed = context.limits.timeline_columns > 0 &&
                        exact.size() > static_cast<size_t>(context.limits.timeline_columns);
  const std::vector<Row> rows =
      bucketed ? BucketRows(exact, steps, context.limits.timeline_columns) : exact;
  const auto& schedule = program.schedule.instructions;
  const bool names_per_row =
      schedule.size() > static_cast<size_t>(std::max(0, context.limits.schedule_names));

  StrAppend(&out, "<p>Bytes of the values live at each of the ", GroupedBytes(steps),
            " schedule steps, stacked by category. Hover the chart for a step's instruction "
            "and bytes.</p>\n");
  if (bucketed) {
    out += SamplingNotice(StrCat(
        "the timeline changes at ", GroupedBytes(static_cast<int64_t>(exact.size())),
        " steps; drawn as ", GroupedBytes(static_cast<int64_t>(rows.size())), " columns of up to ",
        GroupedBytes((steps + context.limits.timeline_columns - 1) / context.limits.timeline_columns),
        " steps, each showing the most bytes live within it"));
  }
  if (names_per_row && !schedule.empty()) {
    out += SamplingNotice(StrCat("the schedule has ",
                                 GroupedBytes(static_cast<int64_t>(schedule.size())),
                                 " instructions; the tooltip names only those at the drawn "
                                 "columns' steps"));
  }

  // Legend: only the categories that hold bytes.
  BytesByCategory any{};
  int64_t max_total = 0;
  for (const Row& row : rows) {
    for (int c = 0; c < kNumValueCategories; ++c) any[c] = std::max(any[c], row.bytes[c]);
    max_total = std::max(max_total, row.total());
  }
  out += "<div class=\"legend\">";
  for (analyzer::ValueCategory category : kStackOrder) {
    const int c = static_cast<int>(category);
    if (any[c] == 0) continue;
    StrAppend(&out, "<span><span class=\"swatch\" style=\"background:", CategoryColor(c),
              "\"></span>", analyzer::CategoryName(category), "</span>");
  }
  out += "</div>\n";

  const double y_max = std::max<double>(1.0, static_cast<double>(max_total) * 1.08);
  auto x_of = [&](double step) { return kLeft + step / steps * (kRight - kLeft); };
  auto y_of = [&](double bytes) { return kBottom - bytes / y_max * (kBottom - kTop); };

  StrAppend(&out, "<svg class=\"timeline\" viewBox=\"0 0 ", SvgNumber(kWidth), " ",
            SvgNumber(kHeight), "\" width=\"", SvgNumber(kWidth), "\" height=\"",
            SvgNumber(kHeight), "\" data-x0=\"", SvgNumber(kLeft), "\" data-x1=\"",
            SvgNumber(kRight), "\" data-steps=\"", steps,
            "\" data-json=\"timeline-data\" role=\"img\" aria-label=\"memory timeline\">\n");
  // Grid and axes.
  for (int64_t tick : NiceByteTicks(static_cast<int64_t>(y_max), 5)) {
    const double y = y_of(static_cast<double>(tick));
    AppendSvgLine(out, kLeft, y, kRight, y, "grid");
    AppendSvgText(out, kLeft - 6, y + 4, AxisBytes(tick), "end");
  }
  for (int64_t tick : NiceTicks(steps, 10)) {
    const double x = x_of(static_cast<double>(tick));
    AppendSvgLine(out, x, kBottom, x, kBottom + 4, "axis");
    AppendSvgText(out, x, kBottom + 16, GroupedBytes(tick), "middle");
  }
  AppendSvgText(out, (kLeft + kRight) / 2, kHeight - 4, "schedule step", "middle");
  out += "\n";

  // One stacked area per category: along the top edge left to right, back
  // along the bottom edge right to left.
  std::vector<int64_t> below(rows.size(), 0);
  for (analyzer::ValueCategory category : kStackOrder) {
    const int c = static_cast<int>(category);
    if (any[c] == 0) continue;
    std::string path;
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string y = SvgNumber(y_of(static_cast<double>(below[i] + rows[i].bytes[c])));
      if (i == 0) {
        StrAppend(&path, "M", SvgNumber(x_of(rows[i].start)), " ", y);
      } else {
        StrAppend(&path, "V", y);
      }
      StrAppend(&path, "H", SvgNumber(x_of(rows[i].end)));
    }
    for (size_t i = rows.size(); i-- > 0;) {
      StrAppend(&path, "V", SvgNumber(y_of(static_cast<double>(below[i]))), "H",
                SvgNumber(x_of(rows[i].start)));
    }
    path += "Z";
    StrAppend(&out, "<path d=\"", path, "\" fill=\"", CategoryColor(c),
              "\" fill-opacity=\"0.85\" stroke=\"none\"/>\n");
    for (size_t i = 0; i < rows.size(); ++i) below[i] += rows[i].bytes[c];
  }
  AppendSvgLine(out, kLeft, kBottom, kRight, kBottom, "axis");
  AppendSvgLine(out, kLeft, kTop, kLeft, kBottom, "axis");

  // The peak, and the dump's own peak step when it is another one.
  const analyzer::LivePeak& peak = *analysis.peak;
  const double peak_x = x_of(static_cast<double>(peak.step) + 0.5);
  AppendSvgLine(out, peak_x, kTop - 6, peak_x, kBottom, "peak");
  StrAppend(&out, "<circle cx=\"", SvgNumber(peak_x), "\" cy=\"",
            SvgNumber(y_of(static_cast<double>(peak.bytes))),
            "\" r=\"3.5\" fill=\"#b3261e\"/>");
  std::string label = StrCat("peak ", HumanBytes(peak.bytes), " at step ", peak.step);
  if (peak.instruction.valid()) {
    StrAppend(&label, " (", InstructionLabel(context.program, peak.instruction), ")");
  }
  const bool right_half = peak_x > (kLeft + kRight) / 2;
  AppendSvgText(out, right_half ? peak_x - 6 : peak_x + 6, kTop - 12, label,
                right_half ? "end" : "start", "peaklabel");
  if (const auto& stated = analysis.stated_peak; stated && stated->stated_step != peak.step &&
                                                 stated->stated_step >= 0 &&
                                                 stated->stated_step < steps) {
    const double x = x_of(static_cast<double>(stated->stated_step) + 0.5);
    AppendSvgLine(out, x, kTop + 14, x, kBottom, "stated");
    AppendSvgText(out, right_half ? x - 6 : x + 6, kTop + 24,
                  StrCat("the dump's peak list: step ", stated->stated_step),
                  right_half ? "end" : "start");
  }
  StrAppend(&out, "\n<line class=\"cursor\" visibility=\"hidden\" x1=\"0\" y1=\"",
            SvgNumber(kTop), "\" x2=\"0\" y2=\"", SvgNumber(kBottom), "\"/>");
  AppendSvgRect(out, kLeft, kTop, kRight - kLeft, kBottom - kTop, "transparent");
  out += "\n</svg>\n";

  // The data behind the tooltip.
  out += "<script type=\"application/json\" id=\"timeline-data\">{\"categories\":[";
  for (int c = 0; c < kNumValueCategories; ++c) {
    StrAppend(&out, c ? "," : "",
              JsonStringForScript(analyzer::CategoryName(static_cast<analyzer::ValueCategory>(c))));
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
    out += "]";
  }
  out += "]}</script>\n";
  return out;
}

}  // namespace memplan::viz
