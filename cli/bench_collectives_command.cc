#include <sstream>

#include "parsers/byte_count.h"
#include "cli/executor_commands.h"
#include "cli/executor_run.h"
#include "cli/output_file.h"
#include "executor/collective_bench.h"
#include "ir/strings.h"
#include "viz/collectives_report.h"

namespace memplan::cli {
namespace {

constexpr int kOk = 0;
constexpr int kCheckFailed = 1;
constexpr int kBadInput = 2;

absl::Status ParseOptions(const BenchCollectivesFlags& flags, executor::CollectiveBenchOptions* options) {
  const std::optional<int64_t> min_bytes = parsers::ParseByteCount(flags.min_bytes);
  const std::optional<int64_t> max_bytes = parsers::ParseByteCount(flags.max_bytes);
  if (!min_bytes || *min_bytes <= 0) {
    return absl::InvalidArgumentError(StrCat("--min-bytes: expected a byte count such as 32 or 1KiB; got '",
                                             flags.min_bytes, "'"));
  }
  if (!max_bytes || *max_bytes < *min_bytes) {
    return absl::InvalidArgumentError(StrCat("--max-bytes: expected a byte count at least --min-bytes; got '",
                                             flags.max_bytes, "'"));
  }
  if (flags.factor < 2) return absl::InvalidArgumentError("--factor: expected 2 or more");
  if (flags.iterations < 1) return absl::InvalidArgumentError("--iters: expected 1 or more");
  if (flags.warmup < 0) return absl::InvalidArgumentError("--warmup: expected 0 or more");
  const std::optional<ir::DType> dtype = ir::DTypeFromName(flags.dtype);
  if (!dtype || !ir::IsArrayDType(*dtype)) {
    return absl::InvalidArgumentError(StrCat("--dtype: expected an XLA element type (f32, bf16, f16, f64, s32, ...); got '",
                                             flags.dtype, "'"));
  }
  options->min_bytes = *min_bytes;
  options->max_bytes = *max_bytes;
  options->factor = flags.factor;
  options->iterations = flags.iterations;
  options->warmup = flags.warmup;
  options->dtype = *dtype;
  options->timeout_seconds = flags.common.timeout_seconds;
  options->kinds.clear();
  std::stringstream names(flags.collectives);
  std::string name;
  while (std::getline(names, name, ',')) {
    const std::optional<executor::CollectiveKind> kind = executor::CollectiveFromName(name);
    if (!kind) {
      return absl::InvalidArgumentError(StrCat("--collectives: expected all_reduce, all_gather, reduce_scatter, "
                                               "all_to_all or send_recv; got '", name, "'"));
    }
    options->kinds.push_back(*kind);
  }
  if (options->kinds.empty()) return absl::InvalidArgumentError("--collectives: expected at least one collective");
  return absl::OkStatus();
}

// Makes this rank's backend; every rank must have one before any
// collective, so they agree first. An error (the lead says which rank) when
// any rank has none.
absl::StatusOr<std::unique_ptr<executor::Backend>> AgreedBackend(executor::MpiSession& session,
                                                                  const executor::BackendFactory& factory,
                                                                  double timeout_seconds) {
  absl::StatusOr<std::unique_ptr<executor::Backend>> backend = factory();
  absl::StatusOr<std::vector<std::string>> ready = session.AllGather(
      backend.ok() ? std::string("ok") : std::string(backend.status().message()), timeout_seconds);
  if (!ready.ok()) {
    ReportExecutorError(&session, ready.status());
    return ready.status();
  }
  for (int r = 0; r < session.size(); ++r) {
    if ((*ready)[r] == "ok") continue;
    const std::string why = session.size() > 1 ? StrCat("rank ", r, ": ", (*ready)[r]) : (*ready)[r];
    if (session.rank() == 0) ReportExecutorError(nullptr, why);
    return absl::FailedPreconditionError(why);
  }
  return backend;
}

// The lead writes the report; returns the exit code (`code`, or bad input
// when writing failed).
int WriteBenchReport(const BenchCollectivesFlags& flags, const executor::CollectiveBenchReport& report, int code) {
  const std::string rendered = flags.common.format == ExecutorFormat::kJson ? viz::RenderCollectiveBenchJson(report)
                                                                            : viz::RenderCollectiveBenchText(report);
  if (absl::Status written = WriteOutput(flags.common.output, rendered); !written.ok()) {
    ReportExecutorError(nullptr, written);
    code = kBadInput;
  }
  if (code == kCheckFailed) ReportExecutorError(nullptr, "some collectives produced wrong results (#wrong > 0)");
  return code;
}

}  // namespace

int RunBenchCollectives(const BenchCollectivesFlags& flags) {
  if (flags.common.format == ExecutorFormat::kHtml) {
    ReportExecutorError(nullptr, absl::InvalidArgumentError(
                                     "bench-collectives writes text or json; html is for validate"));
    return kBadInput;
  }
  absl::StatusOr<std::unique_ptr<executor::MpiSession>> started = executor::MpiSession::Start();
  if (!started.ok()) {
    ReportExecutorError(nullptr, started.status());
    return kBadInput;
  }
  executor::MpiSession& session = **started;
  const bool lead = session.rank() == 0;
  auto finish = [&](int code) { return session.Finish(code, flags.common.timeout_seconds); };
  executor::CollectiveBenchOptions options;
  if (absl::Status parsed = ParseOptions(flags, &options); !parsed.ok()) {
    if (lead) ReportExecutorError(nullptr, parsed);
    return finish(kBadInput);
  }
  absl::StatusOr<executor::BackendFactory> factory = BackendFactoryFor(flags.common, session);
  if (!factory.ok()) {
    if (lead) ReportExecutorError(nullptr, factory.status());
    return finish(kBadInput);
  }
  absl::StatusOr<std::unique_ptr<executor::Backend>> backend =
      AgreedBackend(session, *factory, flags.common.timeout_seconds);
  if (!backend.ok()) return finish(kBadInput);
  absl::StatusOr<executor::CollectiveBenchReport> report =
      executor::RunCollectiveBench(session, **backend, options);
  if (!report.ok()) {
    ReportExecutorError(&session, report.status());
    return finish(kBadInput);
  }
  int code = kOk;
  for (const executor::CollectiveBenchRow& row : report->rows) {
    if (row.wrong > 0) code = kCheckFailed;
  }
  if (lead) code = WriteBenchReport(flags, *report, code);
  backend->reset();
  return finish(code);
}

}  // namespace memplan::cli
