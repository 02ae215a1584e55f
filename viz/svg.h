// Small helpers for writing inline SVG by hand: numbers, shapes, axis ticks
// and colors. Output is deterministic and never depends on locale.
#ifndef MEMPLAN_VIZ_SVG_H_
#define MEMPLAN_VIZ_SVG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memplan::viz {

// A coordinate with at most one decimal: "12", "12.5", "-3.2".
std::string SvgNumber(double value);

// <rect> with an optional fill, a tooltip (data-tip, escaped here) and any
// extra attributes (written as given, e.g. "class=\"x\"").
void AppendSvgRect(std::string& out, double x, double y, double width, double height,
                   std::string_view fill, std::string_view tip = {},
                   std::string_view extra_attributes = {});
void AppendSvgLine(std::string& out, double x1, double y1, double x2, double y2,
                   std::string_view css_class);
// anchor: "start", "middle" or "end". `text` is escaped here.
void AppendSvgText(std::string& out, double x, double y, std::string_view text,
                   std::string_view anchor = "start", std::string_view css_class = {});

// About `count` round tick values in [0, max]: multiples of 1, 2 or 5 times a
// power of ten. Always starts at 0; empty when max <= 0.
std::vector<int64_t> NiceTicks(int64_t max, int count);

// The same for bytes: multiples of 1, 2 or 5 times a power of ten of the
// largest binary unit (KiB, MiB, ...) not above `max`.
std::vector<int64_t> NiceByteTicks(int64_t max, int count);

// A short byte label for an axis: "0", "512 B", "1.5 KiB", "256 MiB".
std::string AxisBytes(int64_t bytes);

// The same within [lo, hi]: round multiples (of the step NiceByteTicks
// picks for hi - lo) that lie in the range. Empty when hi <= lo.
std::vector<int64_t> NiceByteTicksInRange(int64_t lo, int64_t hi, int count);

// Estimated width in SVG units of `text` in the page's 11px sans-serif
// labels: generous (a few percent wider than Chromium and Firefox draw it),
// so that labels placed by it do not touch.
double EstimatedTextWidth(std::string_view text);

// A text label to place near x (a marker's position).
struct SvgLabel {
  double x = 0;
  std::string text;
  std::string css_class;  // may be empty
};

// Writes each label on the first of `row_ys` (baselines, top to bottom of
// priority) where it overlaps no label placed before it, starting at x + 6
// or, where it would pass `right`, ending at x - 6; never left of `left`.
// Labels in `labels` order (the most important first). Returns the indices
// of the labels that fit nowhere (not written).
std::vector<size_t> AppendPlacedLabels(std::string& out, const std::vector<SvgLabel>& labels,
                                       const std::vector<double>& row_ys, double left,
                                       double right);

// Fill colors of the five value categories (analyzer::ValueCategory order).
std::string_view CategoryColor(int category);

// The i-th of the dozen distinguishable fills (i taken modulo their number).
std::string_view PaletteColorAt(size_t i);

// One of a dozen distinguishable fills, chosen by a stable hash of `key`.
std::string_view PaletteColor(std::string_view key);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_SVG_H_
