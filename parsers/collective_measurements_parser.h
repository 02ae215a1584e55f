// Measured collective timings, in the three forms memplan reads:
//   - nccl-tests' standard output (the text table), every layout since 2017:
//     "size count type [redop] [root] time algbw busbw error|#wrong" twice
//     (out-of-place, in-place), old millisecond tables, OpenMPI's
//     "[1,0]<stdout>:" prefixes, NCCL log lines in between, several runs
//     in one file;
//   - nccl-tests' JSON (-J, nccl-tests >= 2.17.3, file versions 1 to 3);
//   - memplan's own memplan.collectives.v1 JSON and text (`memplan
//     bench-collectives`, docs/collectives-json.md), and the per-rank
//     "collectives" of memplan.validate.v1 (`memplan validate`).
// Each run becomes an ir::CollectiveRun. See docs/cost-model.md, "Calibration".
#ifndef MEMPLAN_PARSERS_COLLECTIVE_MEASUREMENTS_PARSER_H_
#define MEMPLAN_PARSERS_COLLECTIVE_MEASUREMENTS_PARSER_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/collective.h"
#include "ir/collective_measurements.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

struct CollectiveParseOptions {
  // Which collective the input measures, from the user. nccl-tests prints
  // its program name only since 2.17; when the input names one too, the two
  // must agree.
  std::optional<ir::CollectiveKind> collective;
  // A weaker hint (the file name's, see CollectiveFromFileName), used only
  // when neither the input nor `collective` says.
  std::optional<ir::CollectiveKind> name_hint;
};

// nccl-tests' standard output. InvalidArgument with file:line:col on
// malformed input; FailedPrecondition (also located) when a table's
// collective cannot be told, so a caller can ask the user to name it.
absl::StatusOr<ir::CollectiveMeasurements> ParseNcclTestsText(
    const SourceText& source, const CollectiveParseOptions& options);

// nccl-tests' -J JSON output.
absl::StatusOr<ir::CollectiveMeasurements> ParseNcclTestsJson(
    const SourceText& source, const CollectiveParseOptions& options);

// memplan.collectives.v1 or memplan.validate.v1. `options.collective`,
// when set, must not contradict the file (each record names its
// collective).
absl::StatusOr<ir::CollectiveMeasurements> ParseMemplanCollectivesJson(
    const SourceText& source, const CollectiveParseOptions& options);

// Picks the parser by content: JSON with a "schema" (memplan.collectives.v1,
// memplan.validate.v1), other JSON (nccl-tests -J), else nccl-tests' text
// (which memplan bench-collectives also prints).
absl::StatusOr<ir::CollectiveMeasurements> ParseCollectiveMeasurements(
    const SourceText& source, const CollectiveParseOptions& options);

// The collective a file name names, ignoring case, '_' and '-':
// "nccl_allgather.log", "all_reduce_perf.txt", "alltoall-8gpu.json".
// nullopt when it names none or more than one.
std::optional<ir::CollectiveKind> CollectiveFromFileName(std::string_view path);

// Reads `path` and parses it; the file name gives options.name_hint.
absl::StatusOr<ir::CollectiveMeasurements> LoadCollectiveMeasurements(
    const std::string& path, std::optional<ir::CollectiveKind> collective);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_COLLECTIVE_MEASUREMENTS_PARSER_H_
