// The allocation map: inside one allocation, each value as a rectangle over
// its live range (x: schedule steps) and its bytes (y: offset to offset +
// size), the picture XLA's heap simulator draws. One panel per allocation
// that holds several values: temp arenas first, then the largest. The x axis
// covers the allocation's life (its values' first to last live step), the
// fills say what defined each value (op_type, or the opcode) and a legend
// names them.
//
// Scale: at most limits.map_panels panels; in each, the limits.map_rects
// largest values as rectangles and the rest as a coarse density grid (a 2-D
// difference array, O(values + cells)), with a notice saying so.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/strings.h"
#include "viz/format.h"
#include "viz/html_page.h"
#include "viz/describe.h"
#include "viz/html_sections.h"
#include "viz/svg.h"

namespace memplan::viz {
namespace {

constexpr double kWidth = 1180, kHeight = 262;
constexpr double kLeft = 84, kRight = 1140, kTop = 10, kBottom = 220;
constexpr int kGridColumns = 120, kGridRows = 40;

bool Mapped(const ir::Value* v) { return v != nullptr && v->live_range.has_value(); }

// Values of `a` that can be drawn: those with a live range.
std::vector<const ir::Value*> MappedValues(const ir::Program& program, const ir::Allocation& a) {
  std::vector<const ir::Value*> values;
  for (ir::ValueId id : a.values) {
    const ir::Value* v = program.FindValue(id);
    if (Mapped(v)) values.push_back(v);
  }
  return values;
}

bool WorthAPanel(const ir::Program& program, const ir::Allocation& a) {
  if (a.size <= 0) return false;
  int mapped = 0;
  for (ir::ValueId id : a.values) {
    if (Mapped(program.FindValue(id)) && ++mapped >= 2) return true;
  }
  return a.is_preallocated_temp && mapped >= 1;
}

std::string AllocationTitle(const ir::Allocation& a, size_t values) {
  std::string kind;
  if (a.is_preallocated_temp) kind = "temp arena";
  else if (a.is_entry_parameter()) kind = StrCat("argument ", *a.parameter_number);
  else if (a.maybe_live_out) kind = "output";
  else if (a.is_constant) kind = "constant";
  else if (a.is_thread_local) kind = "thread-local";
  else kind = "other";
  return StrCat("Allocation ", a.id.value(), " (", kind, "): ", HumanBytes(a.size), ", ",
                GroupedBytes(static_cast<int64_t>(values)), " values");
}

std::string ValueTip(const ReportContext& context, const ir::Value& v) {
  const ValueLabels labels = LabelsOf(context.program, context.analysis, v);
  std::string tip = StrCat(labels.name, " (value ", v.id.value(), ")");
  if (!v.shape_text.empty()) StrAppend(&tip, "\nshape: ", v.shape_text);
  StrAppend(&tip, "\nsize: ", HumanBytes(v.size), " (", GroupedBytes(v.size), " bytes)");
  StrAppend(&tip, "\noffset: ", GroupedBytes(v.offset), " to ", GroupedBytes(v.offset + v.size));
  StrAppend(&tip, "\nlive: steps ", v.live_range->start, " to ", v.live_range->end);
  if (!labels.op_type.empty()) StrAppend(&tip, "\nop_type: ", labels.op_type);
  if (!labels.source.empty()) StrAppend(&tip, "\nsource: ", labels.source);
  return tip;
}

// x spans steps [first, first + steps): the allocation's life.
struct Scale {
  double first;
  double steps;
  double bytes;
  double Fraction(double step) const { return (step - first) / steps; }
  double X(double step) const { return kLeft + Fraction(step) * (kRight - kLeft); }
  double Y(double offset) const { return kBottom - offset / bytes * (kBottom - kTop); }
};

// The values not drawn as rectangles, as a grid of cells shaded by how many
// of them cover each cell.
void AppendDensityGrid(std::string& out, const std::vector<const ir::Value*>& rest,
                       const Scale& scale, int64_t rest_bytes) {
  // diff[(r) * (C + 1) + c]: a 2-D difference array of cover counts.
  constexpr int C = kGridColumns, R = kGridRows;
  std::vector<int64_t> diff(static_cast<size_t>(R + 1) * (C + 1), 0);
  auto cell = [](double fraction, int n) {
    return std::clamp(static_cast<int>(fraction * n), 0, n - 1);
  };
  for (const ir::Value* v : rest) {
    const int c0 = cell(scale.Fraction(v->live_range->start), C);
    const int c1 = cell(scale.Fraction(v->live_range->end), C);
    const int r0 = cell(static_cast<double>(v->offset) / scale.bytes, R);
    const int r1 = cell(static_cast<double>(v->offset + std::max<int64_t>(v->size, 1) - 1) /
                            scale.bytes, R);
    diff[r0 * (C + 1) + c0] += 1;
    diff[r0 * (C + 1) + c1 + 1] -= 1;
    diff[(r1 + 1) * (C + 1) + c0] -= 1;
    diff[(r1 + 1) * (C + 1) + c1 + 1] += 1;
  }
  std::vector<int64_t> count(static_cast<size_t>(R) * C, 0);
  int64_t max_count = 0;
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      int64_t v = diff[r * (C + 1) + c];
      if (r > 0) v += count[(r - 1) * C + c];
      if (c > 0) v += count[r * C + c - 1];
      if (r > 0 && c > 0) v -= count[(r - 1) * C + c - 1];
      count[r * C + c] = v;
    }
  }
  // `count` now holds prefix sums of the differences, i.e. the cover counts.
  for (int64_t n : count) max_count = std::max(max_count, n);
  if (max_count == 0) return;
  StrAppend(&out, "<g fill=\"#6b7785\" data-tip=\"",
            HtmlEscape(StrCat(GroupedBytes(static_cast<int64_t>(rest.size())),
                              " smaller values (", HumanBytes(rest_bytes),
                              "), drawn as a density grid: darker cells are covered by more "
                              "of them")),
            "\">");
  // Four shades, by the share of the busiest cell's count.
  auto level_of = [max_count](int64_t n) {
    return n == 0 ? 0 : 1 + static_cast<int>(4 * (n - 1) / max_count);
  };
  const double cell_w = (kRight - kLeft) / C, cell_h = (kBottom - kTop) / R;
  for (int r = 0; r < R; ++r) {
    int c = 0;
    while (c < C) {
      const int level = level_of(count[r * C + c]);
      int run = c + 1;
      while (run < C && level_of(count[r * C + run]) == level) ++run;
      if (level > 0) {
        static constexpr const char* kOpacity[] = {"0", "0.18", "0.34", "0.5", "0.66"};
        AppendSvgRect(out, kLeft + c * cell_w, kBottom - (r + 1) * cell_h, (run - c) * cell_w,
                      cell_h, "", "", StrCat("fill-opacity=\"", kOpacity[level], "\""));
      }
      c = run;
    }
  }
  out += "</g>\n";
}

// What defined a value, for its fill: the op_type, or else the opcode.
std::string KindOf(const ReportContext& context, const ir::Value& v) {
  const ValueLabels labels = LabelsOf(context.program, context.analysis, v);
  if (!labels.op_type.empty()) return std::string(labels.op_type);
  if (!labels.opcode.empty()) return std::string(labels.opcode);
  return "unknown";
}

// The fills of a panel: the kinds holding the most bytes get a color each
// (in that order), the rest share grey as "other".
struct Fills {
  static constexpr size_t kNamed = 10;
  static constexpr std::string_view kOther = "#bab0ac";
  std::vector<std::pair<std::string, int64_t>> named;  // kind, bytes; most first
  size_t other_kinds = 0;
  int64_t other_bytes = 0;

  std::string_view ColorOf(const std::string& kind) const {
    for (size_t i = 0; i < named.size(); ++i) {
      if (named[i].first == kind) return PaletteColorAt(i);
    }
    return kOther;
  }
};

Fills ChooseFills(const ReportContext& context, const std::vector<const ir::Value*>& values) {
  std::map<std::string, int64_t> bytes;
  for (const ir::Value* v : values) bytes[KindOf(context, *v)] += v->size;
  std::vector<std::pair<std::string, int64_t>> kinds(bytes.begin(), bytes.end());
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  Fills fills;
  for (auto& [kind, b] : kinds) {
    if (fills.named.size() < Fills::kNamed) {
      fills.named.emplace_back(kind, b);
    } else {
      ++fills.other_kinds;
      fills.other_bytes += b;
    }
  }
  return fills;
}

std::string Swatch(std::string_view color, std::string_view extra_class = {}) {
  return StrCat("<span class=\"swatch", extra_class.empty() ? "" : " ", extra_class, "\"",
                color.empty() ? std::string() : StrCat(" style=\"background:", color, "\""),
                "></span>");
}

std::string Legend(const Fills& fills, bool grid, std::optional<ir::ScheduleStep> peak_step) {
  std::string out = "<div class=\"legend\">";
  for (size_t i = 0; i < fills.named.size(); ++i) {
    const auto& [kind, bytes] = fills.named[i];
    StrAppend(&out, "<span>", Swatch(PaletteColorAt(i)), ElidedHtml(kind, 32), " (",
              HumanBytes(bytes), ")</span>");
  }
  if (fills.other_kinds > 0) {
    StrAppend(&out, "<span>", Swatch(Fills::kOther), "other: ", fills.other_kinds, " kinds (",
              HumanBytes(fills.other_bytes), ")</span>");
  }
  if (grid) StrAppend(&out, "<span>", Swatch("", "grid"), "smaller values (density)</span>");
  if (peak_step) {
    StrAppend(&out, "<span>", Swatch("", "dash"), "live peak, step ", *peak_step, "</span>");
  }
  out += "</div>\n";
  return out;
}

// One allocation's drawable values: the largest as rectangles, the rest
// for the density grid, and the steps they live over.
struct PanelValues {
  std::vector<const ir::Value*> drawn;  // largest first
  std::vector<const ir::Value*> rest;
  size_t total = 0;  // drawn and rest
  int64_t rest_bytes = 0;
  ir::ScheduleStep first = 0, last = 0;  // the first and last live step of any
};

// `a`'s values with a live range, the limits.map_rects largest (ties by id)
// drawn and the rest gridded.
PanelValues ChoosePanelValues(const ReportContext& context, const ir::Allocation& a) {
  PanelValues out;
  std::vector<const ir::Value*> values = MappedValues(context.program, a);
  out.total = values.size();
  std::sort(values.begin(), values.end(), [](const ir::Value* x, const ir::Value* y) {
    if (x->size != y->size) return x->size > y->size;
    return x->id < y->id;
  });
  const size_t keep = context.limits.map_rects <= 0
                          ? out.total
                          : std::min(out.total, static_cast<size_t>(context.limits.map_rects));
  for (size_t i = 0; i < out.total; ++i) {
    const ir::LiveRange& range = *values[i]->live_range;
    out.first = i == 0 ? range.start : std::min(out.first, range.start);
    out.last = i == 0 ? range.end : std::max(out.last, range.end);
  }
  out.rest.assign(values.begin() + keep, values.end());
  values.resize(keep);
  out.drawn = std::move(values);
  for (const ir::Value* v : out.rest) out.rest_bytes += v->size;
  return out;
}

// The panel's title, notices of what is gridded or not drawn, its x range
// and its legend.
void AppendPanelHeader(std::string& out, const ir::Allocation& a, const PanelValues& pv,
                       const Fills& fills, std::optional<ir::ScheduleStep> peak_step) {
  StrAppend(&out, "<h3>", HtmlEscape(AllocationTitle(a, a.values.size())), "</h3>\n");
  if (!pv.rest.empty()) {
    out += SamplingNotice(StrCat("showing the ", GroupedBytes(static_cast<int64_t>(pv.drawn.size())),
                                 " largest of ", GroupedBytes(static_cast<int64_t>(pv.total)),
                                 " values as rectangles; the other ",
                                 GroupedBytes(static_cast<int64_t>(pv.rest.size())), " (",
                                 HumanBytes(pv.rest_bytes), ") as a density grid"));
  }
  if (pv.total < a.values.size()) {
    StrAppend(&out, "<p class=\"muted\">",
              GroupedBytes(static_cast<int64_t>(a.values.size() - pv.total)),
              " values without a live range are not drawn.</p>\n");
  }
  StrAppend(&out, "<p class=\"muted\">Live from step ", pv.first, " to step ", pv.last,
            " (the x axis); fill: what defined each value.</p>\n");
  out += Legend(fills, !pv.rest.empty(), peak_step);
}

// The offset grid lines and labels, the step ticks and the axes' caption.
void AppendPanelAxes(std::string& out, int64_t allocation_bytes, const Scale& scale,
                     ir::ScheduleStep first, ir::ScheduleStep steps) {
  for (int64_t tick : NiceByteTicks(allocation_bytes, 4)) {
    const double y = scale.Y(static_cast<double>(tick));
    AppendSvgLine(out, kLeft, y, kRight, y, "grid");
    AppendSvgText(out, kLeft - 6, y + 4, AxisBytes(tick), "end");
  }
  for (int64_t tick : NiceTicks(steps, 10)) {
    const double x = scale.X(static_cast<double>(first + tick));
    AppendSvgLine(out, x, kBottom, x, kBottom + 4, "axis");
    AppendSvgText(out, x, kBottom + 18, GroupedBytes(first + tick), "middle");
  }
  AppendSvgText(out, (kLeft + kRight) / 2, kHeight - 4,
                "schedule step (x) by offset in the allocation (y)", "middle");
  out += "\n";
}

// One rectangle per value, in the order given, filled by what defined it.
void AppendValueRects(std::string& out, const ReportContext& context,
                      const std::vector<const ir::Value*>& values, const Scale& scale,
                      const Fills& fills) {
  for (const ir::Value* v : values) {
    const double x0 = scale.X(static_cast<double>(v->live_range->start));
    const double x1 = scale.X(static_cast<double>(v->live_range->end + 1));
    const double top = std::max(kTop, scale.Y(static_cast<double>(v->offset + v->size)));
    const double bottom = std::min(kBottom, scale.Y(static_cast<double>(v->offset)));
    const double width = std::max(1.0, x1 - x0), height = std::max(1.0, bottom - top);
    // A thin white edge keeps neighbours apart, where there is room for it.
    AppendSvgRect(out, x0, std::min(top, bottom - 1), width, height,
                  fills.ColorOf(KindOf(context, *v)),
                  ValueTip(context, *v),
                  width >= 4 && height >= 4 ? "stroke=\"#ffffff\" stroke-width=\"0.5\"" : "");
    out += "\n";
  }
}

// The panel of one allocation: header, then the map as an SVG.
std::string RenderPanel(const ReportContext& context, const ir::Allocation& a) {
  const PanelValues pv = ChoosePanelValues(context, a);
  const ir::ScheduleStep steps = std::max<ir::ScheduleStep>(1, pv.last + 1 - pv.first);
  const Scale scale{static_cast<double>(pv.first), static_cast<double>(steps),
                    static_cast<double>(std::max<int64_t>(1, a.size))};
  const Fills fills = ChooseFills(context, pv.drawn);
  const auto& peak = context.analysis.occupied_peak ? context.analysis.occupied_peak
                                                    : context.analysis.peak;
  std::optional<ir::ScheduleStep> peak_step;
  if (peak && peak->step >= pv.first && peak->step <= pv.last) peak_step = peak->step;

  std::string out;
  AppendPanelHeader(out, a, pv, fills, peak_step);
  StrAppend(&out, "<svg class=\"allocation-map\" viewBox=\"0 0 ", SvgNumber(kWidth), " ",
            SvgNumber(kHeight), "\" width=\"", SvgNumber(kWidth), "\" height=\"",
            SvgNumber(kHeight), "\" role=\"img\" aria-label=\"",
            HtmlEscape(StrCat("allocation ", a.id.value(), " map")), "\">\n");
  AppendPanelAxes(out, a.size, scale, pv.first, steps);
  AppendDensityGrid(out, pv.rest, scale, pv.rest_bytes);
  // Largest first, so that smaller values (which may share bytes with a
  // larger one, e.g. in an output tuple) stay visible on top.
  AppendValueRects(out, context, pv.drawn, scale, fills);
  if (peak_step) {
    const double x = scale.X(static_cast<double>(*peak_step) + 0.5);
    AppendSvgLine(out, x, kTop, x, kBottom, "peak");
  }
  AppendSvgLine(out, kLeft, kBottom, kRight, kBottom, "axis");
  AppendSvgLine(out, kLeft, kTop, kLeft, kBottom, "axis");
  out += "</svg>\n";
  return out;
}

}  // namespace

std::string RenderAllocationMapSection(const ReportContext& context) {
  const ir::Program& program = context.program;
  if (!context.analysis.peak) return "";
  std::vector<const ir::Allocation*> panels;
  for (const ir::Allocation& a : program.allocations) {
    if (WorthAPanel(program, a)) panels.push_back(&a);
  }
  if (panels.empty()) return "";
  // Temp arenas first (the heap simulator's picture), then by size.
  std::sort(panels.begin(), panels.end(), [](const ir::Allocation* x, const ir::Allocation* y) {
    if (x->is_preallocated_temp != y->is_preallocated_temp) return x->is_preallocated_temp;
    if (x->size != y->size) return x->size > y->size;
    return x->id < y->id;
  });
  const size_t eligible = panels.size();
  if (context.limits.map_panels > 0 && panels.size() > static_cast<size_t>(context.limits.map_panels)) {
    panels.resize(static_cast<size_t>(context.limits.map_panels));
  }
  std::string out =
      "<p>Inside each allocation that holds several values: each value as a rectangle over "
      "its live range (x, cropped to the allocation's life) and its bytes (y), as XLA's heap "
      "simulator places them. Hover a rectangle for the value.</p>\n";
  if (panels.size() < eligible) {
    out += SamplingNotice(StrCat("showing ", panels.size(), " of ", eligible,
                                 " allocations that hold several values: temp arenas first, "
                                 "then the largest"));
  }
  for (const ir::Allocation* a : panels) out += RenderPanel(context, *a);
  return out;
}

}  // namespace memplan::viz
