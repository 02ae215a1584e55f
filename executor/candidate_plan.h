// The executor's plan (executor/plan.h) for one priced sharding candidate
// (simulator/candidate_cost.h), so that `memplan validate` can replay what
// `memplan rank` predicted (docs/executor-plan.md, "A ranked candidate as a
// plan"). Rank r is device r of the candidate's mesh. Per rank:
//   buffers  each entry argument's shard; each output leaf's shard that
//            aliases no argument (and a tuple's index table); the temp
//            arena the prediction packed. All live over the whole schedule,
//            back to back in one arena, so the arena is the predicted
//            footprint (argument + output - alias + temp);
//            planned_peak_bytes states that footprint.
//   ops      the predicted collectives in schedule order (the step of the
//            instruction that needs each), all-reduces combined as the
//            prediction combined them, each executed as often as its
//            instruction (loop trip counts), over the device group of its
//            mesh axes, with its alpha-beta time on the candidate's
//            hardware. No GEMMs: predicted_step_seconds is the ops' time
//            end to end (the executor runs them one at a time), not the
//            candidate's step time.
#ifndef MEMPLAN_EXECUTOR_CANDIDATE_PLAN_H_
#define MEMPLAN_EXECUTOR_CANDIDATE_PLAN_H_

#include <string>

#include "absl/status/statusor.h"
#include "executor/plan.h"
#include "simulator/candidate_cost.h"

namespace memplan::executor {

struct CandidatePlanOptions {
  std::string name;    // the plan's name (e.g. the candidate's label)
  std::string source;  // what made it
};

// The plan for `cost`, priced by `model` (whose program, hardware and
// devices per node it uses), with the prediction's details (Price()'s
// result, not a RankedCandidate's, whose details the ranking dropped).
// InvalidArgument when those details are missing, the prediction's mesh has
// no devices or ids outside 0..N-1, or a collective's device groups cannot
// be formed.
absl::StatusOr<ExecutorPlan> PlanFromCandidate(const simulator::CostModel& model,
                                               const simulator::CandidateCost& cost,
                                               const CandidatePlanOptions& options = {});

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_CANDIDATE_PLAN_H_
