#include "viz/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ir/strings.h"
#include "viz/html_page.h"

namespace memplan::viz {

std::string SvgNumber(double value) {
  const double rounded = std::round(value * 10.0) / 10.0;
  char buffer[40];
  if (rounded == std::floor(rounded)) {
    std::snprintf(buffer, sizeof(buffer), "%.0f", rounded == 0.0 ? 0.0 : rounded);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.1f", rounded);
  }
  return buffer;
}

void AppendSvgRect(std::string& out, double x, double y, double width, double height,
                   std::string_view fill, std::string_view tip,
                   std::string_view extra_attributes) {
  StrAppend(&out, "<rect x=\"", SvgNumber(x), "\" y=\"", SvgNumber(y), "\" width=\"",
            SvgNumber(width), "\" height=\"", SvgNumber(height), "\"");
  if (!fill.empty()) StrAppend(&out, " fill=\"", fill, "\"");
  if (!tip.empty()) StrAppend(&out, " data-tip=\"", HtmlEscape(tip), "\"");
  if (!extra_attributes.empty()) StrAppend(&out, " ", extra_attributes);
  out += "/>";
}

void AppendSvgLine(std::string& out, double x1, double y1, double x2, double y2,
                   std::string_view css_class) {
  StrAppend(&out, "<line x1=\"", SvgNumber(x1), "\" y1=\"", SvgNumber(y1), "\" x2=\"",
            SvgNumber(x2), "\" y2=\"", SvgNumber(y2), "\" class=\"", css_class, "\"/>");
}

void AppendSvgText(std::string& out, double x, double y, std::string_view text,
                   std::string_view anchor, std::string_view css_class) {
  StrAppend(&out, "<text x=\"", SvgNumber(x), "\" y=\"", SvgNumber(y), "\" text-anchor=\"",
            anchor, "\"");
  if (!css_class.empty()) StrAppend(&out, " class=\"", css_class, "\"");
  StrAppend(&out, ">", HtmlEscape(text), "</text>");
}

namespace {

// 1, 2 or 5 times a power of ten, the smallest such step giving at most
// about `count` intervals over `max` (in some unit).
double NiceStep(double max, int count) {
  const double raw = max / std::max(1, count);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10.0 * magnitude;
}

}  // namespace

std::vector<int64_t> NiceTicks(int64_t max, int count) {
  std::vector<int64_t> ticks;
  if (max <= 0) return ticks;
  const int64_t step = std::max<int64_t>(1, static_cast<int64_t>(NiceStep(max, count)));
  for (int64_t t = 0; t <= max; t += step) ticks.push_back(t);
  return ticks;
}

std::vector<int64_t> NiceByteTicks(int64_t max, int count) {
  std::vector<int64_t> ticks;
  if (max <= 0) return ticks;
  double unit = 1.0;
  while (unit * 1024.0 <= static_cast<double>(max) && unit < 1152921504606846976.0) {
    unit *= 1024.0;
  }
  const double step_units = NiceStep(static_cast<double>(max) / unit, count);
  const int64_t step = std::max<int64_t>(1, static_cast<int64_t>(std::llround(step_units * unit)));
  for (int64_t t = 0; t <= max; t += step) {
    ticks.push_back(t);
    if (t > max - step) break;  // no overflow near INT64_MAX
  }
  return ticks;
}

std::vector<int64_t> NiceByteTicksInRange(int64_t lo, int64_t hi, int count) {
  std::vector<int64_t> ticks;
  if (hi <= lo) return ticks;
  const std::vector<int64_t> span = NiceByteTicks(hi - lo, count);
  if (span.size() < 2) return ticks;
  const int64_t step = span[1];
  int64_t t = lo % step == 0 ? lo : lo + (step - lo % step);
  for (; t <= hi; t += step) {
    ticks.push_back(t);
    if (t > hi - step) break;
  }
  return ticks;
}

double EstimatedTextWidth(std::string_view text) {
  // 11px DejaVu Sans / Arial: digits and most letters 6-7 px, narrow ones
  // (i, l, ., ,, space) about 3.5 px; bold labels up to 8% wider.
  double width = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    if (c == 'i' || c == 'l' || c == '.' || c == ',' || c == ' ' || c == '\'' || c == '(' ||
        c == ')' || c == ':' || c == 'j' || c == 't' || c == 'f' || c == 'I' || c == '|') {
      width += 3.9;
    } else if (c == 'm' || c == 'w' || c == 'M' || c == 'W') {
      width += 9.6;
    } else if (c >= 'A' && c <= 'Z') {
      width += 7.9;
    } else {
      width += 7.0;
    }
  }
  return width;
}

std::vector<size_t> AppendPlacedLabels(std::string& out, const std::vector<SvgLabel>& labels,
                                       const std::vector<double>& row_ys, double left,
                                       double right) {
  struct Placed {
    double x0, x1;
    size_t row;
  };
  std::vector<Placed> placed;
  std::vector<size_t> unplaced;
  constexpr double kGap = 8;
  for (size_t i = 0; i < labels.size(); ++i) {
    const SvgLabel& label = labels[i];
    const double width = EstimatedTextWidth(label.text);
    const bool to_the_left = label.x + 6 + width > right;
    double x0 = to_the_left ? label.x - 6 - width : label.x + 6;
    x0 = std::max(left, x0);
    const double x1 = x0 + width;
    bool done = false;
    for (size_t row = 0; row < row_ys.size() && !done; ++row) {
      bool clear = true;
      for (const Placed& p : placed) {
        if (p.row == row && x0 < p.x1 + kGap && p.x0 < x1 + kGap) clear = false;
      }
      if (!clear) continue;
      placed.push_back({x0, x1, row});
      AppendSvgText(out, x0, row_ys[row], label.text, "start", label.css_class);
      done = true;
    }
    if (!done) unplaced.push_back(i);
  }
  return unplaced;
}

std::string AxisBytes(int64_t bytes) {
  if (bytes == 0) return "0";
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (std::fabs(value) >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  char buffer[48];
  if (value == std::floor(value)) {
    std::snprintf(buffer, sizeof(buffer), "%.0f %s", value, kUnits[unit]);
  } else if (value * 10.0 == std::floor(value * 10.0)) {
    std::snprintf(buffer, sizeof(buffer), "%.1f %s", value, kUnits[unit]);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.2f %s", value, kUnits[unit]);
  }
  return buffer;
}

std::string_view CategoryColor(int category) {
  // parameter, output, temporary, constant, thread-local
  static constexpr std::string_view kColors[] = {"#4e79a7", "#59a14f", "#f28e2b", "#9c9c9c",
                                                 "#b07aa1"};
  return category >= 0 && category < 5 ? kColors[category] : "#cccccc";
}

namespace {
constexpr std::string_view kPalette[] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#8cd17d", "#d4a6c8"};
}  // namespace

std::string_view PaletteColorAt(size_t i) {
  return kPalette[i % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

std::string_view PaletteColor(std::string_view key) {
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a: stable across runs and hosts
  for (char c : key) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return kPalette[hash % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

}  // namespace memplan::viz
