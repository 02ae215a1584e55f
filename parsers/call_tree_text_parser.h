// Parses a text call tree as tree-drawing tools print one (seed 000):
//
//   └── main, /root/.../finetune_4D.py:195
//       ├── init_device_mesh, /root/.../api.py:48
//       │   └── __init__, /root/.../device_mesh.py:224
//
// Each line is a prefix of columns ("│   " or "    "), a branch marker
// ("├── ", "└── ", or the ASCII "|-- ", "`-- ", "+-- "), then the entry
// "name, file:line" (", file:line" and ":line" are optional). A line's depth
// comes from the width of its prefix in columns (not from the glyphs in it):
// the parent is the nearest line above whose marker starts further left. A
// first line without a marker is the tree's single top node, and marked
// lines below it are its descendants.
//
// Blank lines are skipped. A marker-less line after the first, and a line
// nested more than one level below the line above (it is attached to that
// line), are counted as warnings. A file with no tree line is an error.
#ifndef MEMPLAN_PARSERS_CALL_TREE_TEXT_PARSER_H_
#define MEMPLAN_PARSERS_CALL_TREE_TEXT_PARSER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "ir/call_tree.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

absl::StatusOr<ir::CallTree> ParseTextCallTree(const SourceText& source);

// Sniff rule: one of the first lines holds a branch marker.
bool LooksLikeTextCallTree(std::string_view head);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_CALL_TREE_TEXT_PARSER_H_
