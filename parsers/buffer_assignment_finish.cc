// The pass after all lines are read: order values and allocations by id,
// attach BufferLiveRange entries to values by name, and check what a
// well-formed dump promises (each value inside its allocation).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/strings.h"
#include "parsers/buffer_assignment_state.h"

namespace memplan::parsers::internal {
namespace {

// Sorts by id (ids are unique). Values are large, so this sorts their
// indices and then moves each item once, following the permutation's
// cycles, instead of letting std::sort move whole items O(n log n) times.
template <typename T>
void SortByUniqueId(std::vector<T>& items) {
  const auto by_id = [](const T& a, const T& b) { return a.id < b.id; };
  if (std::is_sorted(items.begin(), items.end(), by_id)) return;
  std::vector<std::pair<decltype(items[0].id), size_t>> keys;
  keys.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) keys.emplace_back(items[i].id, i);
  std::sort(keys.begin(), keys.end());
  std::vector<size_t> source(items.size());  // position i takes items[source[i]]
  for (size_t i = 0; i < keys.size(); ++i) source[i] = keys[i].second;
  keys = {};
  for (size_t start = 0; start < source.size(); ++start) {
    if (source[start] == start) continue;
    T held = std::move(items[start]);
    size_t at = start;
    while (source[at] != start) {
      const size_t from = source[at];
      items[at] = std::move(items[from]);
      source[at] = at;
      at = from;
    }
    items[at] = std::move(held);
    source[at] = at;
  }
}

void SortById(ir::Program& program) {
  SortByUniqueId(program.values);
  SortByUniqueId(program.allocations);
}

// BufferLiveRange names values "instruction{index}" (no value id), so match
// on the defining instruction and index: the first value (by id) with both.
// Instruction ids are dense, so the values of each instruction form a chain
// through arrays indexed by instruction id and value position (one or two
// values per instruction), with no hash of a ShapeIndex per value.
void AttachLiveRanges(ParseState& state) {
  ir::Program& program = state.program;
  constexpr uint32_t kEnd = UINT32_MAX;
  const size_t instructions = program.module.instruction_count();
  std::vector<uint32_t> first(instructions, kEnd);
  std::vector<uint32_t> next(program.values.size(), kEnd);
  // Values whose instruction id is outside the module (none when the parse
  // resolved every name): matched through a map, as any id could be.
  absl::flat_hash_map<std::pair<ir::InstructionId, ir::ShapeIndex>, size_t> others;
  for (size_t i = program.values.size(); i-- > 0;) {  // chains in ascending order
    const ir::Value& value = program.values[i];
    const int64_t id = value.instruction.value();
    if (id >= 0 && static_cast<size_t>(id) < instructions && i < kEnd) {
      next[i] = first[id];
      first[id] = static_cast<uint32_t>(i);
    } else {
      others.insert_or_assign(std::make_pair(value.instruction, value.index), i);
    }
  }
  const auto find = [&](const RawLiveRange& raw) -> size_t {
    const int64_t id = raw.instruction.value();
    if (id >= 0 && static_cast<size_t>(id) < instructions) {
      for (uint32_t i = first[id]; i != kEnd; i = next[i]) {
        if (program.values[i].index == raw.index) return i;
      }
    }
    if (others.empty()) return kEnd;
    auto it = others.find(std::make_pair(raw.instruction, raw.index));
    return it == others.end() ? kEnd : it->second;
  };
  for (const RawLiveRange& raw : state.raw_live_ranges) {
    const size_t i = find(raw);
    if (i == kEnd) {
      program.diagnostics.Warn(
          "live range of a value the buffer assignment does not list (ignored)",
          [&] { return raw.source->LocationString(raw.at); });
      continue;
    }
    program.values[i].live_range = raw.range;
  }
  const ir::ScheduleStep max_time = program.schedule.max_time;
  for (const ir::Value& value : program.values) {
    if (value.live_range && max_time >= 0 && value.live_range->end > max_time) {
      program.diagnostics.Warn("live range ends after the schedule's last step",
                               program.ValueName(value));
    }
  }
}

void CheckValuesFitAllocations(ir::Program& program) {
  for (const ir::Value& value : program.values) {
    if (!value.allocation.valid()) {
      program.diagnostics.Warn("used value assigned to no allocation", program.ValueName(value));
      continue;
    }
    const ir::Allocation* allocation = program.FindAllocation(value.allocation);
    if (value.offset > allocation->size || value.size > allocation->size - value.offset) {
      program.diagnostics.Warn(
          "value extends past the end of its allocation",
          StrCat(program.ValueName(value), " in allocation ", allocation->id.value()));
    }
  }
}

// Values of scheduled instructions, outside thread-local allocations, with
// no live range. HloLiveRange gives a range to the values of scheduled
// instructions only: a constant inside a custom-call's comparator has an
// allocation and no range in a whole dump.
int64_t ScheduledValuesWithoutRange(const ir::Program& program) {
  std::vector<bool> scheduled(program.module.instruction_count(), false);
  for (ir::InstructionId id : program.schedule.instructions) {
    if (id.valid() && static_cast<size_t>(id.value()) < scheduled.size()) {
      scheduled[static_cast<size_t>(id.value())] = true;
    }
  }
  int64_t without_range = 0;
  for (const ir::Value& value : program.values) {
    if (!value.allocation.valid() || value.live_range) continue;
    const bool in_schedule = value.instruction.valid() &&
                             static_cast<size_t>(value.instruction.value()) < scheduled.size() &&
                             scheduled[static_cast<size_t>(value.instruction.value())];
    if (!in_schedule) continue;
    const ir::Allocation* allocation = program.FindAllocation(value.allocation);
    if (allocation != nullptr && !allocation->is_thread_local) ++without_range;
  }
  return without_range;
}

// Says, as a note, where a dump cut short stops and what it lacks: the
// sections that close it, used-value records for every value, a schedule
// step for every step the HloLiveRange states, a live range for every value
// outside thread-local allocations, and a peak list with every range live at
// its step. A whole dump lacks none of these.
void NoteEndsEarly(ParseState& state) {
  ir::Program& program = state.program;
  const SectionsRead& read = state.read;
  if (read.allocations == 0 && program.values.empty() && !read.header) {
    program.notes.push_back({ir::NoteCode::kInputListsNothing, {}, {program.source_files.empty() ? "" : program.source_files.front()}});
    return;
  }
  std::vector<std::string> missing;
  if (!read.partial_line_location.empty()) missing.push_back("partial-line");
  if (read.header && read.allocations == 0) missing.push_back("allocations");
  if (read.allocations > 0 && !read.total) missing.push_back("total");
  int64_t assigned = 0;
  for (const ir::Value& value : program.values) assigned += value.allocation.valid() ? 1 : 0;
  if (read.used_values &&
      (read.used_value_records < assigned ||
       (!read.last_record_whole && !read.live_range))) {
    missing.push_back("used-values");
  }
  const int64_t steps_listed = static_cast<int64_t>(program.schedule.instructions.size());
  const int64_t steps_stated = program.schedule.max_time;
  int64_t without_range = 0;
  int64_t peak_entries = 0;
  int64_t live_at_peak = 0;
  if (read.live_range) {
    if (!read.sequence || steps_listed < steps_stated) missing.push_back("schedule");
    without_range = ScheduledValuesWithoutRange(program);
    if (!read.buffer_live_ranges || without_range > 0) missing.push_back("buffer-live-ranges");
    if (program.stated_peak) {
      peak_entries = static_cast<int64_t>(program.stated_peak->entries.size());
      for (const RawLiveRange& raw : state.raw_live_ranges) {
        live_at_peak += raw.range.Contains(program.stated_peak->step) ? 1 : 0;
      }
    }
    if (!read.peak || peak_entries < live_at_peak) missing.push_back("peak-list");
  }
  if (missing.empty()) return;
  ir::Note note{ir::NoteCode::kInputEndsEarly,
                {assigned, read.used_value_records, steps_listed, steps_stated, without_range,
                 peak_entries, live_at_peak},
                {read.partial_line_location.empty() ? read.last_location
                                                    : read.partial_line_location,
                 read.last_section}};
  for (std::string& m : missing) note.texts.push_back(std::move(m));
  program.notes.push_back(std::move(note));
}

}  // namespace

void FinishProgram(ParseState& state) {
  SortById(state.program);
  AttachLiveRanges(state);
  NoteEndsEarly(state);
  CheckValuesFitAllocations(state.program);
  MarkNamesOnlyGraph(state.program.module);
  if (!state.raw_live_ranges.empty()) state.program.has_live_ranges = true;
}

}  // namespace memplan::parsers::internal
