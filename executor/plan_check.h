// What makes a plan replayable, beyond its JSON types: buffer references
// that exist, are live and are large enough; collectives whose sizes divide
// among their group; and ranks whose collectives match, group by group, in a
// order that cannot deadlock when each rank runs its ops one after another.
#ifndef MEMPLAN_EXECUTOR_PLAN_CHECK_H_
#define MEMPLAN_EXECUTOR_PLAN_CHECK_H_

#include <cstdint>
#include <optional>
#include <string>

#include "executor/plan.h"

namespace memplan::executor {

// The first problem found: where it is and what was expected there.
struct PlanProblem {
  enum class Where { kPlan, kRank, kBuffer, kOp };
  Where where = Where::kPlan;
  int rank = 0;       // index into ExecutorPlan::ranks (kRank, kBuffer, kOp)
  int64_t index = 0;  // into the rank's buffers or ops (kBuffer, kOp)
  std::string field;  // the member at fault ("group", "bytes"), or empty
  std::string message;  // "expected ..." sentence
};

// Requires plan.ranks[i].rank == i and buffers sorted by id. nullopt when the
// plan can be replayed.
std::optional<PlanProblem> CheckPlan(const ExecutorPlan& plan);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_PLAN_CHECK_H_
