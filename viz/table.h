// A plain-text table with aligned columns, for compiler-style reports.
#ifndef MEMPLAN_VIZ_TABLE_H_
#define MEMPLAN_VIZ_TABLE_H_

#include <string>
#include <vector>

namespace memplan::viz {

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kLeft;
    // May be narrowed to fit a width: long cells lose their middle ("..."),
    // or with keep_end their start (paths, op_name paths: the end says most).
    bool elide = false;
    size_t min_width = 12;  // the narrowest it becomes (or its header)
    bool keep_end = false;
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // Requires cells.size() == number of columns.
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

  // Header, a rule, then the rows; each line starts with `indent` and has no
  // trailing spaces. With `max_width` > 0, the widest eliding columns are
  // narrowed (to their min_width, then if need be to their header or 6
  // columns) until every line fits in `max_width` display columns, where
  // that is possible; widths count UTF-8 code points.
  std::string Render(const std::string& indent = "  ", size_t max_width = 0) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_TABLE_H_
