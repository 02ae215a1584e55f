#include "analyzer/temp_arena.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/heap_simulator.h"
#include "analyzer/interval_packing.h"

namespace memplan::analyzer {
namespace {

// The arena sizes the live ranges of `allocation`'s values give: the
// best-fit packing and the no-fragmentation bound, as
// MakeDecreasingSizeBestFitHeap(alignment) and MakeNoFragmentationHeap
// return them for this call stream: at each step, the values starting
// there are allocated, then those ending there are freed, so values live at
// a common step never share memory - unless XLA put them at the same offset,
// which it does only for values it updates in place: those share (the text
// dump states no SHARE_WITH; XLA's offsets imply it). The stream is written
// down as lifetimes in ticks (one tick per call the best-fit heap counts)
// and packed by BestFitHeapSize, which gives the same size on flat arrays
// (analyzer/interval_packing.h); the bound is summed along the same calls.
struct LiveRangeSizes {
  int64_t best_fit = 0;
  int64_t lower_bound = 0;
};

// A value's allocation (is_free false) or free in the heap's call stream.
struct LiveRangeEvent {
  ir::ScheduleStep step;
  bool is_free;
  ir::ValueId id;
  uint32_t value;  // index into `values`
};

// Two events per value of `values` with a live range, in the order the heap
// sees them (by step, allocations before frees, then by id); adds the number
// of such values to *buffers.
std::vector<LiveRangeEvent> SortedEvents(const std::vector<const ir::Value*>& values, int64_t* buffers) {
  std::vector<LiveRangeEvent> events;
  events.reserve(2 * values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const ir::Value* v = values[i];
    if (!v || !v->live_range) continue;
    events.push_back({v->live_range->start, false, v->id, static_cast<uint32_t>(i)});
    events.push_back({v->live_range->end, true, v->id, static_cast<uint32_t>(i)});
    ++*buffers;
  }
  std::sort(events.begin(), events.end(), [](const LiveRangeEvent& a, const LiveRangeEvent& b) {
    return std::tie(a.step, a.is_free, a.id) < std::tie(b.step, b.is_free, b.id);
  });
  return events;
}

// The state of the walk over the events that LiveRangeIntervals makes.
struct TickWalk {
  explicit TickWalk(size_t values) : interval_of(values, -1), counted(values, false) {
    intervals.reserve(values);  // at most one per value
  }
  // Per value (by index in `values`): its interval, -1 when it has none (an
  // empty buffer, which takes no room and no tick); whether the bound counts
  // its bytes (allocated, not shared).
  std::vector<int32_t> interval_of;
  std::vector<bool> counted;
  // Live values by offset: the canonical one first (its index in `values`).
  absl::flat_hash_map<int64_t, std::vector<uint32_t>> live_at_offset;
  std::vector<PackingInterval> intervals;
  int64_t tick = 0;
  int64_t live = 0;  // the counted bytes live now
};

// The best-fit heap's Alloc of value `value` (`v`): a new interval of its own
// group starting at the next tick; nothing for an empty value.
void AllocateInterval(uint32_t value, const ir::Value& v, TickWalk& walk) {
  if (v.size <= 0) return;
  const auto k = static_cast<int32_t>(walk.intervals.size());
  walk.interval_of[value] = k;
  walk.intervals.push_back({v.id.value(), v.size, walk.tick++, -1, k});
}

// Value `value` (`v`) starts: it shares the group of the canonical value live
// at its offset (no bytes for the bound), or is allocated and counted, raising
// *lower_bound to the bytes live.
void StartValue(uint32_t value, const ir::Value& v, TickWalk& walk, int64_t* lower_bound) {
  std::vector<uint32_t>& same_offset = walk.live_at_offset[v.offset];
  same_offset.push_back(value);
  if (same_offset.size() > 1) {  // ShareWith(id, canonical): no bytes for the bound
    const int32_t canonical = walk.interval_of[same_offset.front()];
    if (canonical < 0) {  // sharing with nothing the heap knows: a buffer of its own
      AllocateInterval(value, v, walk);
    } else {
      const auto k = static_cast<int32_t>(walk.intervals.size());
      walk.interval_of[value] = k;
      walk.intervals.push_back({v.id.value(), std::max<int64_t>(v.size, 0), walk.tick++, -1,
                                walk.intervals[static_cast<size_t>(canonical)].group});
    }
    return;
  }
  AllocateInterval(value, v, walk);
  walk.counted[value] = true;
  walk.live += v.size;
  *lower_bound = std::max(*lower_bound, walk.live);
}

// Value `value` (`v`) is freed: its interval (if open) ends at the next tick.
void EndValue(uint32_t value, const ir::Value& v, TickWalk& walk) {
  std::vector<uint32_t>& same_offset = walk.live_at_offset[v.offset];
  same_offset.erase(std::remove(same_offset.begin(), same_offset.end(), value), same_offset.end());
  const int32_t k = walk.interval_of[value];
  if (k >= 0 && walk.intervals[static_cast<size_t>(k)].end < 0) {
    walk.intervals[static_cast<size_t>(k)].end = walk.tick++;
  }
  if (walk.counted[value]) walk.live -= v.size;
}

// The lifetimes in ticks PackLiveRanges packs, and the bound summed along
// the calls (into sizes.lower_bound). Its working arrays (two events per
// value, the live values by offset) are freed when it returns, before the
// packer builds its own.
std::vector<PackingInterval> LiveRangeIntervals(const std::vector<const ir::Value*>& values,
                                                int64_t* buffers, LiveRangeSizes& sizes) {
  const std::vector<LiveRangeEvent> events = SortedEvents(values, buffers);
  TickWalk walk(values.size());
  for (const LiveRangeEvent& event : events) {
    const ir::Value& v = *values[event.value];
    if (event.is_free) {
      EndValue(event.value, v, walk);
    } else {
      StartValue(event.value, v, walk, &sizes.lower_bound);
    }
  }
  for (PackingInterval& interval : walk.intervals) {
    if (interval.end < 0) interval.end = walk.tick;
  }
  return std::move(walk.intervals);
}

LiveRangeSizes PackLiveRanges(const std::vector<const ir::Value*>& values, int64_t alignment,
                              int64_t* buffers) {
  LiveRangeSizes sizes;
  const std::vector<PackingInterval> intervals = LiveRangeIntervals(values, buffers, sizes);
  sizes.best_fit = intervals.empty() ? 0 : BestFitHeapSize(intervals, alignment);
  return sizes;
}

// Drives `algorithms` with XLA's own trace; returns the highest byte its
// buffers reach at XLA's offsets.
int64_t DriveFromTrace(const ir::Program& program, const ir::HeapTrace& trace,
                       const ir::Allocation& allocation,
                       const std::vector<HeapAlgorithm*>& algorithms, int64_t* buffers) {
  int64_t replay = 0;
  for (const ir::HeapTraceEvent& event : trace.events) {
    const ir::Value* v = program.FindValue(event.buffer);
    if (!v) continue;
    if (v->allocation == allocation.id) replay = std::max(replay, v->offset + v->size);
    for (HeapAlgorithm* algorithm : algorithms) {
      switch (event.kind) {
        case ir::HeapTraceEvent::Kind::kAlloc:
          algorithm->Alloc(event.buffer, v->size);
          break;
        case ir::HeapTraceEvent::Kind::kFree:
          algorithm->Free(event.buffer);
          break;
        case ir::HeapTraceEvent::Kind::kShareWith:
          algorithm->ShareWith(event.buffer, event.share_with, v->size);
          break;
      }
    }
    if (event.kind != ir::HeapTraceEvent::Kind::kFree) ++*buffers;
  }
  return replay;
}

// The values of `allocation` that `trace` does not name, and the bytes XLA
// gives them below or above its heap (TempArenaReport says when).
void FindUntraced(const ir::HeapTrace& trace, const ir::Allocation& allocation,
                  const std::vector<const ir::Value*>& values, TempArenaReport& report) {
  absl::flat_hash_map<ir::ValueId, bool> traced;
  for (const ir::HeapTraceEvent& event : trace.events) traced[event.buffer] = true;
  int64_t lowest_traced = allocation.size;
  int64_t traced_end = 0;
  int64_t lowest_untraced = allocation.size;
  int64_t untraced_end = 0;
  for (const ir::Value* v : values) {
    if (v == nullptr) continue;
    if (traced.contains(v->id)) {
      lowest_traced = std::min(lowest_traced, v->offset);
      traced_end = std::max(traced_end, v->offset + v->size);
    } else {
      ++report.untraced_values;
      lowest_untraced = std::min(lowest_untraced, v->offset);
      untraced_end = std::max(untraced_end, v->offset + v->size);
    }
  }
  if (report.untraced_values == 0 || traced_end == 0) return;
  if (untraced_end <= lowest_traced) {
    report.untraced_prefix_bytes = lowest_traced;
  } else if (lowest_untraced >= traced_end) {
    report.untraced_suffix_bytes = untraced_end - traced_end;
  }
}

// The trace for `allocation`: one naming it, else the only whole-module one.
const ir::HeapTrace* TraceFor(const ir::Program& program, const ir::Allocation& allocation) {
  const ir::HeapTrace* whole_module = nullptr;
  int whole_module_count = 0;
  for (const ir::HeapTrace& trace : program.heap_traces) {
    if (trace.allocation == allocation.id && !trace.events.empty()) return &trace;
    if (trace.whole_module) {
      whole_module = &trace;
      ++whole_module_count;
    }
  }
  return whole_module_count == 1 ? whole_module : nullptr;
}

double Percent(int64_t numerator, int64_t denominator) {
  return denominator == 0 ? 0.0 : 100.0 * static_cast<double>(numerator) / denominator;
}

}  // namespace

double TempArenaReport::BestFitErrorPercent() const {
  return Percent(best_fit_size - xla_size, xla_size);
}

double TempArenaReport::FragmentationPercent() const {
  return Percent(xla_size - lower_bound, xla_size);
}

namespace {

int64_t InferAlignmentOf(const std::vector<const ir::Value*>& values) {
  int64_t alignment = 4096;
  bool any = false;
  for (const ir::Value* v : values) {
    if (!v || v->offset == 0) continue;
    any = true;
    while (alignment > 1 && v->offset % alignment != 0) alignment /= 2;
  }
  return any ? alignment : 1;
}

// The allocation's values, looked up once (nullptr where absent).
std::vector<const ir::Value*> ValuesOf(const ir::Program& program,
                                       const ir::Allocation& allocation) {
  std::vector<const ir::Value*> values;
  values.reserve(allocation.values.size());
  for (ir::ValueId id : allocation.values) values.push_back(program.FindValue(id));
  return values;
}

}  // namespace

int64_t InferAlignment(const ir::Program& program, const ir::Allocation& allocation) {
  return InferAlignmentOf(ValuesOf(program, allocation));
}

std::vector<TempArenaReport> SimulateTempArenas(const ir::Program& program) {
  std::vector<TempArenaReport> reports;
  for (const ir::Allocation& allocation : program.allocations) {
    if (!allocation.is_preallocated_temp || allocation.values.empty()) continue;
    TempArenaReport report;
    report.allocation = allocation.id;
    report.xla_size = allocation.size;
    const std::vector<const ir::Value*> values = ValuesOf(program, allocation);
    report.alignment = InferAlignmentOf(values);
    auto best_fit = MakeDecreasingSizeBestFitHeap(report.alignment);
    auto bound = MakeNoFragmentationHeap();
    const std::vector<HeapAlgorithm*> algorithms = {best_fit.get(), bound.get()};
    if (const ir::HeapTrace* trace = TraceFor(program, allocation)) {
      report.lifetimes_from = "heap-simulator trace";
      report.trace_replay_size =
          DriveFromTrace(program, *trace, allocation, algorithms, &report.buffers);
      FindUntraced(*trace, allocation, values, report);
    } else if (program.has_live_ranges) {
      report.lifetimes_from = "live ranges";
      const LiveRangeSizes sizes = PackLiveRanges(values, report.alignment, &report.buffers);
      report.best_fit_size = sizes.best_fit;
      report.lower_bound = sizes.lower_bound;
      reports.push_back(std::move(report));
      continue;
    } else {
      continue;
    }
    const int64_t untraced = report.untraced_prefix_bytes + report.untraced_suffix_bytes;
    report.best_fit_size = untraced + best_fit->Finish().heap_size;
    report.lower_bound = untraced + bound->Finish().heap_size;
    reports.push_back(std::move(report));
  }
  return reports;
}

}  // namespace memplan::analyzer
