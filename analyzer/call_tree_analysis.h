// Facts about a call tree (ir/call_tree.h) for `memplan calltree`: calls
// per function and per file, calling contexts (identical call paths merged:
// the basis of folded stacks and of the deepest paths), repeated subtrees,
// the call graph, and, for traces with PyTorch memory events, the memory
// timeline per device and the peak with the call stack that reached it.
// Every list is sorted with id tie-breakers, so the result is a pure
// function of the tree.
#ifndef MEMPLAN_ANALYZER_CALL_TREE_ANALYSIS_H_
#define MEMPLAN_ANALYZER_CALL_TREE_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/call_tree.h"

namespace memplan::analyzer {

struct FunctionCalls {
  ir::FunctionId function;
  int64_t calls = 0;    // call nodes of the function
  int64_t callers = 0;  // distinct functions calling it (a track or the root counts as none)
  int64_t callees = 0;  // distinct functions it calls
  int32_t min_depth = 0;
  int32_t max_depth = 0;
  // Traces only (-1 for text trees): time inside the function, counting a
  // recursive call's time once, and time not inside any callee.
  int64_t total_ns = -1;
  int64_t self_ns = -1;
};

struct FileCalls {
  std::string file;  // empty: functions without a file
  int64_t calls = 0;
  int64_t functions = 0;
  int64_t self_ns = -1;  // traces only
};

// A call-graph edge: `caller` called `callee` this many times.
struct CallEdge {
  ir::FunctionId caller;
  ir::FunctionId callee;
  int64_t calls = 0;
};

// A calling context: one distinct call path from the root. Contexts form a
// tree of their own (parent < id, preorder of first occurrence).
using ContextId = int32_t;
struct CallingContext {
  ContextId id = 0;
  ContextId parent = -1;     // -1 for the root context
  ir::CallNodeKind kind = ir::CallNodeKind::kRoot;
  ir::FunctionId function;   // kCall
  ir::TrackId track;         // kTrack, and slices of that track
  int32_t depth = 0;
  int64_t calls = 0;         // call nodes with this path
  int64_t self_ns = -1;      // traces only
  ir::CallNodeId first_node;
};

// Identical subtrees: same function at every node, same children in the
// same order.
struct RepeatedSubtree {
  ir::CallNodeId first;     // the first occurrence in preorder
  int64_t occurrences = 0;
  int64_t nodes = 0;        // nodes in one occurrence
  int64_t longest_run = 0;  // most occurrences side by side under one parent
};

struct CallTreeSummary {
  int64_t calls = 0;
  int64_t functions = 0;
  int64_t files = 0;
  int32_t max_depth = 0;  // of a call node; the top calls are at depth 1 (text) or 2 (trace)
  // Traces: the earliest and latest time of any slice or memory event (the
  // views show times from start_ns); 0 for text trees.
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::vector<FunctionCalls> by_function;  // calls desc, then id
  std::vector<FileCalls> by_file;          // calls desc, then file
  std::vector<CallEdge> edges;             // (caller, callee)
  std::vector<CallingContext> contexts;    // by id
  std::vector<ContextId> context_of;       // per call node
  // The deepest distinct call paths: leaf contexts by depth desc, then id.
  std::vector<ContextId> deepest;
  // Per node: how many identical subtrees stand side by side starting here
  // (1 for a node unlike its previous sibling), 0 for a node that repeats
  // its previous sibling. A collapsed view shows nodes with run > 0.
  std::vector<int64_t> run;
  // Subtrees of at least two nodes that occur more than once, by nodes
  // saved ((occurrences - 1) * nodes) desc, then first id.
  std::vector<RepeatedSubtree> repeated;
  // For trace slices: time in no callee (duration minus children's); -1
  // for text trees.
  std::vector<int64_t> self_ns;
};

CallTreeSummary SummarizeCallTree(const ir::CallTree& tree);

// Memory on one device, from PyTorch's "[memory]" events.
struct LiveAtPeak {
  ContextId context = 0;  // calling context of the allocating slice
  int64_t bytes = 0;
  int64_t blocks = 0;
};

struct DeviceMemory {
  int32_t device_type = -1;  // c10::DeviceType (0 CPU, 1 CUDA, ...)
  int32_t device_id = -1;
  int64_t events = 0;
  int64_t allocations = 0;
  int64_t frees = 0;
  int64_t allocated_bytes = 0;  // sum of positive Bytes
  int64_t freed_bytes = 0;      // sum of -Bytes of frees
  // True when every event carried "Total Allocated": the levels below are
  // the allocator's. Else they are relative to the level before the first
  // event (which counts as 0).
  bool allocator_totals = false;
  struct Point {
    int64_t ts_ns = 0;
    int64_t allocated = 0;
    int64_t reserved = -1;  // -1 when the trace has no "Total Reserved"
  };
  std::vector<Point> timeline;  // one per event, in time order
  size_t peak_event = 0;        // index into CallTree::memory_events
  int64_t peak_allocated = 0;
  int64_t peak_reserved = -1;   // the most "Total Reserved" seen
  // At the peak: blocks allocated during the trace and not yet freed,
  // grouped by where they were allocated (bytes desc, then context), and
  // what the trace cannot place (allocated before it began).
  std::vector<LiveAtPeak> live_at_peak;
  int64_t live_traced_bytes = 0;
  int64_t live_untraced_bytes = 0;
};

struct CallTreeMemory {
  std::vector<DeviceMemory> devices;  // by (device_type, device_id)
  int64_t out_of_memory_events = 0;
};

// Requires `summary` to be SummarizeCallTree(tree).
CallTreeMemory AnalyzeCallTreeMemory(const ir::CallTree& tree, const CallTreeSummary& summary);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_CALL_TREE_ANALYSIS_H_
