// Internal to the Chrome trace parser: the events read from a trace, grouped
// by track (pid, tid), and the step that turns them into the call tree
// (chrome_trace_tree.cc): slices nested by time, memory events hung on the
// slice that encloses them, tracks and counters in a stable order.
#ifndef MEMPLAN_PARSERS_CHROME_TRACE_TRACKS_H_
#define MEMPLAN_PARSERS_CHROME_TRACE_TRACKS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/call_tree.h"

namespace memplan::parsers::internal {

struct Slice {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  std::string name;
  int32_t category = -1;
  size_t order = 0;  // input order, the last tie-breaker
};

struct OpenBegin {
  int64_t start_ns;
  std::string name;
  int32_t category;
};

struct PendingMemory {
  ir::MemoryEvent event;
  size_t order = 0;
};

struct TrackData {
  std::string pid;
  std::string tid;
  std::vector<Slice> slices;
  std::vector<OpenBegin> open;  // "B" events not yet ended
  std::vector<PendingMemory> memory;
};

struct TraceEvents {
  std::vector<TrackData> tracks;  // in order of first appearance
  std::map<std::string, std::string> process_names;  // pid -> name
  std::map<std::pair<std::string, std::string>, std::string> thread_names;  // (pid, tid)
  std::vector<ir::CounterSeries> counters;
  size_t next_order = 0;  // input order of the next slice or memory event
};

// The call tree of `events`: a node per track (sorted by pid, then tid,
// numbers by value before names), each track's slices nested by time ("B"
// events never ended close at the track's last time, with a warning), the
// memory events in time order with their enclosing slice, and the counters.
// `source_name` names the trace in warnings.
absl::StatusOr<ir::CallTree> BuildTraceTree(TraceEvents events, ir::CallTreeBuilder builder,
                                            std::string_view source_name);

}  // namespace memplan::parsers::internal

#endif  // MEMPLAN_PARSERS_CHROME_TRACE_TRACKS_H_
