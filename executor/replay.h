// `memplan validate` as a library call: every rank replays its part of a
// plan on a backend and the ranks exchange what they measured.
//
// On each rank: make the backend; check that the plan fits the device's free
// memory; agree with the other ranks that all can go on; make the groups'
// communicators; replay (allocate and touch each buffer when its live range
// starts, run the ops of each step in order, free each buffer after its
// range ends); measure; free everything (on every path); exchange reports.
// A rank that fails stops; its peers time out in their next collective with
// it; every rank still reports.
#ifndef MEMPLAN_EXECUTOR_REPLAY_H_
#define MEMPLAN_EXECUTOR_REPLAY_H_

#include <functional>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "executor/backend.h"
#include "executor/coordinator.h"
#include "executor/plan.h"
#include "executor/report.h"

namespace memplan::executor {

using BackendFactory = std::function<absl::StatusOr<std::unique_ptr<Backend>>()>;

struct ReplayOptions {
  // Default: DefaultAllocationMode of each rank. Arena mode needs an arena.
  std::optional<AllocationMode> mode;
  // Each collective, GEMM and exchange between ranks must complete within
  // this. The final exchange of reports waits up to 2 x this + 30 s, as
  // ranks finish their replays at different times.
  double timeout_seconds = 120;
  // For tests of failure handling: rank `inject_failure_rank` stops with an
  // error when it reaches step `inject_failure_step`.
  std::optional<int> inject_failure_rank;
  int64_t inject_failure_step = 0;
};

// Runs on every rank. InvalidArgument when the plan's ranks do not match
// the processes (every rank returns it); DeadlineExceeded / Internal when
// the ranks could not exchange their reports. Otherwise every rank's
// report, on every rank, whatever happened in the replays.
absl::StatusOr<ValidationReport> RunValidation(const ExecutorPlan& plan, Coordinator& coordinator,
                                               const BackendFactory& make_backend,
                                               const ReplayOptions& options);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_REPLAY_H_
