#include "viz/table.h"

#include <algorithm>

#include "viz/format.h"

namespace memplan::viz {
namespace {

std::string RenderLine(const std::vector<std::string>& cells,
                       const std::vector<TextTable::Column>& columns,
                       const std::vector<size_t>& widths, const std::string& indent) {
  std::string line = indent;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line += "  ";
    std::string cell = cells[i];
    if (DisplayWidth(cell) > widths[i]) {
      cell = columns[i].keep_end ? ElideStart(cell, widths[i]) : ElideMiddle(cell, widths[i]);
    }
    const size_t pad = widths[i] - std::min(widths[i], DisplayWidth(cell));
    if (columns[i].align == TextTable::Align::kRight) {
      line.append(pad, ' ');
      line += cell;
    } else {
      line += cell;
      line.append(pad, ' ');
    }
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

// Narrows the widest eliding columns, one column at a time, until the line
// width (`indent` + columns + two spaces between) is at most `max_width`:
// first down to each column's min_width, then, if that is not enough, down
// to its header (at least 6 columns).
void FitWidths(const std::vector<TextTable::Column>& columns, size_t indent,
               size_t max_width, std::vector<size_t>& widths) {
  size_t total = indent + (widths.empty() ? 0 : 2 * (widths.size() - 1));
  for (size_t w : widths) total += w;
  for (const bool below_min : {false, true}) {
    while (total > max_width) {
      size_t widest = widths.size();
      for (size_t i = 0; i < widths.size(); ++i) {
        const size_t header = DisplayWidth(columns[i].header);
        const size_t floor = below_min ? std::max<size_t>(6, header)
                                       : std::max(columns[i].min_width, header);
        if (!columns[i].elide || widths[i] <= floor) continue;
        if (widest == widths.size() || widths[i] > widths[widest]) widest = i;
      }
      if (widest == widths.size()) break;  // nothing left to narrow at this floor
      --widths[widest];
      --total;
    }
  }
}

}  // namespace

std::string TextTable::Render(const std::string& indent, size_t max_width) const {
  std::vector<size_t> widths(columns_.size());
  std::vector<std::string> headers;
  for (size_t i = 0; i < columns_.size(); ++i) {
    widths[i] = DisplayWidth(columns_[i].header);
    headers.push_back(columns_[i].header);
  }
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
  }
  if (max_width > 0) FitWidths(columns_, DisplayWidth(indent), max_width, widths);
  std::string out = RenderLine(headers, columns_, widths, indent);
  std::vector<std::string> rule;
  for (size_t w : widths) rule.push_back(std::string(w, '-'));
  out += RenderLine(rule, columns_, widths, indent);
  for (const auto& row : rows_) out += RenderLine(row, columns_, widths, indent);
  return out;
}

}  // namespace memplan::viz
