// Internal to predictor: XLA's all-reduce combiner as the memory model sees
// it (xla/service/collective_combiner_utils.h, CombineInstructionsByKey).
// XLA merges all-reduces of one computation over the same devices when
// neither depends on the other, up to a byte threshold, in rounds over the
// partitioned program's post order: a round starts at the first all-reduce
// not yet grouped and takes the following ones of its key (computation,
// axes) until one depends on a member (its partial value is computed from
// a reader of that member's result) or would pass the threshold; the rest
// wait for the next round. An all-reduce's place in that order is right
// after the partial sum it reads (its only reader there), or right before
// its consumer when the partial has no buffer of its own.
#ifndef MEMPLAN_PREDICTOR_ALL_REDUCE_COMBINER_H_
#define MEMPLAN_PREDICTOR_ALL_REDUCE_COMBINER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/program.h"
#include "predictor/propagation.h"
#include "predictor/shared_list.h"

namespace memplan::predictor {

// One combined all-reduce.
struct CombinedAllReduce {
  ir::ComputationId computation;
  AxisMask axes = 0;
  int64_t bytes = 0;          // its members' result bytes, summed
  ir::ScheduleStep step = 0;  // its latest member's consumer's step
  std::vector<size_t> members;  // indices into the collectives, in joining order
};

// Combined all-reduces with their members held apart, as a prediction
// keeps them (Prediction::combined_all_reduces shares `members`).
struct CombinedGroups {
  std::vector<CombinedAllReduce> groups;    // members moved out to `members`
  SharedList<std::vector<size_t>> members;  // per group, in joining order
};

// What the combiner reads of the program, in flat arrays (the same for
// every candidate: built once per program): per instruction, its place in
// the module's post order (InstructionPostOrder) and its users.
struct CombinerSchedule {
  std::vector<int64_t> position;
  std::vector<uint32_t> users_start;  // per instruction, and one past the last
  std::vector<ir::InstructionId> users;

  static CombinerSchedule Of(const ir::Program& program,
                             const std::vector<ir::ScheduleStep>& step_of);
};

// The groups `collectives`' all-reduces form (other kinds are ignored), in
// the order they were made. `step_of` gives each instruction's schedule step
// (-1: unscheduled; an id past its end counts as unscheduled); a group never
// grows past `threshold_bytes` unless one all-reduce alone does.
std::vector<CombinedAllReduce> CombineAllReduces(const ir::Program& program,
                                                 const std::vector<ir::ScheduleStep>& step_of,
                                                 const std::vector<PredictedCollective>& collectives,
                                                 int64_t threshold_bytes);
// The same with `schedule` = CombinerSchedule::Of(program, step_of). With
// `read_bytes`, sets it to whether any choice read a result byte count (a
// group's bytes against the threshold); when none did, every other list
// whose collectives differ from `collectives` in their bytes alone forms
// the same groups (members, computation, axes, step), bytes summed anew.
std::vector<CombinedAllReduce> CombineAllReduces(const ir::Program& program,
                                                 const std::vector<ir::ScheduleStep>& step_of,
                                                 const CombinerSchedule& schedule,
                                                 const std::vector<PredictedCollective>& collectives,
                                                 int64_t threshold_bytes,
                                                 bool* read_bytes = nullptr);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_ALL_REDUCE_COMBINER_H_
