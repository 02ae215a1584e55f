// The predictor's options as the CLI's flags choose them, shared by the
// commands that predict (predict, rank, report --plan).
#ifndef MEMPLAN_CLI_PREDICT_OPTIONS_H_
#define MEMPLAN_CLI_PREDICT_OPTIONS_H_

#include "cli/commands.h"
#include "predictor/predict.h"

namespace memplan::cli {

// The default PredictOptions with `assigner` applied (kRerun:
// reassign_output_allocations, kKeep: not).
inline predictor::PredictOptions PredictOptionsFor(Assigner assigner) {
  predictor::PredictOptions options;
  options.reassign_output_allocations = assigner == Assigner::kRerun;
  return options;
}

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_PREDICT_OPTIONS_H_
