#include "viz/table.h"

#include <algorithm>

namespace memplan::viz {
namespace {

std::string RenderLine(const std::vector<std::string>& cells,
                       const std::vector<TextTable::Column>& columns,
                       const std::vector<size_t>& widths, const std::string& indent) {
  std::string line = indent;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line += "  ";
    const size_t pad = widths[i] - std::min(widths[i], cells[i].size());
    if (columns[i].align == TextTable::Align::kRight) {
      line.append(pad, ' ');
      line += cells[i];
    } else {
      line += cells[i];
      line.append(pad, ' ');
    }
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

}  // namespace

std::string TextTable::Render(const std::string& indent) const {
  std::vector<size_t> widths(columns_.size());
  std::vector<std::string> headers;
  for (size_t i = 0; i < columns_.size(); ++i) {
    widths[i] = columns_[i].header.size();
    headers.push_back(columns_[i].header);
  }
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  std::string out = RenderLine(headers, columns_, widths, indent);
  std::vector<std::string> rule;
  for (size_t w : widths) rule.push_back(std::string(w, '-'));
  out += RenderLine(rule, columns_, widths, indent);
  for (const auto& row : rows_) out += RenderLine(row, columns_, widths, indent);
  return out;
}

}  // namespace memplan::viz
