// The call tree of a Chrome trace's events (chrome_trace_tracks.h).
#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/strings.h"
#include "parsers/chrome_trace_parser.h"
#include "parsers/chrome_trace_tracks.h"
#include "parsers/json_reader.h"

namespace memplan::parsers {
namespace internal {
namespace {

// Sort key of a pid or tid: numbers by value first, then strings.
struct IdKey {
  bool is_string;
  int64_t number;
  std::string_view text;
  friend bool operator<(const IdKey& a, const IdKey& b) {
    if (a.is_string != b.is_string) return !a.is_string;
    if (a.number != b.number) return a.number < b.number;
    return a.text < b.text;
  }
};

IdKey KeyOf(std::string_view id) {
  int64_t number = 0;
  if (ParseDecimalScaled(id, 0, &number) && id.find_first_of(".eE") == std::string_view::npos) {
    return {false, number, id};
  }
  return {true, 0, id};
}

// Sorts a track's slices by start, the enclosing one first, then by
// arrival; its memory events stably by time.
void SortTrackEvents(TrackData& data) {
  std::sort(data.slices.begin(), data.slices.end(), [](const Slice& a, const Slice& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.dur_ns != b.dur_ns) return a.dur_ns > b.dur_ns;  // the enclosing one first
    return a.order < b.order;
  });
  std::stable_sort(data.memory.begin(), data.memory.end(),
                   [](const PendingMemory& a, const PendingMemory& b) {
                     return a.event.ts_ns < b.event.ts_ns;
                   });
}

// The span of times added to it; empty until the first.
struct TimeExtent {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool empty = true;
  void Add(int64_t start, int64_t end) {
    start_ns = empty ? start : std::min(start_ns, start);
    end_ns = empty ? end : std::max(end_ns, end);
    empty = false;
  }
};

// The state of nesting one track's time-sorted events.
struct TrackNesting {
  struct OpenSlice {
    int64_t end_ns;
    ir::CallNodeId node;
  };
  ir::TrackId track_id;
  ir::CallNodeId track_node;
  std::vector<OpenSlice> open;  // innermost last
  size_t next_memory = 0;       // the first memory event not yet placed
  TimeExtent extent;
  bool overlap_warned = false;

  // The innermost slice still open at `ts` (the track's node when none),
  // closing those that ended by then.
  ir::CallNodeId EnclosingAt(int64_t ts) {
    while (!open.empty() && open.back().end_ns <= ts) open.pop_back();
    return open.empty() ? track_node : open.back().node;
  }
};

class TreeBuilder {
 public:
  TreeBuilder(TraceEvents events, ir::CallTreeBuilder builder, std::string_view source_name)
      : events_(std::move(events)), builder_(std::move(builder)), source_name_(source_name) {}

absl::StatusOr<ir::CallTree> Build() {
  // Tracks by (pid, tid); numbers by value.
  std::vector<size_t> order(tracks_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const IdKey pa = KeyOf(tracks_[a].pid), pb = KeyOf(tracks_[b].pid);
    if (pa < pb) return true;
    if (pb < pa) return false;
    return KeyOf(tracks_[a].tid) < KeyOf(tracks_[b].tid);
  });
  std::vector<PendingMemory> memory;
  for (size_t i : order) {
    TrackData& data = tracks_[i];
    if (!data.open.empty()) {
      builder_.tree().diagnostics.Warn("\"B\" event without a matching \"E\" (ends at the trace's end)",
                                       source_name_);
    }
    BuildTrack(data, ir::TrackId(static_cast<int64_t>(builder_.tree().tracks.size())), &memory);
  }
  std::stable_sort(memory.begin(), memory.end(), [](const PendingMemory& a, const PendingMemory& b) {
    if (a.event.ts_ns != b.event.ts_ns) return a.event.ts_ns < b.event.ts_ns;
    return a.order < b.order;
  });
  for (PendingMemory& m : memory) builder_.tree().memory_events.push_back(std::move(m.event));
  std::sort(counters_.begin(), counters_.end(), [](const ir::CounterSeries& a, const ir::CounterSeries& b) {
    const IdKey pa = KeyOf(a.pid), pb = KeyOf(b.pid);
    if (pa < pb) return true;
    if (pb < pa) return false;
    return std::tie(a.name, a.series) < std::tie(b.name, b.series);
  });
  for (ir::CounterSeries& series : counters_) {
    std::stable_sort(series.samples.begin(), series.samples.end(),
                     [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; });
  }
  builder_.tree().counters = std::move(counters_);
  return std::move(builder_).Finish();
}

// Builds one track's node, its slices' call nodes nested by time, and
// places its memory events (appended to `memory`) under the slice open at
// their time.
void BuildTrack(TrackData& data, ir::TrackId track_id, std::vector<PendingMemory>* memory) {
  CloseOpenBegins(data);
  SortTrackEvents(data);
  TrackNesting nesting;
  nesting.track_id = track_id;
  nesting.track_node = AddTrack(data, track_id);
  for (const Slice& s : data.slices) {
    FlushMemoryBefore(s.start_ns, /*all=*/false, data, &nesting, memory);
    AddSlice(data, s, &nesting);
  }
  FlushMemoryBefore(0, /*all=*/true, data, &nesting, memory);
  const TimeExtent& extent = nesting.extent;
  ir::CallNode& node = builder_.node(nesting.track_node);
  node.start_ns = extent.empty ? 0 : extent.start_ns;
  node.duration_ns = extent.empty ? 0 : extent.end_ns - extent.start_ns;
}

// Turns the "B" events never ended into slices that close at the last time
// seen on the track.
void CloseOpenBegins(TrackData& data) {
  int64_t last_ns = 0;
  bool any_time = false;
  for (const Slice& s : data.slices) {
    last_ns = any_time ? std::max(last_ns, s.start_ns + s.dur_ns) : s.start_ns + s.dur_ns;
    any_time = true;
  }
  for (const OpenBegin& b : data.open) {
    last_ns = any_time ? std::max(last_ns, b.start_ns) : b.start_ns;
    any_time = true;
  }
  while (!data.open.empty()) {
    OpenBegin b = std::move(data.open.back());
    data.open.pop_back();
    data.slices.push_back(Slice{b.start_ns, std::max<int64_t>(0, last_ns - b.start_ns),
                                std::move(b.name), b.category, order_++});
  }
}

// Adds the tree's record of `data`'s track and its node under the root;
// returns the node.
ir::CallNodeId AddTrack(const TrackData& data, ir::TrackId track_id) {
  ir::Track track;
  track.id = track_id;
  track.pid = data.pid;
  track.tid = data.tid;
  if (auto it = process_names_.find(data.pid); it != process_names_.end()) {
    track.process_name = it->second;
  }
  if (auto it = thread_names_.find({data.pid, data.tid}); it != thread_names_.end()) {
    track.thread_name = it->second;
  }
  ir::CallTree& tree = builder_.tree();
  const ir::CallNodeId track_node = builder_.AddNode(tree.root(), ir::CallNodeKind::kTrack, {});
  builder_.node(track_node).track = track_id;
  track.node = track_node;
  tree.tracks.push_back(std::move(track));
  return track_node;
}

// Moves `data`'s memory events before `ts` (all of them when `all`) to
// `memory`, each on the track under the slice open at its time.
void FlushMemoryBefore(int64_t ts, bool all, TrackData& data, TrackNesting* nesting,
                       std::vector<PendingMemory>* memory) {
  while (nesting->next_memory < data.memory.size() &&
         (all || data.memory[nesting->next_memory].event.ts_ns < ts)) {
    PendingMemory m = std::move(data.memory[nesting->next_memory++]);
    m.event.track = nesting->track_id;
    m.event.enclosing = nesting->EnclosingAt(m.event.ts_ns);
    nesting->extent.Add(m.event.ts_ns, m.event.ts_ns);
    memory->push_back(std::move(m));
  }
}

// Adds slice `s` as a call node under the slice open at its start (warning
// once per track when it outlasts that slice), and opens it.
void AddSlice(const TrackData& data, const Slice& s, TrackNesting* nesting) {
  const int64_t end = s.start_ns + s.dur_ns;
  const ir::CallNodeId parent = nesting->EnclosingAt(s.start_ns);
  if (!nesting->open.empty() && end > nesting->open.back().end_ns && !nesting->overlap_warned) {
    builder_.tree().diagnostics.Warn(
        "slice ends after the slice it starts in (kept as its child)",
        StrCat(source_name_, ": track pid ", data.pid, " tid ", data.tid));
    nesting->overlap_warned = true;
  }
  std::string_view function = s.name, file;
  int64_t line = 0;
  SplitPythonFrameName(s.name, &function, &file, &line);
  const ir::FunctionId fn = builder_.InternFunction(function, file, line);
  const ir::CallNodeId id = builder_.AddNode(parent, ir::CallNodeKind::kCall, fn);
  ir::CallNode& node = builder_.node(id);
  node.start_ns = s.start_ns;
  node.duration_ns = s.dur_ns;
  node.category = s.category;
  nesting->extent.Add(s.start_ns, end);
  nesting->open.push_back(TrackNesting::OpenSlice{end, id});
}


 private:
  TraceEvents events_;
  ir::CallTreeBuilder builder_;
  std::string_view source_name_;
  size_t& order_ = events_.next_order;
  std::vector<TrackData>& tracks_ = events_.tracks;
  std::map<std::string, std::string>& process_names_ = events_.process_names;
  std::map<std::pair<std::string, std::string>, std::string>& thread_names_ = events_.thread_names;
  std::vector<ir::CounterSeries>& counters_ = events_.counters;
};

}  // namespace

absl::StatusOr<ir::CallTree> BuildTraceTree(TraceEvents events, ir::CallTreeBuilder builder,
                                            std::string_view source_name) {
  TreeBuilder tree(std::move(events), std::move(builder), source_name);
  return tree.Build();
}

}  // namespace internal

bool SplitPythonFrameName(std::string_view slice_name, std::string_view* function,
                          std::string_view* file, int64_t* line) {
  auto parse_line = [](std::string_view digits, int64_t* out) {
    if (digits.empty() || digits.size() > 12) return false;
    int64_t v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
  };
  // JAX / TSL Python tracer: "$file.py:132 func".
  if (!slice_name.empty() && slice_name.front() == '$') {
    const std::string_view rest = slice_name.substr(1);
    const size_t space = rest.find(' ');
    if (space == std::string_view::npos) return false;
    const std::string_view location = rest.substr(0, space);
    const size_t colon = location.rfind(':');
    int64_t n = 0;
    if (colon == std::string_view::npos || !parse_line(location.substr(colon + 1), &n)) return false;
    *file = location.substr(0, colon);
    *line = n;
    *function = rest.substr(space + 1);
    return !function->empty();
  }
  // PyTorch python_function: "path/train.py(45): forward".
  const size_t close = slice_name.find("): ");
  if (close == std::string_view::npos) return false;
  const size_t open = slice_name.rfind('(', close);
  if (open == std::string_view::npos || open < 3 || slice_name.substr(open - 3, 3) != ".py") {
    return false;
  }
  int64_t n = 0;
  if (!parse_line(slice_name.substr(open + 1, close - open - 1), &n)) return false;
  if (close + 3 >= slice_name.size()) return false;
  *file = slice_name.substr(0, open);
  *line = n;
  *function = slice_name.substr(close + 3);
  return true;
}

}  // namespace memplan::parsers
