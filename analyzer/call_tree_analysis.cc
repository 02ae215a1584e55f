#include "analyzer/call_tree_analysis.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace memplan::analyzer {
namespace {

size_t Index(ir::CallNodeId id) { return static_cast<size_t>(id.value()); }
size_t Index(ir::FunctionId id) { return static_cast<size_t>(id.value()); }

// Times: each node's time in no child.
std::vector<int64_t> SelfTimes(const ir::CallTree& tree) {
  std::vector<int64_t> self(tree.nodes.size(), -1);
  if (tree.format != ir::CallTree::Format::kChromeTrace) return self;
  for (const ir::CallNode& n : tree.nodes) {
    if (n.duration_ns < 0) continue;
    int64_t children = 0;
    for (ir::CallNodeId c : n.children) children += std::max<int64_t>(0, tree.node(c).duration_ns);
    self[Index(n.id)] = std::max<int64_t>(0, n.duration_ns - children);
  }
  return self;
}

// Per-function call counts, depths and times, and the (caller, callee)
// edges with their call counts (caller -1: the root or a track), walking
// the preorder with the open ancestors (a recursive call's time counts
// once).
std::vector<FunctionCalls> WalkCalls(const ir::CallTree& tree, CallTreeSummary& s,
                                     std::map<std::pair<int64_t, int64_t>, int64_t>& edge_calls) {
  const bool timed = tree.format == ir::CallTree::Format::kChromeTrace;
  std::vector<FunctionCalls> stats(tree.functions.size());
  for (size_t i = 0; i < stats.size(); ++i) {
    stats[i].function = ir::FunctionId(static_cast<int64_t>(i));
    stats[i].min_depth = INT32_MAX;
    if (timed) stats[i].total_ns = stats[i].self_ns = 0;
  }
  std::vector<ir::CallNodeId> open;
  std::vector<int32_t> active(tree.functions.size(), 0);  // open calls of each function
  for (const ir::CallNode& n : tree.nodes) {
    while (!open.empty() && tree.node(open.back()).subtree_end <= n.id) {
      const ir::CallNode& closed = tree.node(open.back());
      if (closed.kind == ir::CallNodeKind::kCall) --active[Index(closed.function)];
      open.pop_back();
    }
    if (n.kind == ir::CallNodeKind::kCall) {
      FunctionCalls& f = stats[Index(n.function)];
      ++f.calls;
      f.min_depth = std::min(f.min_depth, n.depth);
      f.max_depth = std::max(f.max_depth, n.depth);
      s.max_depth = std::max(s.max_depth, n.depth);
      if (timed) {
        if (active[Index(n.function)] == 0) f.total_ns += std::max<int64_t>(0, n.duration_ns);
        f.self_ns += std::max<int64_t>(0, s.self_ns[Index(n.id)]);
      }
      const ir::CallNode& parent = tree.node(n.parent);
      const int64_t caller = parent.kind == ir::CallNodeKind::kCall ? parent.function.value() : -1;
      ++edge_calls[{caller, n.function.value()}];
      ++active[Index(n.function)];
      ++s.calls;
    }
    open.push_back(n.id);
  }
  return stats;
}

// The functions called at least once, by calls, and their files, by calls.
void RankFunctionsAndFiles(const ir::CallTree& tree, std::vector<FunctionCalls>& stats, CallTreeSummary& s) {
  const bool timed = tree.format == ir::CallTree::Format::kChromeTrace;
  std::map<std::string, FileCalls> files;
  for (FunctionCalls& f : stats) {
    if (f.calls == 0) continue;
    FileCalls& file = files[tree.function(f.function).file];
    file.file = tree.function(f.function).file;
    file.calls += f.calls;
    ++file.functions;
    if (timed) file.self_ns = std::max<int64_t>(0, file.self_ns) + f.self_ns;
    s.by_function.push_back(f);
  }
  s.functions = static_cast<int64_t>(s.by_function.size());
  std::sort(s.by_function.begin(), s.by_function.end(),
            [](const FunctionCalls& a, const FunctionCalls& b) {
              if (a.calls != b.calls) return a.calls > b.calls;
              return a.function < b.function;
            });
  for (auto& [name, file] : files) s.by_file.push_back(std::move(file));
  s.files = static_cast<int64_t>(s.by_file.size());
  std::stable_sort(s.by_file.begin(), s.by_file.end(),
                   [](const FileCalls& a, const FileCalls& b) { return a.calls > b.calls; });
}

void CountFunctions(const ir::CallTree& tree, CallTreeSummary& s) {
  std::map<std::pair<int64_t, int64_t>, int64_t> edge_calls;
  std::vector<FunctionCalls> stats = WalkCalls(tree, s, edge_calls);
  for (const auto& [key, calls] : edge_calls) {
    if (key.first >= 0) {
      ++stats[static_cast<size_t>(key.first)].callees;
      ++stats[static_cast<size_t>(key.second)].callers;
    }
    s.edges.push_back(CallEdge{ir::FunctionId(key.first), ir::FunctionId(key.second), calls});
  }
  RankFunctionsAndFiles(tree, stats, s);
}

void BuildContexts(const ir::CallTree& tree, CallTreeSummary& s) {
  s.context_of.assign(tree.nodes.size(), 0);
  CallingContext root;
  root.first_node = tree.root();
  s.contexts.push_back(root);
  // (parent context, function or -1 - track) -> context
  absl::flat_hash_map<std::pair<ContextId, int64_t>, ContextId> ids;
  std::vector<bool> has_child(1, false);
  for (const ir::CallNode& n : tree.nodes) {
    if (n.kind == ir::CallNodeKind::kRoot) continue;
    const ContextId parent = s.context_of[Index(n.parent)];
    const int64_t key = n.kind == ir::CallNodeKind::kCall ? n.function.value() : -1 - n.track.value();
    auto [it, inserted] = ids.try_emplace({parent, key}, static_cast<ContextId>(s.contexts.size()));
    if (inserted) {
      CallingContext c;
      c.id = it->second;
      c.parent = parent;
      c.kind = n.kind;
      c.function = n.function;
      c.track = n.track;
      c.depth = n.depth;
      c.first_node = n.id;
      if (tree.format == ir::CallTree::Format::kChromeTrace) c.self_ns = 0;
      s.contexts.push_back(c);
      has_child.push_back(false);
      has_child[static_cast<size_t>(parent)] = true;
    }
    CallingContext& c = s.contexts[static_cast<size_t>(it->second)];
    if (n.kind == ir::CallNodeKind::kCall) {
      ++c.calls;
      if (c.self_ns >= 0) c.self_ns += std::max<int64_t>(0, s.self_ns[Index(n.id)]);
    }
    s.context_of[Index(n.id)] = it->second;
  }
  for (const CallingContext& c : s.contexts) {
    if (c.kind == ir::CallNodeKind::kCall && !has_child[static_cast<size_t>(c.id)]) {
      s.deepest.push_back(c.id);
    }
  }
  std::stable_sort(s.deepest.begin(), s.deepest.end(), [&](ContextId a, ContextId b) {
    return s.contexts[static_cast<size_t>(a)].depth > s.contexts[static_cast<size_t>(b)].depth;
  });
}

void FindRepeats(const ir::CallTree& tree, CallTreeSummary& s) {
  const size_t n = tree.nodes.size();
  std::vector<int32_t> shape(n, 0);
  absl::flat_hash_map<std::vector<int64_t>, int32_t> shape_ids;
  // Children have larger ids than their parents: walk backwards.
  std::vector<int64_t> key;
  for (size_t i = n; i-- > 0;) {
    const ir::CallNode& node = tree.nodes[i];
    key.clear();
    key.push_back(static_cast<int64_t>(node.kind));
    key.push_back(node.kind == ir::CallNodeKind::kCall ? node.function.value() : node.track.value());
    for (ir::CallNodeId c : node.children) key.push_back(shape[Index(c)]);
    auto [it, inserted] = shape_ids.try_emplace(key, static_cast<int32_t>(shape_ids.size()));
    shape[i] = it->second;
  }
  s.run.assign(n, 1);
  struct ShapeStats {
    int64_t occurrences = 0;
    int64_t maximal = 0;  // occurrences whose parent's shape occurs once
    ir::CallNodeId first;
    int64_t longest_run = 0;
  };
  std::vector<ShapeStats> stats(shape_ids.size());
  for (size_t i = 0; i < n; ++i) {
    ShapeStats& st = stats[static_cast<size_t>(shape[i])];
    if (st.occurrences++ == 0) st.first = ir::CallNodeId(static_cast<int64_t>(i));
  }
  for (const ir::CallNode& node : tree.nodes) {
    size_t run_start = 0;
    for (size_t k = 0; k < node.children.size(); ++k) {
      const size_t c = Index(node.children[k]);
      if (k > 0 && shape[c] == shape[Index(node.children[k - 1])]) {
        s.run[c] = 0;
        ++s.run[run_start];
      } else {
        run_start = c;
      }
    }
    for (ir::CallNodeId c : node.children) {
      ShapeStats& st = stats[static_cast<size_t>(shape[Index(c)])];
      st.longest_run = std::max(st.longest_run, s.run[Index(c)]);
      const bool parent_repeats =
          node.kind != ir::CallNodeKind::kRoot && stats[static_cast<size_t>(shape[Index(node.id)])].occurrences > 1;
      if (!parent_repeats) ++st.maximal;
    }
  }
  for (const ShapeStats& st : stats) {
    if (st.maximal < 2) continue;
    const ir::CallNode& first = tree.node(st.first);
    const int64_t nodes = first.subtree_end.value() - first.id.value();
    if (nodes < 2) continue;
    s.repeated.push_back(RepeatedSubtree{st.first, st.maximal, nodes, st.longest_run});
  }
  std::sort(s.repeated.begin(), s.repeated.end(), [](const RepeatedSubtree& a, const RepeatedSubtree& b) {
    const int64_t sa = (a.occurrences - 1) * a.nodes, sb = (b.occurrences - 1) * b.nodes;
    if (sa != sb) return sa > sb;
    return a.first < b.first;
  });
}

}  // namespace

CallTreeSummary SummarizeCallTree(const ir::CallTree& tree) {
  CallTreeSummary s;
  s.self_ns = SelfTimes(tree);
  CountFunctions(tree, s);
  BuildContexts(tree, s);
  FindRepeats(tree, s);
  bool first = true;
  for (const ir::CallNode& n : tree.nodes) {
    if (n.kind != ir::CallNodeKind::kTrack) continue;
    s.start_ns = first ? n.start_ns : std::min(s.start_ns, n.start_ns);
    s.end_ns = first ? n.start_ns + n.duration_ns : std::max(s.end_ns, n.start_ns + n.duration_ns);
    first = false;
  }
  return s;
}

namespace {

// Counts, the allocated/reserved timeline and the peak of one device's
// events (indices into the tree's memory events, in order).
void WalkDeviceEvents(const ir::CallTree& tree, const std::vector<size_t>& events, DeviceMemory& d) {
  d.events = static_cast<int64_t>(events.size());
  d.allocator_totals = std::all_of(events.begin(), events.end(), [&](size_t i) {
    return tree.memory_events[i].total_allocated.has_value();
  });
  int64_t level = 0;
  bool first = true;
  for (size_t i : events) {
    const ir::MemoryEvent& e = tree.memory_events[i];
    if (e.bytes >= 0) {
      ++d.allocations;
      d.allocated_bytes += e.bytes;
    } else {
      ++d.frees;
      d.freed_bytes -= e.bytes;
    }
    level = d.allocator_totals ? *e.total_allocated : level + e.bytes;
    const int64_t reserved = e.total_reserved.value_or(-1);
    d.timeline.push_back({e.ts_ns, level, reserved});
    d.peak_reserved = std::max(d.peak_reserved, reserved);
    if (first || level > d.peak_allocated) {
      d.peak_allocated = level;
      d.peak_event = i;
      first = false;
    }
  }
}

// Replays the events up to the peak: what the trace allocated and has not
// freed, by calling context, largest first.
void FindLiveAtPeak(const ir::CallTree& tree, const CallTreeSummary& summary,
                    const std::vector<size_t>& events, DeviceMemory& d) {
  std::map<int64_t, size_t> live;  // addr -> allocating event
  for (size_t i : events) {
    if (i > d.peak_event) break;
    const ir::MemoryEvent& e = tree.memory_events[i];
    if (e.addr == 0) continue;
    if (e.bytes > 0) {
      live[e.addr] = i;
    } else if (e.bytes < 0) {
      live.erase(e.addr);
    }
  }
  std::map<ContextId, LiveAtPeak> sites;
  for (const auto& [addr, i] : live) {
    const ir::MemoryEvent& e = tree.memory_events[i];
    const ContextId context =
        e.enclosing.valid() ? summary.context_of[static_cast<size_t>(e.enclosing.value())] : 0;
    LiveAtPeak& site = sites[context];
    site.context = context;
    site.bytes += e.bytes;
    ++site.blocks;
    d.live_traced_bytes += e.bytes;
  }
  for (auto& [context, site] : sites) d.live_at_peak.push_back(site);
  std::stable_sort(d.live_at_peak.begin(), d.live_at_peak.end(),
                   [](const LiveAtPeak& a, const LiveAtPeak& b) { return a.bytes > b.bytes; });
  if (d.allocator_totals) d.live_untraced_bytes = std::max<int64_t>(0, d.peak_allocated - d.live_traced_bytes);
}

}  // namespace

CallTreeMemory AnalyzeCallTreeMemory(const ir::CallTree& tree, const CallTreeSummary& summary) {
  CallTreeMemory out;
  std::map<std::pair<int32_t, int32_t>, std::vector<size_t>> by_device;
  for (size_t i = 0; i < tree.memory_events.size(); ++i) {
    const ir::MemoryEvent& e = tree.memory_events[i];
    if (e.kind == ir::MemoryEvent::Kind::kOutOfMemory) {
      ++out.out_of_memory_events;
      continue;
    }
    by_device[{e.device_type, e.device_id}].push_back(i);
  }
  for (const auto& [device, events] : by_device) {
    DeviceMemory d;
    d.device_type = device.first;
    d.device_id = device.second;
    WalkDeviceEvents(tree, events, d);
    FindLiveAtPeak(tree, summary, events, d);
    out.devices.push_back(std::move(d));
  }
  return out;
}

}  // namespace memplan::analyzer
