// memplan predict: per-device memory under a sharding plan.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/load_or_report.h"
#include "cli/output_file.h"
#include "cli/plan_file.h"
#include "cli/predict_options.h"
#include "ir/strings.h"
#include "parsers/load_program.h"
#include "predictor/predict.h"
#include "viz/describe.h"
#include "viz/predict_report.h"

namespace memplan::cli {

int RunPredict(const PredictFlags& flags) {
  std::optional<parsers::LoadedProgram> loaded = LoadOrReport(flags.path, flags.module, flags.jaxpr);
  if (!loaded) return kExitBadInput;
  absl::StatusOr<ir::ResolvedPlan> plan = ReadPlanFile(flags.plan, loaded->program.module);
  if (!plan.ok()) return Fail(FromAbsl(plan.status().message()));
  if (loaded->program.input_format == "jaxpr") {
    // A jaxpr says nothing of donation: the plan's `donate` does.
    ir::JaxprProgramOptions options = flags.jaxpr;
    for (const ir::ArgumentPlan& a : plan->arguments) options.donated.push_back(a.donated);
    if (std::find(options.donated.begin(), options.donated.end(), true) != options.donated.end()) {
      absl::StatusOr<ir::Program> program = parsers::LoadJaxprProgram(flags.path, options);
      if (!program.ok()) return Fail(FromAbsl(program.status().message()));
      loaded->program = *std::move(program);
    }
  }
  auto predictor = predictor::Predictor::Create(loaded->program, PredictOptionsFor(flags.assigner));
  if (!predictor.ok()) return Fail(StrCat(flags.path, ": ", FromAbsl(predictor.status().message())));
  absl::StatusOr<predictor::Prediction> prediction = (*predictor)->Predict(*plan);
  if (!prediction.ok()) {
    return Fail(PlanErrorMessage(flags.plan, FromAbsl(prediction.status().message())));
  }
  const viz::PredictReportInput input{loaded->program.module, loaded->program.module_name,
                                      *prediction};
  const std::string report = flags.format == PredictFormat::kJson ? viz::RenderPredictJson(input)
                                                                   : viz::RenderPredictText(input);
  if (absl::Status s = WriteOutput(flags.output, report); !s.ok()) {
    return Fail(FromAbsl(s.message()));
  }
  PrintModuleChoice(*loaded);
  return kExitOk;
}

}  // namespace memplan::cli
