#include "simulator/step_time.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace memplan::simulator {

std::string_view OverlapModelName(OverlapModel model) {
  switch (model) {
    case OverlapModel::kNone:
      return "none";
    case OverlapModel::kFull:
      return "full";
    case OverlapModel::kPerCollective:
      return "per-collective";
  }
  return "none";
}

std::optional<OverlapModel> OverlapModelFromName(std::string_view name) {
  for (OverlapModel m : {OverlapModel::kNone, OverlapModel::kFull, OverlapModel::kPerCollective}) {
    if (OverlapModelName(m) == name) return m;
  }
  return std::nullopt;
}

StepTime CombineStepTime(const std::array<double, analyzer::kNumStepPhases>& phase_compute,
                         std::span<const TimedCollective> collectives, OverlapModel model) {
  StepTime t;
  std::array<double, analyzer::kNumStepPhases> budget = phase_compute;
  for (double c : phase_compute) t.compute_seconds += c;
  for (const TimedCollective& c : collectives) t.collective_seconds += c.seconds;
  double hidden = 0;
  if (model == OverlapModel::kFull) {
    hidden = std::min(t.collective_seconds, t.compute_seconds);
    // Spread over the phases in order, for the report.
    double left = hidden;
    for (size_t k = 0; k < budget.size(); ++k) {
      t.hidden_seconds[k] = std::min(left, budget[k]);
      left -= t.hidden_seconds[k];
    }
  } else if (model == OverlapModel::kPerCollective) {
    // Windows of one phase first, then of two, then all: the windows nest
    // (a collective hideable behind forward and backward can use what a
    // backward-only one left), so serving the narrowest first hides the most.
    for (int width = 1; width <= analyzer::kNumStepPhases; ++width) {
      for (const TimedCollective& c : collectives) {
        const PhaseMask w = c.window & kAllPhases;
        if (std::popcount(static_cast<unsigned>(w)) != width) continue;
        double left = std::clamp(c.overlappable, 0.0, 1.0) * c.seconds;
        for (size_t k = 0; k < budget.size() && left > 0; ++k) {
          if (((w >> k) & 1u) == 0) continue;
          const double take = std::min(left, budget[k]);
          budget[k] -= take;
          t.hidden_seconds[k] += take;
          left -= take;
          hidden += take;
        }
      }
    }
  }
  t.exposed_seconds = t.collective_seconds - hidden;
  t.step_seconds = t.compute_seconds + t.exposed_seconds;
  return t;
}

StepTime CombineStepTime(double compute_seconds, std::span<const TimedCollective> collectives,
                         OverlapModel model) {
  std::vector<TimedCollective> all(collectives.begin(), collectives.end());
  for (TimedCollective& c : all) c.window = kAllPhases;
  return CombineStepTime({compute_seconds, 0.0, 0.0}, all, model);
}

}  // namespace memplan::simulator
