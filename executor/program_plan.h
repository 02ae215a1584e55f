// A compiler's buffer assignment as a one-rank executor plan, so that
// `memplan validate DUMP` replays the compiler's own allocation plan.
//
// Uses only value sizes, allocation ids, sizes and offsets, and live ranges.
#ifndef MEMPLAN_EXECUTOR_PROGRAM_PLAN_H_
#define MEMPLAN_EXECUTOR_PROGRAM_PLAN_H_

#include "absl/status/statusor.h"
#include "executor/plan.h"
#include "ir/program.h"

namespace memplan::executor {

// The arena holds the allocations back to back in id order (no padding, so
// its size is the total allocation, "Total bytes used"); a value's offset in
// the arena is its allocation's base plus its offset in the allocation. Each
// value with an allocation and a live range is one buffer (id = value id)
// over that range. Without live ranges in the input, every value is live at
// step 0; without values (a memory-usage report), each allocation is one
// buffer. InvalidArgument when there is nothing to allocate or a value lies
// outside its allocation. Requires program.values and allocations sorted by
// id.
absl::StatusOr<ExecutorPlan> PlanFromProgram(const ir::Program& program);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_PROGRAM_PLAN_H_
