#include "parsers/call_tree_text_parser.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/strings.h"
#include "parsers/line_position.h"

namespace memplan::parsers {
namespace {

constexpr std::string_view kVertical = "\u2502";     // │
constexpr std::string_view kHorizontal = "\u2500";   // ─
constexpr std::string_view kNoBreakSpace = "\u00a0";
constexpr std::string_view kMarkers[] = {"\u251c\u2500\u2500", "\u2514\u2500\u2500", "|--",
                                         "`--", "+--"};

struct TreeLine {
  bool has_marker = false;
  int64_t column = 0;       // 0-based column of the marker (or text, without one)
  std::string_view entry;   // the text after the marker
};

// Splits one line into prefix width, marker and entry.
TreeLine SplitLine(std::string_view line) {
  TreeLine out;
  size_t i = 0;
  while (i < line.size()) {
    const std::string_view rest = line.substr(i);
    bool marker = false;
    for (std::string_view m : kMarkers) {
      if (rest.substr(0, m.size()) == m) {
        marker = true;
        i += m.size();
        break;
      }
    }
    if (marker) {
      out.has_marker = true;
      // Longer rules ("├───") and the space (or no-break space) after them.
      for (;;) {
        const std::string_view r = line.substr(i);
        if (r.substr(0, kHorizontal.size()) == kHorizontal) {
          i += kHorizontal.size();
        } else if (!r.empty() && r.front() == '-') {
          ++i;
        } else {
          break;
        }
      }
      for (;;) {
        const std::string_view r = line.substr(i);
        if (!r.empty() && (r.front() == ' ' || r.front() == '\t')) {
          ++i;
        } else if (r.substr(0, kNoBreakSpace.size()) == kNoBreakSpace) {
          i += kNoBreakSpace.size();
        } else {
          break;
        }
      }
      break;
    }
    if (rest.front() == ' ' || rest.front() == '|') {
      ++i;
    } else if (rest.front() == '\t') {
      out.column += 3;  // a tab counts as four columns
      ++i;
    } else if (rest.substr(0, kVertical.size()) == kVertical) {
      i += kVertical.size();
    } else if (rest.substr(0, kNoBreakSpace.size()) == kNoBreakSpace) {
      i += kNoBreakSpace.size();
    } else {
      break;
    }
    ++out.column;
  }
  out.entry = line.substr(i);
  while (!out.entry.empty() && (out.entry.back() == ' ' || out.entry.back() == '\t')) {
    out.entry.remove_suffix(1);
  }
  return out;
}

struct Entry {
  std::string_view name;
  std::string_view file;
  int64_t line = 0;
};

// "name, file:line", "name, file", "name".
Entry SplitEntry(std::string_view text) {
  Entry e;
  e.name = text;
  const size_t comma = text.rfind(", ");
  if (comma == std::string_view::npos) return e;
  std::string_view location = text.substr(comma + 2);
  const size_t colon = location.rfind(':');
  int64_t line = 0;
  bool has_line = colon != std::string_view::npos && colon + 1 < location.size();
  if (has_line) {
    for (char c : location.substr(colon + 1)) {
      if (c < '0' || c > '9' || line > (INT64_MAX - 9) / 10) {
        has_line = false;
        break;
      }
      line = line * 10 + (c - '0');
    }
  }
  if (has_line) {
    e.file = location.substr(0, colon);
    e.line = line;
  } else if (location.find('/') != std::string_view::npos ||
             location.find('\\') != std::string_view::npos) {
    e.file = location;
  } else {
    return e;  // a comma inside the name
  }
  e.name = text.substr(0, comma);
  return e;
}

}  // namespace

bool LooksLikeTextCallTree(std::string_view head) {
  LinePosition position;
  std::string_view line;
  for (int n = 0; n < 8 && position.NextLine(head, &line); ++n) {
    if (SplitLine(line).has_marker) return true;
  }
  return false;
}

absl::StatusOr<ir::CallTree> ParseTextCallTree(const SourceText& source) {
  ir::CallTreeBuilder builder(source.name(), ir::CallTree::Format::kTextTree);
  LinePosition position;
  position.source = &source;
  // Open nodes: the column of each one's marker, outermost first.
  struct Open {
    int64_t column;
    ir::CallNodeId node;
  };
  std::vector<Open> open;
  bool any = false;
  std::string_view text = source.text();
  std::string_view line;
  while (position.NextLine(text, &line)) {
    const TreeLine tree_line = SplitLine(line);
    if (tree_line.entry.empty() && !tree_line.has_marker) continue;
    const char* entry_at = tree_line.entry.data();
    if (!tree_line.has_marker) {
      if (any) {
        position.WarnAt(builder.tree().diagnostics, "line without a branch marker (skipped)",
                        entry_at);
        continue;
      }
    }
    if (tree_line.entry.empty()) {
      return position.Error(entry_at, "expected a function name after the branch marker");
    }
    // Marker columns are relative to the header, which sits at column -1.
    const int64_t column = tree_line.has_marker ? tree_line.column : -1;
    while (!open.empty() && open.back().column >= column) open.pop_back();
    const ir::CallNodeId parent = open.empty() ? builder.tree().root() : open.back().node;
    // A line indented deeper than one level below the line above still
    // attaches to it; say so.
    if (!open.empty() && open.back().column >= 0 && column - open.back().column > 4) {
      position.WarnAt(builder.tree().diagnostics,
                      "line indented more than one level below its parent", entry_at);
    }
    const Entry entry = SplitEntry(tree_line.entry);
    const ir::FunctionId function = builder.InternFunction(entry.name, entry.file, entry.line);
    const ir::CallNodeId id = builder.AddNode(parent, ir::CallNodeKind::kCall, function);
    builder.node(id).input_line = position.line_number;
    open.push_back(Open{column, id});
    any = true;
  }
  if (!any) {
    return source.ErrorAt(source.text().data(),
                          "expected a call tree: lines like '├── name, file.py:12'");
  }
  return std::move(builder).Finish();
}

}  // namespace memplan::parsers
