// A sweep: several candidate plans of one program, each predicted by one
// Predictor (the per-program work shared), ordered by the predicted maximum
// device footprint, the smallest first (`memplan predict --plans/--family`).
#ifndef MEMPLAN_PREDICTOR_SWEEP_H_
#define MEMPLAN_PREDICTOR_SWEEP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/plan.h"
#include "predictor/predict.h"

namespace memplan::predictor {

struct SweepCandidate {
  std::string family;  // "dp+tp"; empty for a plan file
  std::string source;  // the plan file; empty for a family plan
  ir::ResolvedPlan plan;  // plan.label names the candidate
};

struct SweepRow {
  std::string label;
  std::string family;
  std::string source;
  int64_t index = 0;  // position among the candidates given
  Prediction prediction;
};

// Predicts every candidate and orders them by max_device_footprint_bytes,
// then by label, then by position (a total order: the output does not
// depend on the sort's stability). The first plan the predictor refuses
// fails the sweep with its label (and file) in the message.
absl::StatusOr<std::vector<SweepRow>> PredictSweep(const Predictor& predictor,
                                                    const std::vector<SweepCandidate>& candidates);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_SWEEP_H_
