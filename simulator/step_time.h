// Step time = compute + the collective time that compute does not hide,
// under one of three overlap models (docs/cost-model.md, "Step time"):
//   none           collectives never overlap compute: compute + sum(collectives)
//   full           every collective can hide behind compute:
//                  max(compute, sum(collectives))
//   per-collective each collective says how much of it can hide (0..1), e.g.
//                  FSDP's prefetched all-gathers and the gradient reduce-
//                  scatters of backward 1, tensor-parallel all-reduces on the
//                  critical path 0; the hideable time hides up to the compute
//                  time.
#ifndef MEMPLAN_SIMULATOR_STEP_TIME_H_
#define MEMPLAN_SIMULATOR_STEP_TIME_H_

#include <optional>
#include <span>
#include <string_view>

namespace memplan::simulator {

enum class OverlapModel : uint8_t { kNone, kFull, kPerCollective };
std::string_view OverlapModelName(OverlapModel model);  // "none", "full", "per-collective"
std::optional<OverlapModel> OverlapModelFromName(std::string_view name);

struct TimedCollective {
  double seconds = 0;
  // Share of `seconds` that may run under compute (per-collective model;
  // clamped to [0, 1]).
  double overlappable = 0;
};

struct StepTime {
  double compute_seconds = 0;
  double collective_seconds = 0;  // all collectives, end to end
  double exposed_seconds = 0;     // the part compute does not hide
  double step_seconds = 0;        // compute + exposed
};

// Precondition: times are finite and not negative.
StepTime CombineStepTime(double compute_seconds, std::span<const TimedCollective> collectives,
                         OverlapModel model);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_STEP_TIME_H_
