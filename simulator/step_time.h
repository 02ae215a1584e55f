// Step time = compute + the collective time that compute does not hide,
// under one of three overlap models (docs/cost-model.md, "Step time"):
//   none           collectives never overlap compute: compute + sum(collectives)
//   full           every collective can hide behind compute:
//                  max(compute, sum(collectives))
//   per-collective each collective says how much of it can hide (0..1) and
//                  behind the compute of which parts of the step (its
//                  window: forward, backward, optimizer); the hideable time
//                  hides up to the compute time of its window, windows of
//                  fewer parts served first (simulator/overlap.h decides
//                  both from what the collective does).
#ifndef MEMPLAN_SIMULATOR_STEP_TIME_H_
#define MEMPLAN_SIMULATOR_STEP_TIME_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "analyzer/step_phases.h"

namespace memplan::simulator {

enum class OverlapModel : uint8_t { kNone, kFull, kPerCollective };
std::string_view OverlapModelName(OverlapModel model);  // "none", "full", "per-collective"
std::optional<OverlapModel> OverlapModelFromName(std::string_view name);

// A set of step phases: bit k for analyzer::kStepPhases[k].
using PhaseMask = uint8_t;
inline constexpr PhaseMask kAllPhases = 0b111;
constexpr PhaseMask PhaseBit(analyzer::StepPhase p) {
  return static_cast<PhaseMask>(1u << static_cast<unsigned>(p));
}

struct TimedCollective {
  double seconds = 0;
  // Share of `seconds` that may run under compute (per-collective model;
  // clamped to [0, 1]).
  double overlappable = 0;
  // The phases whose compute may cover it (per-collective model).
  PhaseMask window = kAllPhases;
};

struct StepTime {
  double compute_seconds = 0;
  double collective_seconds = 0;  // all collectives, end to end
  double exposed_seconds = 0;     // the part compute does not hide
  double step_seconds = 0;        // compute + exposed
  // Collective time hidden behind each phase's compute (kStepPhases order).
  std::array<double, analyzer::kNumStepPhases> hidden_seconds = {};
};

// Compute per phase (forward, backward, optimizer). Precondition: times are
// finite and not negative.
StepTime CombineStepTime(const std::array<double, analyzer::kNumStepPhases>& phase_compute,
                         std::span<const TimedCollective> collectives, OverlapModel model);

// All compute in one phase whose window every collective names: the model
// without phases.
StepTime CombineStepTime(double compute_seconds, std::span<const TimedCollective> collectives,
                         OverlapModel model);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_STEP_TIME_H_
