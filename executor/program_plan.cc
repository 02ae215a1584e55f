#include "executor/program_plan.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::executor {

namespace {

struct Placement {
  int64_t base = 0;
  int64_t size = 0;
};
using Placements = absl::flat_hash_map<ir::AllocationId, Placement>;

// Allocations laid end to end in id order; returns the arena's size.
int64_t PlaceAllocations(const ir::Program& program, Placements& placement) {
  int64_t base = 0;
  for (const ir::Allocation& allocation : program.allocations) {
    placement[allocation.id] = {base, allocation.size};
    base += allocation.size;
  }
  return base;
}

// One buffer per value with a live range (every value when the input has
// no live ranges); counts the values left out for want of one.
absl::Status AddValueBuffers(const ir::Program& program, const Placements& placement,
                             const std::string& source, RankPlan& rank, int64_t& without_range,
                             bool& any_value) {
  for (const ir::Value& value : program.values) {
    auto it = placement.find(value.allocation);
    if (it == placement.end()) continue;
    any_value = true;
    const Placement& at = it->second;
    if (value.offset < 0 || value.size < 0 || value.offset > at.size - value.size) {
      return absl::InvalidArgumentError(
          StrCat(source, ": error: value ", value.id.value(), " (", value.size, " bytes at offset ",
                 value.offset, ") lies outside allocation ", value.allocation.value(), " of ",
                 at.size, " bytes"));
    }
    PlanBuffer buffer;
    buffer.id = value.id.value();
    buffer.bytes = value.size;
    buffer.offset = at.base + value.offset;
    if (value.live_range) {
      buffer.start = value.live_range->start;
      buffer.end = value.live_range->end;
    } else if (program.has_live_ranges) {
      ++without_range;  // the analyzer does not count it either
      continue;
    }
    rank.buffers.push_back(buffer);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ExecutorPlan> PlanFromProgram(const ir::Program& program) {
  ExecutorPlan plan;
  plan.name = program.module_name;
  for (const std::string& file : program.source_files) {
    StrAppend(&plan.source, plan.source.empty() ? "" : ", ", file);
  }
  if (program.allocations.empty()) {
    return absl::InvalidArgumentError(
        StrCat(plan.source.empty() ? std::string("the input") : plan.source,
               ": error: expected allocations to replay; this input states only totals"));
  }
  RankPlan rank;
  rank.rank = 0;
  Placements placement;
  rank.arena_bytes = PlaceAllocations(program, placement);
  int64_t without_range = 0;
  bool any_value = false;
  RETURN_IF_ERROR(AddValueBuffers(program, placement, plan.source, rank, without_range, any_value));
  if (!any_value) {
    for (const ir::Allocation& allocation : program.allocations) {
      rank.buffers.push_back({allocation.id.value(), allocation.size, 0, 0, placement[allocation.id].base});
    }
    plan.notes.push_back("the input lists allocations but no values: each allocation is one buffer, "
                         "live at step 0");
  } else if (!program.has_live_ranges) {
    plan.notes.push_back("the input has no live ranges: every value is live at step 0, so a pool "
                         "replay holds them all at once");
  }
  if (without_range > 0) {
    plan.notes.push_back(StrCat(without_range, " values without a live range are not replayed as "
                                               "buffers (the arena still holds their allocations)"));
  }
  // Buffers are sorted by id because values are.
  plan.ranks.push_back(std::move(rank));
  return plan;
}

}  // namespace memplan::executor
