#include "analyzer/liveness.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
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

Timeline ComputeTimeline(const ir::Program& program) {
  // Net change per category at each step where one happens.
  std::map<ir::ScheduleStep, BytesByCategory> deltas;
  Timeline timeline;
  timeline.last_step = program.schedule.max_time;
  for (const ir::Value& value : program.values) {
    if (!value.live_range || !value.allocation.valid()) continue;
    const ir::Allocation* allocation = program.FindAllocation(value.allocation);
    const int category = static_cast<int>(CategoryOf(*allocation));
    deltas[value.live_range->start][category] += value.size;
    deltas[value.live_range->end + 1][category] -= value.size;
    timeline.last_step = std::max(timeline.last_step, value.live_range->end);
  }
  BytesByCategory running{};
  for (const auto& [step, delta] : deltas) {
    for (int c = 0; c < kNumValueCategories; ++c) running[c] += delta[c];
    timeline.points.push_back({step, running});
  }
  return timeline;
}

std::vector<ir::ValueId> ValuesLiveAt(const ir::Program& program, ir::ScheduleStep step) {
  std::vector<const ir::Value*> live;
  for (const ir::Value& value : program.values) {
    if (value.live_range && value.allocation.valid() && value.live_range->Contains(step)) {
      live.push_back(&value);
    }
  }
  std::sort(live.begin(), live.end(), [](const ir::Value* a, const ir::Value* b) {
    if (a->size != b->size) return a->size > b->size;
    if (a->instruction != b->instruction) return a->instruction < b->instruction;
    if (a->index != b->index) return a->index < b->index;
    return a->id < b->id;
  });
  std::vector<ir::ValueId> ids;
  ids.reserve(live.size());
  for (const ir::Value* v : live) ids.push_back(v->id);
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
  const auto& sequence = program.schedule.instructions;
  if (peak.step >= 0 && peak.step < static_cast<ir::ScheduleStep>(sequence.size())) {
    peak.instruction = sequence[peak.step];
  }
  peak.values = ValuesLiveAt(program, peak.step);
  return peak;
}

namespace {

// Bytes of each value's defining instruction's whole shape: the value at
// index {} of the same instruction when there is one (its size is the
// tuple's pointer table), else the value's own size.
absl::flat_hash_map<ir::ValueId, int64_t> InstructionShapeBytes(const ir::Program& program) {
  absl::flat_hash_map<absl::string_view, int64_t> top_level;
  for (const ir::Value& v : program.values) {
    if (v.index.empty()) top_level.emplace(ToAbsl(v.instruction), v.size);
  }
  absl::flat_hash_map<ir::ValueId, int64_t> bytes;
  for (const ir::Value& v : program.values) {
    auto it = top_level.find(ToAbsl(v.instruction));
    bytes[v.id] = it == top_level.end() ? v.size : it->second;
  }
  return bytes;
}

// The list's entries and ours as comparable (name, index, bytes) triples.
using PeakEntryKey = std::tuple<std::string_view, std::string, int64_t>;

std::vector<PeakEntryKey> StatedKeys(const ir::StatedPeak& stated) {
  std::vector<PeakEntryKey> keys;
  for (const ir::StatedPeakEntry& e : stated.entries) {
    keys.emplace_back(e.instruction, e.index ? ir::ShapeIndexToString(*e.index) : "",
                      e.bytes);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<PeakEntryKey> OurKeys(const ir::Program& program, ir::ScheduleStep step,
                                  bool old_style) {
  const auto instruction_bytes = InstructionShapeBytes(program);
  std::vector<PeakEntryKey> keys;
  for (ir::ValueId id : ValuesLiveAt(program, step)) {
    const ir::Value* v = program.FindValue(id);
    keys.emplace_back(v->instruction, old_style ? "" : ir::ShapeIndexToString(v->index),
                      old_style ? instruction_bytes.at(id) : v->size);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

std::optional<ir::ScheduleStep> XlaPeakMoment(const ir::Program& program) {
  const auto instruction_bytes = InstructionShapeBytes(program);
  // (time, is_end, id, bytes), ends at end + 1, as XLA orders its events.
  std::vector<std::tuple<ir::ScheduleStep, bool, ir::ValueId, int64_t>> events;
  for (const ir::Value& v : program.values) {
    if (!v.live_range || !v.allocation.valid()) continue;
    const int64_t bytes = instruction_bytes.at(v.id);
    events.emplace_back(v.live_range->start, false, v.id, bytes);
    events.emplace_back(v.live_range->end + 1, true, v.id, bytes);
  }
  if (events.empty()) return std::nullopt;
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
  cmp.xla_moment = XlaPeakMoment(program);
  cmp.bytes_at_stated_step = Sum(timeline.At(stated.step));
  cmp.values_at_stated_step = static_cast<int64_t>(ValuesLiveAt(program, stated.step).size());
  cmp.list_reproduced = StatedKeys(stated) == OurKeys(program, stated.step, old_style);
  cmp.matches = stated.step == peak.step && cmp.stated_bytes == peak.bytes;
  if (cmp.matches) return cmp;
  if (!cmp.list_reproduced) {
    cmp.explanation = StrCat("the dump lists ", cmp.stated_values, " values (",
                             cmp.stated_bytes, " bytes) at step ", stated.step,
                             " where its live ranges hold ", cmp.values_at_stated_step,
                             " values (", cmp.bytes_at_stated_step, " bytes)");
  } else if (cmp.stated_bytes != cmp.bytes_at_stated_step) {
    cmp.explanation = StrCat(
        "the list sizes each value by its defining instruction's whole shape (older XLA), so "
        "a tuple element reads as the tuple's pointer table: ", cmp.stated_bytes,
        " listed bytes for ", cmp.bytes_at_stated_step, " bytes live");
  } else {
    cmp.explanation = StrCat(
        "XLA picks its peak step sizing each value by its defining instruction's whole shape "
        "(a tuple element counts as the tuple's pointer table) and adding a step's starts "
        "before its ends; that rule gives step ",
        cmp.xla_moment ? StrCat(*cmp.xla_moment) : std::string("?"),
        ", while the most bytes are live at step ", peak.step, " (", peak.bytes, " bytes)");
  }
  return cmp;
}

}  // namespace memplan::analyzer
