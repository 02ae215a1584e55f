// Internal to the collective-measurement parsers: a run being read, and the
// checks every input form shares (which collective, how many ranks, whether
// busbw agrees with nccl-tests' definition).
#ifndef MEMPLAN_PARSERS_COLLECTIVE_RUNS_H_
#define MEMPLAN_PARSERS_COLLECTIVE_RUNS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ir/collective.h"
#include "ir/collective_measurements.h"
#include "parsers/collective_measurements_parser.h"
#include "parsers/source_text.h"

namespace memplan::parsers::internal {

// What a piece of the input says the collective is, and where.
struct KindHint {
  std::optional<ir::CollectiveKind> kind;
  const char* at = nullptr;
  std::string words;  // how the input said it: "program all_gather_perf"
};

struct PendingRun {
  ir::CollectiveRun run;
  const char* at = nullptr;  // the table's header (or the JSON's results)
  KindHint program;          // the tool naming itself (most trusted)
  KindHint command;          // a command line echoed into the text
  std::string redop;         // of the first row, for inference
  // Per sample, where its busbw was written (for errors).
  std::vector<const char*> busbw_at;
};

// The program name of an nccl-tests binary in `text` ("all_reduce_perf",
// "./build/alltoall_perf_mpi"): its collective, or nullopt. `*at` is set to
// where the name starts.
std::optional<ir::CollectiveKind> CollectiveOfProgram(std::string_view text, size_t* at);

// Settles the run's collective and rank count and checks each sample's
// busbw against algbw x BusBandwidthFactor. Errors are located; the
// collective being unknown is FailedPrecondition.
absl::Status FinishRun(const SourceText& source, const CollectiveParseOptions& options,
                       PendingRun& pending, ir::Diagnostics& diagnostics);

}  // namespace memplan::parsers::internal

#endif  // MEMPLAN_PARSERS_COLLECTIVE_RUNS_H_
