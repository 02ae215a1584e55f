// `memplan predict` sweeps: several candidate plans of one program (plan
// files, family plans) predicted and printed as one table ordered by the
// predicted footprint (predictor/sweep.h, viz/predict_sweep_report.h).
// One plan (`--plan`) is RunPredict in commands.h.
#ifndef MEMPLAN_CLI_PREDICT_COMMANDS_H_
#define MEMPLAN_CLI_PREDICT_COMMANDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/family_inputs.h"
#include "ir/jaxpr_program.h"

namespace memplan::cli {

// memplan predict PROGRAM [--plans A.yaml B.yaml ...]
// [--family LIST (--mesh M ... | --devices N)] [--family-inputs FILE]
// [--data a,b] [--tp-plan FILE] [--ep globs] [--min-fsdp-elements N]
// [--format=text|json] [-o FILE] [--module NAME]
struct PredictSweepFlags {
  std::string path;
  std::string module;
  std::vector<std::string> plans;        // plan files
  std::optional<std::string> families;   // "fsdp,dp+tp"
  // Meshes ("dp=2,tp=4"): each family is predicted on every mesh whose
  // axes are the family's.
  std::vector<std::string> meshes;
  std::optional<int64_t> devices;        // every mesh of N devices instead
  FamilyInputFlags inputs;
  ir::JaxprProgramOptions jaxpr;         // --jaxpr-rules, for a jaxpr PROGRAM
  Assigner assigner = Assigner::kRerun;
  PredictFormat format = PredictFormat::kText;
  std::string output = "-";
};

int RunPredictSweep(const PredictSweepFlags& flags);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_PREDICT_COMMANDS_H_
