// memplan report: load, analyze, render one self-contained HTML page.
#include <cstdio>
#include <optional>
#include <string>

#include "analyzer/analysis.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/load_or_report.h"
#include "cli/output_file.h"
#include "cli/plan_file.h"
#include "cli/predict_options.h"
#include "ir/strings.h"
#include "predictor/predict.h"
#include "parsers/load_program.h"
#include "viz/describe.h"
#include "viz/html_report.h"

namespace memplan::cli {

int RunReport(const ReportFlags& flags) {
  if (flags.output.empty()) {
    std::fprintf(stderr, "memplan: report: -o FILE is required\n");
    return kExitBadInput;
  }
  const std::optional<analyzer::AttributionKey> key = analyzer::AttributionKeyFromName(flags.by);
  if (!key) {
    std::fprintf(stderr, "memplan: --by=%s: expected op, source or type\n", flags.by.c_str());
    return kExitBadInput;
  }
  std::optional<parsers::LoadedProgram> loaded = LoadOrReport(flags.path, flags.module);
  if (!loaded) return kExitBadInput;
  // With a plan: the predicted per-device memory, as `memplan predict`.
  std::optional<predictor::Prediction> prediction;
  if (!flags.plan.empty()) {
    absl::StatusOr<ir::ResolvedPlan> plan = ReadPlanFile(flags.plan, loaded->program.module);
    if (!plan.ok()) {
      PrintError(plan.status());
      return kExitBadInput;
    }
    auto predictor = predictor::Predictor::Create(loaded->program, PredictOptionsFor(flags.assigner));
    if (!predictor.ok()) {
      PrintError(absl::InvalidArgumentError(
          StrCat(flags.path, ": ", FromAbsl(predictor.status().message()))));
      return kExitBadInput;
    }
    absl::StatusOr<predictor::Prediction> predicted = (*predictor)->Predict(*plan);
    if (!predicted.ok()) {
      PrintError(absl::InvalidArgumentError(
          PlanErrorMessage(flags.plan, FromAbsl(predicted.status().message()))));
      return kExitBadInput;
    }
    prediction = *std::move(predicted);
  }
  analyzer::Analysis::Options options;
  options.attribution_key = *key;
  const viz::HtmlReportLimits limits;
  options.top_n = limits.table_rows;
  const analyzer::Analysis analysis = analyzer::Analysis::Run(loaded->program, options);
  viz::HtmlReportInput input{loaded->program, analysis, viz::DescribeModuleChoice(*loaded), limits};
  if (prediction) input.prediction = &*prediction;
  const std::string html = viz::RenderHtmlReport(input);
  if (absl::Status written = WriteOutput(flags.output, html); !written.ok()) {
    PrintError(written);
    return kExitBadInput;
  }
  if (flags.output != "-") PrintModuleChoice(*loaded);
  return kExitOk;
}

}  // namespace memplan::cli
