// Field-by-field comparisons of predictions, for the tests of prediction's
// fast and shared paths against their references (memplan_speed_tests).
#ifndef MEMPLAN_TESTS_PREDICTION_COMPARE_H_
#define MEMPLAN_TESTS_PREDICTION_COMPARE_H_

#include <string>

#include "ir/program.h"
#include "predictor/predict.h"

namespace memplan::test {

// Device bytes, live peaks and the JSON report equal (gtest expectations).
void ExpectSamePrediction(const ir::Program& program, const predictor::Prediction& fast,
                          const predictor::Prediction& reference, const std::string& what);
// Everything a prediction holds, field by field.
void ExpectSameDetail(const ir::Program& program, const predictor::Prediction& a,
                      const predictor::Prediction& b, const std::string& what);
// Options that share nothing between candidates (the reference path).
predictor::PredictOptions Unshared();

}  // namespace memplan::test

#endif  // MEMPLAN_TESTS_PREDICTION_COMPARE_H_
