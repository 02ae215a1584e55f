// The bytes live at a program's peak hung on the nodes of a call tree (a
// text tree or a profiler trace, ir/call_tree.h): each value live at the
// peak goes to the call node of the function its source location lies in.
//   - a value's location is its resolved source (analyzer/
//     source_resolution.h: its own metadata, else what it was made from);
//   - the function holding file:line is the call tree's function in the
//     same file (paths equal, or one ends with the other at a '/') whose
//     line is the greatest not after the value's line: a call tree gives a
//     function's first line, a dump the line of the operation in its body;
//   - a function called at several nodes gets the bytes at its first node
//     in preorder (a value cannot say which call made it);
//     CallTreePeakNode::function_nodes says how many nodes share it;
//   - values with no location (program arguments, XLA's own buffers) and
//     values whose file no function of the tree is in are reported apart.
// Pure function of its inputs; lists sorted with id tie-breakers.
#ifndef MEMPLAN_ANALYZER_CALL_TREE_PEAK_H_
#define MEMPLAN_ANALYZER_CALL_TREE_PEAK_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/liveness.h"
#include "analyzer/source_resolution.h"
#include "ir/call_tree.h"
#include "ir/program.h"

namespace memplan::analyzer {

struct CallTreePeakNode {
  ir::CallNodeId node;
  int64_t self_bytes = 0;     // values placed at this node
  int64_t self_values = 0;
  int64_t subtree_bytes = 0;  // this node and every node below it
  int64_t function_nodes = 0;  // call nodes of the node's function
};

// Where one value live at the peak went.
struct CallTreePeakValue {
  ir::ValueId value;
  int64_t bytes = 0;
  std::string_view file;  // its resolved source; empty when none
  int64_t line = 0;
  ir::CallNodeId node;  // invalid: unplaced
};

struct CallTreePeak {
  ir::ScheduleStep step = 0;
  int64_t peak_bytes = 0;
  int64_t placed_bytes = 0;
  int64_t placed_values = 0;
  // A source location in no function of the tree (file absent from it, or
  // a line before its first function there).
  int64_t unmatched_bytes = 0;
  int64_t unmatched_values = 0;
  // No source location at all.
  int64_t no_source_bytes = 0;
  int64_t no_source_values = 0;
  // Nodes with subtree bytes, in preorder (the root first when any value
  // was placed).
  std::vector<CallTreePeakNode> nodes;
  // Every value live at the peak, in the peak's order (largest first).
  std::vector<CallTreePeakValue> values;
};

// `origins` per program value (Analysis::origins). The peak's values must be
// values of `program`.
CallTreePeak HangPeakOnCallTree(const ir::Program& program, const LivePeak& peak,
                                const std::vector<ValueOrigin>& origins, const ir::CallTree& tree);

// Whether two spellings of a source file name the same file: equal, or one
// ends with the other preceded by '/' ("model.py" and "/src/model.py").
bool SameSourceFile(std::string_view a, std::string_view b);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_CALL_TREE_PEAK_H_
