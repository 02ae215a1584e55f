#include "analyzer/liveness.h"

#include <algorithm>
#include <tuple>

#include "analyzer/value_order.h"
#include "ir/strings.h"


namespace memplan::analyzer {
namespace {

int64_t Sum(const BytesByCategory& bytes) {
  int64_t total = 0;
  for (int64_t b : bytes) total += b;
  return total;
}

}  // namespace

int64_t TimelinePoint::total() const { return Sum(bytes); }

BytesByCategory Timeline::At(ir::ScheduleStep step) const {
  auto it = std::upper_bound(points.begin(), points.end(), step,
                             [](ir::ScheduleStep s, const TimelinePoint& p) { return s < p.step; });
  if (it == points.begin()) return BytesByCategory{};
  return std::prev(it)->bytes;
}

namespace {

// A value the liveness passes count: it has a live range and an allocation.
bool Counted(const ir::Value& value) {
  return value.live_range.has_value() && value.allocation.valid();
}

// Adds `delta` at each event's step and visits the distinct steps in
// increasing order with their summed deltas, after telling `count` how many
// there are (so that the visitor's output is reserved exactly). Events are
// (step, payload) where payload is anything `add(sum, payload)` folds in.
// When the steps span a range not much longer than the number of events
// (schedules are dense), one array indexed by step replaces sorting.
template <typename Delta, typename Event, typename Add, typename Count, typename Visit>
void ForEachStep(const std::vector<Event>& events, Add add, Count count, Visit visit) {
  if (events.empty()) return;
  ir::ScheduleStep lo = events.front().step;
  ir::ScheduleStep hi = lo;
  for (const Event& e : events) {
    lo = std::min(lo, e.step);
    hi = std::max(hi, e.step);
  }
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span < 4 * static_cast<uint64_t>(events.size()) + 4096) {
    std::vector<Delta> sums(span + 1);
    std::vector<uint8_t> seen(span + 1);
    for (const Event& e : events) {
      const size_t at = static_cast<size_t>(static_cast<uint64_t>(e.step) - static_cast<uint64_t>(lo));
      add(sums[at], e);
      seen[at] = 1;
    }
    size_t distinct = 0;
    for (size_t at = 0; at <= span; ++at) distinct += seen[at];
    count(distinct);
    for (size_t at = 0; at <= span; ++at) {
      if (seen[at]) visit(static_cast<ir::ScheduleStep>(static_cast<uint64_t>(lo) + at), sums[at]);
    }
    return;
  }
  std::vector<const Event*> sorted;
  sorted.reserve(events.size());
  for (const Event& e : events) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(),
            [](const Event* a, const Event* b) { return a->step < b->step; });
  size_t distinct = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    distinct += i == 0 || sorted[i]->step != sorted[i - 1]->step ? 1 : 0;
  }
  count(distinct);
  for (size_t i = 0; i < sorted.size();) {
    const ir::ScheduleStep step = sorted[i]->step;
    Delta sum{};
    for (; i < sorted.size() && sorted[i]->step == step; ++i) add(sum, *sorted[i]);
    visit(step, sum);
  }
}

}  // namespace

Timeline ComputeTimeline(const ir::Program& program) {
  // Net change per category at each step where one happens.
  struct Event {
    ir::ScheduleStep step;
    int64_t delta;
    int category;
  };
  std::vector<Event> events;
  size_t counted = 0;
  for (const ir::Value& value : program.values) counted += Counted(value) ? 1 : 0;
  events.reserve(2 * counted);
  Timeline timeline;
  timeline.last_step = program.schedule.max_time;
  const ir::Allocation* allocation = nullptr;
  int category = 0;
  for (const ir::Value& value : program.values) {
    if (!Counted(value)) continue;
    if (allocation == nullptr || allocation->id != value.allocation) {
      allocation = program.FindAllocation(value.allocation);
      category = static_cast<int>(CategoryOf(*allocation));
    }
    events.push_back({value.live_range->start, value.size, category});
    events.push_back({value.live_range->end + 1, -value.size, category});
    timeline.last_step = std::max(timeline.last_step, value.live_range->end);
  }
  BytesByCategory running{};
  ForEachStep<BytesByCategory>(
      events, [](BytesByCategory& sum, const Event& e) { sum[e.category] += e.delta; },
      [&](size_t steps) { timeline.points.reserve(steps); },
      [&](ir::ScheduleStep step, const BytesByCategory& delta) {
        for (int c = 0; c < kNumValueCategories; ++c) running[c] += delta[c];
        timeline.points.push_back({step, running});
      });
  return timeline;
}

std::vector<ir::ValueId> ValuesLiveAt(const ir::Program& program, ir::ScheduleStep step) {
  // Sorted as LargestFirst orders values, through compact keys (the sort
  // reads no 432-byte value, and each instruction's name is looked up once).
  struct Key {
    int64_t size;
    ir::InstructionId instruction;
    std::string_view name;
    const ir::Value* value;
  };
  std::vector<Key> live;
  for (const ir::Value& value : program.values) {
    if (Counted(value) && value.live_range->Contains(step)) {
      live.push_back({value.size, value.instruction, program.InstructionName(value.instruction),
                      &value});
    }
  }
  std::sort(live.begin(), live.end(), [](const Key& a, const Key& b) {
    if (a.size != b.size) return a.size > b.size;
    if (a.instruction != b.instruction && a.name != b.name) return a.name < b.name;
    if (a.value->index != b.value->index) return a.value->index < b.value->index;
    return a.value->id < b.value->id;
  });
  std::vector<ir::ValueId> ids;
  ids.reserve(live.size());
  for (const Key& key : live) ids.push_back(key.value->id);
  return ids;
}

std::optional<LivePeak> ComputeLivePeak(const ir::Program& program, const Timeline& timeline) {
  if (!program.has_live_ranges || timeline.points.empty()) return std::nullopt;
  LivePeak peak;
  bool found = false;
  for (const TimelinePoint& point : timeline.points) {
    if (!found || point.total() > peak.bytes) {
      peak.bytes = point.total();
      peak.step = point.step;
      peak.bytes_by_category = point.bytes;
      found = true;
    }
  }
  peak.instruction = ScheduledAt(program, peak.step);
  peak.values = ValuesLiveAt(program, peak.step);
  return peak;
}

namespace {

// Bytes of each value's defining instruction's whole shape, by position in
// program.values: the (first) value at index {} of the same instruction when
// there is one (its size is the tuple's pointer table), else the value's own
// size.
std::vector<int64_t> InstructionShapeBytes(const ir::Program& program) {
  const std::vector<ir::Value>& values = program.values;
  // Per instruction id: the size of its first {} value, or -1.
  std::vector<int64_t> top_level(program.module.instruction_count(), -1);
  bool repeated = false;  // two {} values of one instruction
  for (const ir::Value& v : values) {
    if (!v.index.empty() || !program.module.contains(v.instruction)) continue;
    int64_t& bytes = top_level[v.instruction.value()];
    repeated |= bytes >= 0;
    if (bytes < 0) bytes = v.size;
  }
  std::vector<int64_t> bytes(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const ir::Value& v = values[i];
    if (v.index.empty() && !repeated) {  // the first {} value of its instruction
      bytes[i] = v.size;
      continue;
    }
    const int64_t whole =
        program.module.contains(v.instruction) ? top_level[v.instruction.value()] : -1;
    bytes[i] = whole < 0 ? v.size : whole;
  }
  return bytes;
}

// The step at which the counted values' usage (value i weighing
// `instruction_bytes[i]`, which may be negative) first reaches its peak
// above 0, replaying XLA's events one by one: (time, is_end, id, bytes)
// sorted, ends at end + 1. 0 if usage never rises above 0.
ir::ScheduleStep PeakMomentByEvents(const std::vector<ir::Value>& values,
                                    const std::vector<int64_t>& instruction_bytes) {
  std::vector<std::tuple<ir::ScheduleStep, bool, ir::ValueId, int64_t>> events;
  for (size_t i = 0; i < values.size(); ++i) {
    const ir::Value& v = values[i];
    if (!Counted(v)) continue;
    events.emplace_back(v.live_range->start, false, v.id, instruction_bytes[i]);
    events.emplace_back(v.live_range->end + 1, true, v.id, instruction_bytes[i]);
  }
  std::sort(events.begin(), events.end());
  int64_t usage = 0;
  int64_t peak = 0;
  ir::ScheduleStep moment = 0;
  for (const auto& [time, is_end, id, bytes] : events) {
    usage += is_end ? -bytes : bytes;
    if (usage > peak) {
      peak = usage;
      moment = time;
    }
  }
  return moment;
}

// PeakMomentByEvents' answer where no weight is negative: XLA's order (a
// step's starts, then its ends) makes usage rise through a step's starts
// and fall through its ends, so only the sums per step matter and the peak
// is checked after the starts.
ir::ScheduleStep PeakMomentBySteps(const std::vector<ir::Value>& values,
                                   const std::vector<int64_t>& instruction_bytes) {
  struct Event {
    ir::ScheduleStep step;
    int64_t bytes;
    bool is_end;
  };
  struct Sums {
    int64_t starts = 0;
    int64_t ends = 0;
  };
  std::vector<Event> events;
  events.reserve(2 * values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const ir::Value& v = values[i];
    if (!Counted(v)) continue;
    events.push_back({v.live_range->start, instruction_bytes[i], false});
    events.push_back({v.live_range->end + 1, instruction_bytes[i], true});
  }
  int64_t usage = 0;
  int64_t peak = 0;
  ir::ScheduleStep moment = 0;
  ForEachStep<Sums>(
      events, [](Sums& sum, const Event& e) { (e.is_end ? sum.ends : sum.starts) += e.bytes; },
      [](size_t) {},
      [&](ir::ScheduleStep step, const Sums& sum) {
        usage += sum.starts;
        if (usage > peak) {
          peak = usage;
          moment = step;
        }
        usage -= sum.ends;
      });
  return moment;
}

// XlaPeakMoment with value i weighing `instruction_bytes[i]`: nullopt when
// no value is counted.
std::optional<ir::ScheduleStep> XlaPeakMomentWith(const ir::Program& program,
                                                  const std::vector<int64_t>& instruction_bytes) {
  const std::vector<ir::Value>& values = program.values;
  bool any = false;
  bool negative = false;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!Counted(values[i])) continue;
    any = true;
    negative |= instruction_bytes[i] < 0;
  }
  if (!any) return std::nullopt;
  if (negative) return PeakMomentByEvents(values, instruction_bytes);
  return PeakMomentBySteps(values, instruction_bytes);
}

// The list's entries and ours as comparable (instruction, index, bytes)
// triples.
using PeakEntryKey = std::tuple<ir::InstructionId, std::string, int64_t>;

std::vector<PeakEntryKey> StatedKeys(const ir::StatedPeak& stated) {
  std::vector<PeakEntryKey> keys;
  keys.reserve(stated.entries.size());
  for (const ir::StatedPeakEntry& e : stated.entries) {
    keys.emplace_back(e.instruction, e.index ? ir::ShapeIndexToString(*e.index) : "",
                      e.bytes);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Our values live at `step` as keys, sorted; `instruction_bytes` is used
// for the old style.
std::vector<PeakEntryKey> OurKeys(const ir::Program& program, ir::ScheduleStep step,
                                  bool old_style, const std::vector<int64_t>& instruction_bytes) {
  std::vector<PeakEntryKey> keys;
  const std::vector<ir::Value>& values = program.values;
  for (size_t i = 0; i < values.size(); ++i) {
    const ir::Value& v = values[i];
    if (!Counted(v) || !v.live_range->Contains(step)) continue;
    keys.emplace_back(v.instruction, old_style ? "" : ir::ShapeIndexToString(v.index),
                      old_style ? instruction_bytes[i] : v.size);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

int64_t CountLiveAt(const ir::Program& program, ir::ScheduleStep step) {
  int64_t count = 0;
  for (const ir::Value& v : program.values) {
    count += Counted(v) && v.live_range->Contains(step);
  }
  return count;
}

}  // namespace

std::optional<ir::ScheduleStep> XlaPeakMoment(const ir::Program& program) {
  return XlaPeakMomentWith(program, InstructionShapeBytes(program));
}

std::optional<StatedPeakComparison> CompareWithStatedPeak(const ir::Program& program,
                                                          const LivePeak& peak,
                                                          const Timeline& timeline) {
  if (!program.stated_peak) return std::nullopt;
  const ir::StatedPeak& stated = *program.stated_peak;
  StatedPeakComparison cmp;
  cmp.stated_step = stated.step;
  cmp.stated_values = static_cast<int64_t>(stated.entries.size());
  bool old_style = false;
  for (const ir::StatedPeakEntry& entry : stated.entries) {
    cmp.stated_bytes += entry.bytes;
    old_style = old_style || !entry.index.has_value();
  }
  const std::vector<int64_t> instruction_bytes = InstructionShapeBytes(program);
  cmp.xla_moment = XlaPeakMomentWith(program, instruction_bytes);
  cmp.bytes_at_stated_step = Sum(timeline.At(stated.step));
  cmp.values_at_stated_step = CountLiveAt(program, stated.step);
  cmp.list_reproduced =
      StatedKeys(stated) == OurKeys(program, stated.step, old_style, instruction_bytes);
  cmp.matches = stated.step == peak.step && cmp.stated_bytes == peak.bytes;
  if (cmp.matches) return cmp;
  if (!cmp.list_reproduced) {
    cmp.mismatch = StatedPeakMismatch::kListNotReproduced;
  } else if (cmp.stated_bytes != cmp.bytes_at_stated_step) {
    cmp.mismatch = StatedPeakMismatch::kListSizesWholeShapes;
  } else {
    cmp.mismatch = StatedPeakMismatch::kXlaPeakRule;
  }
  return cmp;
}

}  // namespace memplan::analyzer
