// `memplan bench-collectives` as a library call: an nccl-tests-style sweep
// of all-reduce, all-gather, reduce-scatter and all-to-all over all ranks,
// sizes from min to max growing by a factor. For each size: one checked run
// (wrong elements counted), `warmup` untimed iterations, then `iterations`
// timed back to back; the time is the mean per iteration, averaged over
// ranks, as nccl-tests reports it.
#ifndef MEMPLAN_EXECUTOR_COLLECTIVE_BENCH_H_
#define MEMPLAN_EXECUTOR_COLLECTIVE_BENCH_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "executor/backend.h"
#include "executor/coordinator.h"
#include "executor/report.h"

namespace memplan::executor {

struct CollectiveBenchOptions {
  int64_t min_bytes = 32;
  int64_t max_bytes = 32 << 20;
  int64_t factor = 2;  // >= 2
  int iterations = 20;
  int warmup = 5;
  ir::DType dtype = ir::DType::kF32;
  std::vector<CollectiveKind> kinds = {CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
                                       CollectiveKind::kReduceScatter, CollectiveKind::kAllToAll};
  double timeout_seconds = 120;
};

// The sizes swept for one collective over `ranks` ranks: min, min*factor,
// ... up to max, each rounded down to a whole number of elements per rank
// (at least one), without repeats.
std::vector<int64_t> SweepSizes(const CollectiveBenchOptions& options, CollectiveKind kind, int ranks);

// Runs on every rank; every rank gets the same report. An error from any
// rank (a timeout, a failed allocation) ends the sweep on all ranks and is
// returned, prefixed with the rank that had it.
absl::StatusOr<CollectiveBenchReport> RunCollectiveBench(Coordinator& coordinator, Backend& backend,
                                                         const CollectiveBenchOptions& options);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_COLLECTIVE_BENCH_H_
