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

// A buffer live at the predicted peak, as every view words it.
struct PeakBufferText {
  // A value: its defining instruction ("fusion.12", "while.3 {1}" for a
  // tuple's leaf). A collective: "all-reduce over tp".
  std::string name;
  std::string shape;     // a value's single-device shape; "" for a collective
  std::string sharding;  // a value's predicted sharding; "" when unknown
  // "temp arena" or "output allocation" for a value; a collective's
  // "result, for fusion.3" or "partial sum, for fusion.3".
  std::string held;
};
PeakBufferText DescribePeakBuffer(const ir::Module& module, const predictor::Prediction& p,
                                  const predictor::PeakBuffer& b);

// Buffers of the peak the text view lists (the JSON lists every one kept).
inline constexpr size_t kPeakBuffersInText = 10;

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_PREDICT_REPORT_H_
