// What a replay measured, per rank, and what a collectives sweep measured.
// Data only: views (viz/validate_report.h) word it and derive bandwidths
// and FLOP/s from it with the functions of executor/collective_data.h.
#ifndef MEMPLAN_EXECUTOR_REPORT_H_
#define MEMPLAN_EXECUTOR_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "executor/plan.h"
#include "executor/wire_types.h"

namespace memplan::executor {

// How a rank's replay ended.
enum class RankOutcome {
  kOk,
  kDoesNotFit,   // the plan needs more than the device has free: not run
  kNoDevice,     // no usable device or driver (or the backend is missing)
  kFailed,       // an error while replaying
  kTimedOut,     // a collective (or GEMM) did not complete in time
  kNotRun,       // another rank failed before the replay started
  kNotReported,  // the rank did not report within the deadline
};
std::string_view RankOutcomeName(RankOutcome outcome);

struct OpMeasurement {
  int64_t index = 0;     // into the rank's ops
  double seconds = 0;    // the whole op (all `count` GEMMs)
  int64_t wrong = 0;     // collective output elements that differ
  bool scratch = false;  // ran on executor scratch, not the plan's buffers
};

struct RankReport {
  int rank = 0;
  RankOutcome outcome = RankOutcome::kOk;
  std::string error;  // when not kOk: what went wrong, from the backend
  int64_t failed_step = -1;  // the step being replayed when it failed

  std::string backend;  // "host", "cuda"
  std::string device;
  AllocationMode mode = AllocationMode::kArena;

  int64_t planned_peak_bytes = 0;   // PlannedPeakBytes
  bool planned_peak_stated = false; // the plan states it (else derived)
  int64_t plan_peak_bytes = 0;      // PlanPeakBytes in `mode`
  int64_t needed_bytes = 0;         // plan_peak_bytes + the most scratch at once
  int64_t measured_peak_bytes = 0;  // MemoryMeasurement::plan_peak_bytes
  int64_t scratch_peak_bytes = 0;
  std::optional<int64_t> reserved_peak_bytes;
  std::optional<int64_t> device_total_bytes;
  std::optional<int64_t> device_free_before_bytes;
  std::optional<int64_t> device_free_min_bytes;
  std::optional<int64_t> device_free_after_bytes;  // after everything was given back

  // Ops' seconds added up (the executor runs them one after another, so this
  // is the step time with no overlap), and the whole replay's wall time.
  double step_seconds = 0;
  double wall_seconds = 0;
  std::vector<OpMeasurement> ops;
};

// (measured - planned) / planned, in percent; 0 when both are 0.
double PeakErrorPercent(const RankReport& report);

struct ValidationReport {
  std::string plan_path;
  std::string backend;
  std::string transport;  // Coordinator::Transport
  std::vector<RankReport> ranks;  // by rank
};

// One row of an nccl-tests-style sweep: times averaged over ranks, wrong
// elements summed over ranks.
struct CollectiveBenchRow {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int64_t bytes = 0;
  WireType type = WireType::kF32;
  double seconds = 0;  // per iteration
  int64_t wrong = 0;
};

struct CollectiveBenchReport {
  std::string backend;
  std::string device;  // rank 0's
  std::string transport;
  int ranks = 1;
  int iterations = 0;
  int warmup = 0;
  std::vector<CollectiveBenchRow> rows;  // by collective, then size
};

// How a validation went, over all ranks: what decides the exit code.
struct ValidationVerdict {
  int ranks_failed = 0;        // no device, failed, timed out, not reported
  int ranks_not_fitting = 0;   // kDoesNotFit
  int64_t wrong_elements = 0;  // over every collective of every rank
  int ranks_over_peak_error = 0;  // |PeakErrorPercent| above the tolerance
  bool ok() const {
    return ranks_failed == 0 && ranks_not_fitting == 0 && wrong_elements == 0 && ranks_over_peak_error == 0;
  }
};

// `max_peak_error_percent`: the tolerance, or none (peaks are then not
// held to the plan).
ValidationVerdict Judge(const ValidationReport& report, std::optional<double> max_peak_error_percent);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_REPORT_H_
