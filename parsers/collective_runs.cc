#include "parsers/collective_runs.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "absl/strings/str_format.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::parsers::internal {
namespace {

using ir::CollectiveKind;

// nccl-tests' binaries: <name>_perf[suffix].
constexpr struct {
  std::string_view program;
  CollectiveKind kind;
} kPrograms[] = {
    {"all_reduce_perf", CollectiveKind::kAllReduce},
    {"all_gather_perf", CollectiveKind::kAllGather},
    {"reduce_scatter_perf", CollectiveKind::kReduceScatter},
    {"alltoall_perf", CollectiveKind::kAllToAll},
    {"sendrecv_perf", CollectiveKind::kSendRecv},
    {"broadcast_perf", CollectiveKind::kBroadcast},
    {"reduce_perf", CollectiveKind::kReduce},
};

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Samples precise enough to compare bandwidths: bandwidths are printed
// with two decimals.
bool Comparable(const ir::CollectiveSample& s) {
  return std::isfinite(s.algbw_gbps) && std::isfinite(s.busbw_gbps) && s.algbw_gbps >= 1.0;
}

bool Near(double a, double b) { return std::fabs(a - b) <= 0.02 * std::fabs(b) + 0.011; }

std::string FactorWords(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "2(n-1)/n";
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
      return "(n-1)/n";
    default:
      return "1";
  }
}

bool IsReductionOp(std::string_view redop) {
  return redop == "sum" || redop == "prod" || redop == "max" || redop == "min" ||
         redop == "avg" || redop == "mulsum";
}

// All-reduce and reduce-scatter tell themselves apart from their busbw/algbw
// ratio when the rank count is known (n >= 3); the rest do not.
std::optional<CollectiveKind> InferKind(const PendingRun& pending) {
  const int64_t n = pending.run.ranks;
  if (n < 3) return std::nullopt;
  for (const ir::CollectiveSample& s : pending.run.samples) {
    if (!Comparable(s)) continue;
    const double ratio = s.busbw_gbps / s.algbw_gbps;
    if (Near(ratio * s.algbw_gbps,
             ir::BusBandwidthFactor(CollectiveKind::kAllReduce, n) * s.algbw_gbps)) {
      return CollectiveKind::kAllReduce;
    }
    if (IsReductionOp(pending.redop) &&
        Near(ratio * s.algbw_gbps,
             ir::BusBandwidthFactor(CollectiveKind::kReduceScatter, n) * s.algbw_gbps)) {
      return CollectiveKind::kReduceScatter;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

absl::Status ResolveKind(const SourceText& source, const CollectiveParseOptions& options,
                         PendingRun& pending, ir::Diagnostics& diagnostics) {
  const std::optional<CollectiveKind> given = options.collective;
  for (const KindHint* hint : {&pending.program, &pending.command}) {
    if (hint->kind && given && *hint->kind != *given) {
      return source.ErrorAt(
          hint->at, StrCat("the output names ", hint->words, " (",
                           ir::CollectiveName(*hint->kind), "), but the collective was given as ",
                           ir::CollectiveName(*given)));
    }
  }
  if (pending.program.kind && pending.command.kind &&
      *pending.program.kind != *pending.command.kind) {
    diagnostics.Warn("an echoed command line and the program's own name disagree (the name wins)",
                     source.LocationString(pending.command.at));
  }
  std::optional<CollectiveKind> kind = pending.program.kind;
  if (!kind) kind = pending.command.kind;
  if (!kind) kind = given;
  if (!kind) kind = options.name_hint;
  if (!kind) kind = InferKind(pending);
  if (!kind) {
    return absl::FailedPreconditionError(
        source.ErrorAt(pending.at,
                       "expected the name of the collective this table measures: the output "
                       "does not say (nccl-tests prints it only since 2.17), nor does the "
                       "file name")
            .message());
  }
  pending.run.kind = *kind;
  return absl::OkStatus();
}

// The rank count from busbw/algbw, for outputs that list no devices.
absl::Status InferRanks(const SourceText& source, PendingRun& pending) {
  ir::CollectiveRun& run = pending.run;
  for (size_t i = 0; i < run.samples.size(); ++i) {
    const ir::CollectiveSample& s = run.samples[i];
    if (!Comparable(s)) continue;
    const double r = s.busbw_gbps / s.algbw_gbps;
    const double limit = run.kind == CollectiveKind::kAllReduce ? 2.0 : 1.0;
    if (r < limit) {
      const double estimate = run.kind == CollectiveKind::kAllReduce ? 2.0 / (2.0 - r)
                                                                      : 1.0 / (1.0 - r);
      const int64_t n = std::llround(estimate);
      if (n >= 1 && n <= (int64_t{1} << 24) &&
          Near(ir::BusBandwidthFactor(run.kind, n) * s.algbw_gbps, s.busbw_gbps)) {
        run.ranks = n;
        return absl::OkStatus();
      }
    }
    return source.ErrorAt(
        pending.busbw_at[i],
        absl::StrFormat("expected busbw = algbw x %s for %s: the output lists no devices, and "
                        "busbw/algbw = %.4g fits no rank count",
                        FactorWords(run.kind), ir::CollectiveName(run.kind), r));
  }
  return absl::OkStatus();  // nothing precise enough: ranks stay unknown
}

}  // namespace

std::optional<ir::CollectiveKind> CollectiveOfProgram(std::string_view text, size_t* at) {
  for (const auto& p : kPrograms) {
    size_t from = 0;
    while (true) {
      const size_t found = text.find(p.program, from);
      if (found == std::string_view::npos) break;
      from = found + 1;
      // Whole word on the left ("reduce_perf" inside "all_reduce_perf" is
      // not a match); a suffix (_mpi, NAME_SUFFIX) may follow.
      if (found > 0 && IsNameChar(text[found - 1])) continue;
      if (at != nullptr) *at = found;
      return p.kind;
    }
  }
  return std::nullopt;
}

absl::Status FinishRun(const SourceText& source, const CollectiveParseOptions& options,
                       PendingRun& pending, ir::Diagnostics& diagnostics) {
  RETURN_IF_ERROR(ResolveKind(source, options, pending, diagnostics));
  ir::CollectiveRun& run = pending.run;
  if (run.ranks == 0 && ir::BusFactorDependsOnRanks(run.kind)) {
    RETURN_IF_ERROR(InferRanks(source, pending));
  }
  const bool ranks_known = run.ranks > 0 || !ir::BusFactorDependsOnRanks(run.kind);
  int64_t wrong_rows = 0;
  for (size_t i = 0; i < run.samples.size(); ++i) {
    const ir::CollectiveSample& s = run.samples[i];
    if (s.wrong_elements.value_or(0) > 0) ++wrong_rows;
    if (!ranks_known || !Comparable(s)) continue;
    const double factor = ir::BusBandwidthFactor(run.kind, std::max<int64_t>(run.ranks, 1));
    if (!Near(s.busbw_gbps, s.algbw_gbps * factor)) {
      return source.ErrorAt(
          pending.busbw_at[i],
          absl::StrFormat("expected busbw = algbw x %s = %.2f for %s over %d ranks, found %.2f "
                          "(%.4g x algbw): is this another collective or rank count?",
                          FactorWords(run.kind), s.algbw_gbps * factor,
                          ir::CollectiveName(run.kind), run.ranks, s.busbw_gbps,
                          s.busbw_gbps / s.algbw_gbps));
    }
  }
  if (wrong_rows > 0) {
    diagnostics.Warn("rows report wrong results (#wrong > 0); their times are kept", run.location);
  }
  return absl::OkStatus();
}

}  // namespace memplan::parsers::internal
