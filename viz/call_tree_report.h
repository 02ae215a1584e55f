// Views of a call tree for `memplan calltree`: an aligned text report, JSON
// (schema in docs/calltrees.md), the call graph as Graphviz DOT, and folded
// stacks for flamegraph.pl / speedscope. Each is a pure function of its
// input; none recomputes an analysis.
#ifndef MEMPLAN_VIZ_CALL_TREE_REPORT_H_
#define MEMPLAN_VIZ_CALL_TREE_REPORT_H_

#include <cstdint>
#include <string>

#include "analyzer/call_tree_analysis.h"
#include "ir/call_tree.h"

namespace memplan::viz {

struct CallTreePeakInput;  // viz/call_tree_peak.h

struct CallTreeReportInput {
  const ir::CallTree& tree;
  const analyzer::CallTreeSummary& summary;
  const analyzer::CallTreeMemory& memory;
  // Rows per table (0: all). The collapsed tree in the text report shows up
  // to 20 lines per row (all for 0); the DOT graph draws this many of the
  // most-called functions.
  int top = 10;
  // A program's peak hung on the tree (--program): the text report ends
  // with its section, the JSON has it as "program_peak". Null: none.
  const CallTreePeakInput* program_peak = nullptr;
};

std::string RenderCallTreeText(const CallTreeReportInput& input);
std::string RenderCallTreeJson(const CallTreeReportInput& input);
std::string RenderCallTreeDot(const CallTreeReportInput& input);
// One line per calling context with a weight: "frame;frame;frame N", where
// N is the number of calls with exactly that path (text trees) or the
// nanoseconds spent there in no callee (traces).
std::string RenderCallTreeFolded(const CallTreeReportInput& input);

// "name (file:line)", "name (file)" or "name".
std::string FunctionLabel(const ir::Function& function);
// "pid 1 (name) tid 2 (name)" for a track.
std::string TrackLabel(const ir::Track& track);
// "CPU", "CUDA", ... for c10::DeviceType values; "device type N" otherwise.
std::string DeviceTypeName(int32_t device_type);
// A duration for reading: "812 ns", "1.234 us", "12.500 ms", "3.210 s".
std::string Duration(int64_t ns);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_CALL_TREE_REPORT_H_
