// The pass after all lines are read: order values and allocations by id,
// attach BufferLiveRange entries to values by name, and check what a
// well-formed dump promises (each value inside its allocation).
#include <algorithm>
#include <utility>
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
// on the defining instruction and index.
void AttachLiveRanges(ParseState& state) {
  ir::Program& program = state.program;
  absl::flat_hash_map<std::pair<ir::InstructionId, ir::ShapeIndex>, size_t> by_position;
  by_position.reserve(program.values.size());
  for (size_t i = 0; i < program.values.size(); ++i) {
    by_position.emplace(std::make_pair(program.values[i].instruction, program.values[i].index), i);
  }
  for (const RawLiveRange& raw : state.raw_live_ranges) {
    auto it = by_position.find(std::make_pair(raw.instruction, raw.index));
    if (it == by_position.end()) {
      program.diagnostics.Warn(
          "live range of a value the buffer assignment does not list (ignored)",
          [&] { return raw.source->LocationString(raw.at); });
      continue;
    }
    program.values[it->second].live_range = raw.range;
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

}  // namespace

void FinishProgram(ParseState& state) {
  SortById(state.program);
  AttachLiveRanges(state);
  CheckValuesFitAllocations(state.program);
  MarkNamesOnlyGraph(state.program.module);
  if (!state.raw_live_ranges.empty()) state.program.has_live_ranges = true;
}

}  // namespace memplan::parsers::internal
