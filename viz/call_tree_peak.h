// Views of a program's peak hung on a call tree (analyzer/call_tree_peak.h):
// a text section for `memplan calltree TREE --program DUMP`, and the
// "program_peak" object of its JSON (docs/calltrees.md).
#ifndef MEMPLAN_VIZ_CALL_TREE_PEAK_H_
#define MEMPLAN_VIZ_CALL_TREE_PEAK_H_

#include <string>

#include "analyzer/call_tree_peak.h"
#include "ir/call_tree.h"
#include "ir/program.h"
#include "llvm/Support/JSON.h"

namespace memplan::viz {

struct CallTreePeakInput {
  const ir::CallTree& tree;
  const ir::Program& program;
  const analyzer::CallTreePeak& peak;
  int top = 10;  // rows of the value list (0: all); every node with bytes is shown
};

// "Peak of PROGRAM on the call tree": totals, the tree of nodes with bytes
// (indented, subtree and self bytes), the largest values and where they went.
std::string RenderCallTreePeakText(const CallTreePeakInput& input);

// The "program_peak" value: an object (written into `j` as one value).
void WriteCallTreePeakJson(const CallTreePeakInput& input, llvm::json::OStream& j);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_CALL_TREE_PEAK_H_
