// Internal to predictor: XLA's all-reduce combiner as the memory model sees
// it. XLA merges all-reduces of one computation over the same devices when
// neither depends on the other, up to a byte threshold; an all-reduce
// depends on another when its partial value is computed from that one's
// consumer. Each all-reduce, in schedule order of its consumer, joins the
// first group (in the order groups were made) of its computation and axes
// that has room and none of whose members it depends on.
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

// What the combiner's walk reads of the program, in flat arrays (the same
// for every candidate: built once per program): per schedule step, whether
// the walk visits it, whether it is its instruction's own step, and its
// instruction's operands; per instruction, its scheduled readers.
struct CombinerSchedule {
  std::vector<ir::InstructionId> instruction;  // per step (invalid: not in the module)
  std::vector<uint8_t> own_step;               // per step: step_of(instruction) == step
  std::vector<uint32_t> operands_start;        // per step, and one past the last
  std::vector<ir::InstructionId> operands;
  std::vector<int32_t> readers;                // per instruction: scheduled operand uses

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
