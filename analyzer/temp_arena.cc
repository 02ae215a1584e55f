#include "analyzer/temp_arena.h"

#include <algorithm>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "analyzer/heap_simulator.h"

namespace memplan::analyzer {
namespace {

// Drives `algorithms` with the live ranges of `allocation`'s values: at each
// step, the values starting there are allocated, then those ending there are
// freed, so values live at a common step never share memory - unless XLA put
// them at the same offset, which it does only for values it updates in place:
// those share (the text dump states no SHARE_WITH; XLA's offsets imply it).
void DriveFromLiveRanges(const std::vector<const ir::Value*>& values,
                         const std::vector<HeapAlgorithm*>& algorithms, int64_t* buffers) {
  // (step, is_free, id) and the value
  std::vector<std::pair<std::tuple<ir::ScheduleStep, bool, ir::ValueId>, const ir::Value*>>
      events;
  events.reserve(2 * values.size());
  for (const ir::Value* v : values) {
    if (!v || !v->live_range) continue;
    events.push_back({{v->live_range->start, false, v->id}, v});
    events.push_back({{v->live_range->end, true, v->id}, v});
    ++*buffers;
  }
  std::sort(events.begin(), events.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  // Live values by offset: the canonical one first.
  absl::flat_hash_map<int64_t, std::vector<ir::ValueId>> live_at_offset;
  for (const auto& [event, v] : events) {
    const auto& [step, is_free, id] = event;
    std::vector<ir::ValueId>& same_offset = live_at_offset[v->offset];
    if (is_free) {
      same_offset.erase(std::remove(same_offset.begin(), same_offset.end(), id),
                        same_offset.end());
    } else {
      same_offset.push_back(id);
    }
    for (HeapAlgorithm* algorithm : algorithms) {
      if (is_free) {
        algorithm->Free(id);
      } else if (same_offset.size() > 1) {
        algorithm->ShareWith(id, same_offset.front(), v->size);
      } else {
        algorithm->Alloc(id, v->size);
      }
    }
  }
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
      DriveFromLiveRanges(values, algorithms, &report.buffers);
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
