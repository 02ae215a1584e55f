// `memplan predict`: per-device bytes of a program under a sharding plan,
// the change against the program as compiled, the collectives and the
// places propagation replicated by default; as text and JSON
// (memplan.predict.v1, docs/json-schema.md).
#ifndef MEMPLAN_VIZ_PREDICT_REPORT_H_
#define MEMPLAN_VIZ_PREDICT_REPORT_H_

#include <string>

#include "ir/module.h"
#include "predictor/predict.h"

namespace memplan::viz {

struct PredictReportInput {
  const ir::Module& module;
  std::string module_name;
  const predictor::Prediction& prediction;
};

std::string RenderPredictText(const PredictReportInput& input);
std::string RenderPredictJson(const PredictReportInput& input);

// "dp", "(dp,tp)": the mesh axes of `mask`.
std::string AxisNames(const ir::Mesh& mesh, predictor::AxisMask mask);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_PREDICT_REPORT_H_
