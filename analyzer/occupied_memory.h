// The live peak counted in memory, not in values. XLA's live peak (liveness.h,
// HloLiveRange's notion) adds the sizes of the values live at a step; when a
// value and its in-place successor (a donated input and its output, a loop's
// phi, a fusion that writes over its operand) share one slice of an
// allocation and are both live at a step, those bytes count twice, and the
// sum can exceed the total allocation. Here each step counts the union of the
// byte ranges [offset, offset + size) of every allocation that its live values
// occupy, so shared memory counts once and the figure never exceeds the total
// allocation (for values inside their allocations).
#ifndef MEMPLAN_ANALYZER_OCCUPIED_MEMORY_H_
#define MEMPLAN_ANALYZER_OCCUPIED_MEMORY_H_

#include <cstdint>
#include <optional>

#include "analyzer/liveness.h"
#include "ir/program.h"

namespace memplan::analyzer {

// The step where the most memory is occupied by live values (the first such
// step), with its bytes by category (each category's union), the
// instruction scheduled there and the values live there (as LivePeak::values).
// Values without a live range or an allocation are not counted, as in
// ComputeTimeline. nullopt when the program has no live ranges.
// Requires program.values and program.allocations sorted by id.
std::optional<LivePeak> ComputeOccupiedPeak(const ir::Program& program);

// The occupied memory at every step where it changes, by category (each
// category's union): the step function whose maximum ComputeOccupiedPeak
// finds. Never above ComputeTimeline at any step. Empty points when the
// program has no live ranges; last_step as ComputeTimeline's.
Timeline ComputeOccupiedTimeline(const ir::Program& program);

// ComputeOccupiedPeak from an occupied timeline already computed.
std::optional<LivePeak> OccupiedPeakOf(const ir::Program& program, const Timeline& occupied);

// Bytes occupied at `step` by the values live there (the union above).
int64_t OccupiedBytesAt(const ir::Program& program, ir::ScheduleStep step);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_OCCUPIED_MEMORY_H_
