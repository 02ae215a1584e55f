// Call trees: who called whom, read from a text call tree (seed 000's
// "├── name, /path/file.py:line") or from a profiler trace (Chrome
// trace-event JSON as PyTorch's and JAX's profilers write it), with the
// memory events and counters a trace carries.
//
// Nodes have dense ids and are stored in preorder: nodes[0] is a synthetic
// root, and the subtree of node n is the id range [n, n.subtree_end). For a
// trace the root's children are one track per (pid, tid), and a track's
// children are its outermost slices. A function is a (name, file, line)
// triple; every call node of the same function shares its FunctionId.
#ifndef MEMPLAN_IR_CALL_TREE_H_
#define MEMPLAN_IR_CALL_TREE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/diagnostics.h"
#include "ir/ids.h"

namespace memplan::ir {

using CallNodeId = StrongId<struct CallNodeIdTag>;
using FunctionId = StrongId<struct FunctionIdTag>;
using TrackId = StrongId<struct TrackIdTag>;

struct Function {
  FunctionId id;
  std::string name;
  std::string file;  // empty when unknown
  int64_t line = 0;  // 0 when unknown
};

enum class CallNodeKind : uint8_t {
  kRoot,   // nodes[0], stands for the whole input
  kTrack,  // one thread (pid, tid) of a trace
  kCall,   // a call (text tree line) or a slice (trace)
};

struct CallNode {
  CallNodeId id;
  CallNodeKind kind = CallNodeKind::kCall;
  CallNodeId parent;                 // invalid for the root
  std::vector<CallNodeId> children;  // in input (text) or start-time (trace) order
  CallNodeId subtree_end;            // one past the last node of the subtree
  FunctionId function;               // valid for kCall
  TrackId track;                     // valid for kTrack and for trace slices
  int32_t depth = 0;                 // root 0; a text tree's top line 1
  // Trace slices and tracks: start and duration in nanoseconds of the trace's
  // clock; -1 when unknown (text trees).
  int64_t start_ns = -1;
  int64_t duration_ns = -1;
  int32_t category = -1;  // index into CallTree::categories; -1: none
  int64_t input_line = 0; // line of the input the node was read from (1-based)
};

// One thread of a trace: pid and tid as the trace spells them (numbers or
// strings), with the names its metadata events give.
struct Track {
  TrackId id;
  std::string pid;
  std::string tid;
  std::string process_name;
  std::string thread_name;
  CallNodeId node;
};

// PyTorch's "[memory]" instant event (profile_memory=True): one allocation
// (bytes > 0) or free (bytes < 0) by the caching allocator, or an
// "[OutOfMemory]" event. The totals are the allocator's counters after the
// event, when the trace has them.
struct MemoryEvent {
  enum class Kind : uint8_t { kAllocation, kOutOfMemory };
  Kind kind = Kind::kAllocation;
  int64_t ts_ns = 0;
  TrackId track;
  int32_t device_type = -1;  // c10::DeviceType: 0 CPU, 1 CUDA, ...; -1 absent
  int32_t device_id = -1;    // device index; -1 for the CPU
  int64_t addr = 0;          // 0 when absent
  int64_t bytes = 0;
  std::optional<int64_t> total_allocated;
  std::optional<int64_t> total_reserved;
  // The innermost slice of the event's thread open at ts_ns; else the track.
  CallNodeId enclosing;
  int64_t input_line = 0;
};

// A counter track ("ph": "C"): one series of an event name on a process.
struct CounterSeries {
  std::string pid;
  std::string name;    // the event's name
  std::string series;  // the args key
  struct Sample {
    int64_t ts_ns = 0;
    double value = 0;
  };
  std::vector<Sample> samples;  // by time
};

struct CallTree {
  enum class Format : uint8_t { kTextTree, kChromeTrace };

  std::string source_name;
  Format format = Format::kTextTree;
  std::vector<CallNode> nodes;        // preorder; nodes[i].id == i
  std::vector<Function> functions;    // functions[i].id == i, first-seen order
  std::vector<Track> tracks;          // tracks[i].id == i, by (pid, tid)
  std::vector<std::string> categories;
  std::vector<MemoryEvent> memory_events;  // by time, then input order
  std::vector<CounterSeries> counters;     // by (pid, name, series)
  Diagnostics diagnostics;

  const CallNode& node(CallNodeId id) const { return nodes[static_cast<size_t>(id.value())]; }
  const Function& function(FunctionId id) const {
    return functions[static_cast<size_t>(id.value())];
  }
  const Track& track(TrackId id) const { return tracks[static_cast<size_t>(id.value())]; }
  CallNodeId root() const { return CallNodeId(0); }

  // The call nodes from the outermost one below the root (a track for a
  // trace) down to `id`, inclusive.
  std::vector<CallNodeId> PathTo(CallNodeId id) const;

  // Count of kCall nodes.
  int64_t CallCount() const;
};

// Builds a CallTree in preorder. Add a node only below the last node added
// or one of its ancestors (as a preorder walk meets them); Finish() fills
// children lists and subtree ends.
class CallTreeBuilder {
 public:
  explicit CallTreeBuilder(std::string source_name, CallTree::Format format);

  FunctionId InternFunction(std::string_view name, std::string_view file, int64_t line);
  int32_t InternCategory(std::string_view category);
  // Appends a node below `parent` (the root for a top-level node).
  CallNodeId AddNode(CallNodeId parent, CallNodeKind kind, FunctionId function);
  CallNode& node(CallNodeId id) { return tree_.nodes[static_cast<size_t>(id.value())]; }
  CallTree& tree() { return tree_; }

  CallTree Finish() &&;

 private:
  struct FunctionKey {
    std::string name;
    std::string file;
    int64_t line;
    friend bool operator==(const FunctionKey&, const FunctionKey&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const FunctionKey& k) {
      return H::combine(std::move(h), k.name, k.file, k.line);
    }
  };
  CallTree tree_;
  absl::flat_hash_map<FunctionKey, FunctionId> function_ids_;
  absl::flat_hash_map<std::string, int32_t> category_ids_;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_CALL_TREE_H_
