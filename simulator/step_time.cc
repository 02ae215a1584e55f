#include "simulator/step_time.h"

#include <algorithm>

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

StepTime CombineStepTime(double compute_seconds, std::span<const TimedCollective> collectives,
                         OverlapModel model) {
  StepTime t;
  t.compute_seconds = compute_seconds;
  double hideable = 0;
  for (const TimedCollective& c : collectives) {
    t.collective_seconds += c.seconds;
    switch (model) {
      case OverlapModel::kNone:
        break;
      case OverlapModel::kFull:
        hideable += c.seconds;
        break;
      case OverlapModel::kPerCollective:
        hideable += std::clamp(c.overlappable, 0.0, 1.0) * c.seconds;
        break;
    }
  }
  const double hidden = std::min(hideable, compute_seconds);
  t.exposed_seconds = t.collective_seconds - hidden;
  t.step_seconds = compute_seconds + t.exposed_seconds;
  return t;
}

}  // namespace memplan::simulator
