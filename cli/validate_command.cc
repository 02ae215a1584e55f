#include <cstdio>
#include <fstream>

#include "cli/executor_commands.h"
#include "cli/executor_run.h"
#include "cli/output_file.h"
#include "executor/plan_json.h"
#include "executor/program_plan.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "viz/describe.h"
#include "parsers/load_program.h"
#include "viz/validate_report.h"

namespace memplan::cli {
namespace {

constexpr int kOk = 0;
constexpr int kCheckFailed = 1;
constexpr int kBadInput = 2;

bool IsPlanFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return executor::LooksLikePlanJson(head);
}

// A plan file, or any input `memplan analyze` reads as a one-rank plan.
absl::StatusOr<executor::ExecutorPlan> LoadPlan(const ValidateFlags& flags, std::string* note) {
  if (IsPlanFile(flags.path)) {
    absl::StatusOr<std::shared_ptr<const parsers::SourceText>> source = parsers::SourceText::FromFile(flags.path);
    if (!source.ok()) return source.status();
    return executor::ParsePlanJson(**source);
  }
  parsers::LoadOptions options;
  options.module = flags.module;
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(flags.path, options);
  if (!loaded.ok()) return loaded.status();
  *note = viz::DescribeModuleChoice(*loaded);
  return executor::PlanFromProgram(loaded->program);
}

absl::Status ParseInjection(const std::string& text, executor::ReplayOptions* options) {
  if (text.empty()) return absl::OkStatus();
  int rank = -1;
  long long step = -1;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%d:%lld%c", &rank, &step, &tail) != 2 || rank < 0 || step < 0) {
    return absl::InvalidArgumentError(StrCat("--inject-failure: expected RANK:STEP; got '", text, "'"));
  }
  options->inject_failure_rank = rank;
  options->inject_failure_step = step;
  return absl::OkStatus();
}

absl::StatusOr<executor::ReplayOptions> ReplayOptionsFrom(const ValidateFlags& flags) {
  executor::ReplayOptions options;
  options.timeout_seconds = flags.common.timeout_seconds;
  if (flags.mode == AllocationModeFlag::kArena) options.mode = executor::AllocationMode::kArena;
  if (flags.mode == AllocationModeFlag::kPool) options.mode = executor::AllocationMode::kPool;
  RETURN_IF_ERROR(ParseInjection(flags.inject_failure, &options));
  return options;
}

// Writes the lead's report and every rank's problem to stderr (each rank
// says its own when the reports could not be exchanged); returns the exit
// code, `code` unless writing failed.
int ReportValidation(const ValidateFlags& flags, executor::MpiSession& session,
                     const executor::ExecutorPlan& plan, const executor::ValidationReport& report, int code) {
  const bool lead = session.rank() == 0;
  bool exchanged = true;
  for (const executor::RankReport& rank : report.ranks) {
    exchanged = exchanged && rank.outcome != executor::RankOutcome::kNotReported;
  }
  if (!exchanged && !lead) {
    const std::string mine = viz::RankProblemSentence(report.ranks[session.rank()]);
    if (!mine.empty()) ReportExecutorError(&session, mine);
  }
  if (!lead) return code;
  const viz::ValidateViewInput view{plan, report, flags.max_peak_error_percent};
  const std::string rendered = flags.common.format == ExecutorFormat::kJson   ? viz::RenderValidateJson(view)
                               : flags.common.format == ExecutorFormat::kHtml ? viz::RenderValidateHtml(view)
                                                                              : viz::RenderValidateText(view);
  if (absl::Status written = WriteOutput(flags.common.output, rendered); !written.ok()) {
    ReportExecutorError(nullptr, written);
    code = kBadInput;
  }
  // Problems also go to stderr, whatever the format and destination.
  for (const executor::RankReport& rank : report.ranks) {
    const std::string problem = viz::RankProblemSentence(rank);
    if (!problem.empty()) ReportExecutorError(nullptr, problem);
  }
  return code;
}

}  // namespace

int RunValidate(const ValidateFlags& flags) {
  absl::StatusOr<std::unique_ptr<executor::MpiSession>> started = executor::MpiSession::Start();
  if (!started.ok()) {
    ReportExecutorError(nullptr, started.status());
    return kBadInput;
  }
  executor::MpiSession& session = **started;
  const bool lead = session.rank() == 0;
  auto finish = [&](int code) { return session.Finish(code, flags.common.timeout_seconds); };
  auto fail = [&](const absl::Status& status) {
    if (lead) ReportExecutorError(nullptr, status);
    return finish(kBadInput);
  };
  absl::StatusOr<executor::ReplayOptions> options = ReplayOptionsFrom(flags);
  if (!options.ok()) return fail(options.status());
  absl::StatusOr<executor::BackendFactory> factory = BackendFactoryFor(flags.common, session);
  if (!factory.ok()) return fail(factory.status());
  std::string choice;
  absl::StatusOr<executor::ExecutorPlan> plan = LoadPlan(flags, &choice);
  if (!plan.ok()) return fail(plan.status());
  if (lead && !choice.empty()) ReportExecutorError(nullptr, choice);

  absl::StatusOr<executor::ValidationReport> report =
      executor::RunValidation(*plan, session, *factory, *options);
  if (!report.ok()) {
    if (absl::IsInvalidArgument(report.status())) return fail(report.status());
    ReportExecutorError(&session, report.status());
    return finish(kBadInput);
  }
  report->plan_path = flags.path;
  const executor::ValidationVerdict verdict = executor::Judge(*report, flags.max_peak_error_percent);
  const int code = verdict.ranks_failed > 0 ? kBadInput : verdict.ok() ? kOk : kCheckFailed;
  return finish(ReportValidation(flags, session, *plan, *report, code));
}

}  // namespace memplan::cli
