#include "executor/replay.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "executor/collective_data.h"
#include "executor/report_wire.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::executor {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Memory taken from a backend, given back when this goes out of scope
// whatever happened.
class Holdings {
 public:
  explicit Holdings(Backend& backend) : backend_(backend) {}
  ~Holdings() {
    for (void* ptr : held_) backend_.Free(ptr).IgnoreError();
  }
  Holdings(const Holdings&) = delete;
  Holdings& operator=(const Holdings&) = delete;

  absl::StatusOr<void*> Take(int64_t bytes, MemoryPool pool) {
    ASSIGN_OR_RETURN(void* ptr, backend_.Allocate(bytes, pool));
    held_.push_back(ptr);
    return ptr;
  }
  absl::Status Give(void* ptr) {
    auto it = std::find(held_.rbegin(), held_.rend(), ptr);
    if (it != held_.rend()) held_.erase(std::next(it).base());
    return backend_.Free(ptr);
  }

 private:
  Backend& backend_;
  std::vector<void*> held_;
};

// Replays one rank's plan on a connected backend, filling `report`'s
// measurements. Returns the first error; `report->failed_step` says where.
class RankReplay {
 public:
  RankReplay(const RankPlan& rank, const std::map<std::vector<int>, int>& group_index, Backend& backend,
             AllocationMode mode, const ReplayOptions& options, RankReport* report)
      : rank_(rank), group_index_(group_index), backend_(backend), mode_(mode), options_(options),
        report_(report), holdings_(backend) {}

  absl::Status Run();

 private:
  absl::Status Step(int64_t step, size_t& next_start, size_t& next_op, size_t& next_end);
  absl::Status RunOp(size_t index);
  absl::Status RunGemm(const PlanOp& op, OpMeasurement* m);
  absl::Status RunCollective(const PlanOp& op, OpMeasurement* m);
  char* Buffer(int64_t id) const { return static_cast<char*>(live_.at(id)); }
  // `bytes` of operand memory: the plan's buffer `id` when given, else
  // scratch (added to `scratch`, given back by the caller).
  absl::StatusOr<char*> Operand(const std::optional<int64_t>& id, int64_t bytes, std::vector<void*>* scratch);

  const RankPlan& rank_;
  const std::map<std::vector<int>, int>& group_index_;
  Backend& backend_;
  AllocationMode mode_;
  const ReplayOptions& options_;
  RankReport* report_;
  Holdings holdings_;
  void* arena_ = nullptr;
  absl::flat_hash_map<int64_t, void*> live_;
  std::vector<const PlanBuffer*> by_start_;
  std::vector<const PlanBuffer*> by_end_;
};

absl::StatusOr<char*> RankReplay::Operand(const std::optional<int64_t>& id, int64_t bytes,
                                          std::vector<void*>* scratch) {
  if (id) return Buffer(*id);
  ASSIGN_OR_RETURN(void* ptr, holdings_.Take(bytes, MemoryPool::kScratch));
  scratch->push_back(ptr);
  RETURN_IF_ERROR(backend_.Touch(ptr, bytes));
  return static_cast<char*>(ptr);
}

absl::Status RankReplay::RunGemm(const PlanOp& op, OpMeasurement* m) {
  const GemmOp& g = op.gemm;
  std::vector<void*> scratch;
  ASSIGN_OR_RETURN(char* a, Operand(g.a, GemmOperandBytes(g, 'a'), &scratch));
  ASSIGN_OR_RETURN(char* b, Operand(g.b, GemmOperandBytes(g, 'b'), &scratch));
  ASSIGN_OR_RETURN(char* c, Operand(g.c, GemmOperandBytes(g, 'c'), &scratch));
  m->scratch = !scratch.empty();
  ASSIGN_OR_RETURN(m->seconds, backend_.Gemm(g, a, b, c, options_.timeout_seconds));
  for (void* ptr : scratch) RETURN_IF_ERROR(holdings_.Give(ptr));
  return absl::OkStatus();
}

absl::Status RankReplay::RunCollective(const PlanOp& op, OpMeasurement* m) {
  const CollectiveOp& c = op.collective;
  const int n = static_cast<int>(c.group.size());
  const int position =
      static_cast<int>(std::find(c.group.begin(), c.group.end(), rank_.rank) - c.group.begin());
  const WireLayout layout = WireLayoutFor(c.dtype);
  const CollectiveData data(c.kind, layout.type, n, position);
  const int64_t in_bytes = CollectiveInputBytes(c);
  const int64_t out_bytes = CollectiveOutputBytes(c);
  std::vector<void*> scratch;
  char* input = nullptr;
  char* output = nullptr;
  if (c.input && c.output && *c.input == *c.output) {
    // In place, as NCCL means it: an all-gather's input is this rank's
    // slot of the output; a reduce-scatter's output is this rank's slot of
    // the input.
    char* buffer = Buffer(*c.input);
    input = output = buffer;
    if (c.kind == CollectiveKind::kAllGather) input = buffer + position * in_bytes;
    if (c.kind == CollectiveKind::kReduceScatter) output = buffer + position * out_bytes;
  } else {
    ASSIGN_OR_RETURN(input, Operand(c.input, in_bytes, &scratch));
    ASSIGN_OR_RETURN(output, Operand(c.output, out_bytes, &scratch));
  }
  m->scratch = !scratch.empty();
  std::vector<char> host(static_cast<size_t>(std::max(in_bytes, out_bytes)));
  data.FillInput(host.data(), data.InputElements(c.bytes));
  RETURN_IF_ERROR(backend_.CopyToDevice(input, host.data(), in_bytes));
  CollectiveCall call;
  call.kind = c.kind;
  call.type = layout.type;
  call.bytes = c.bytes;
  call.group_index = group_index_.at(c.group);
  call.input = input;
  call.output = output;
  call.iterations = 1;
  call.timeout_seconds = options_.timeout_seconds;
  ASSIGN_OR_RETURN(m->seconds, backend_.Collective(call));
  RETURN_IF_ERROR(backend_.CopyToHost(host.data(), output, out_bytes));
  m->wrong = data.CountWrong(host.data(), c.bytes);
  for (void* ptr : scratch) RETURN_IF_ERROR(holdings_.Give(ptr));
  return absl::OkStatus();
}

absl::Status RankReplay::RunOp(size_t index) {
  const PlanOp& op = rank_.ops[index];
  OpMeasurement m;
  m.index = static_cast<int64_t>(index);
  RETURN_IF_ERROR(op.kind == PlanOp::Kind::kGemm ? RunGemm(op, &m) : RunCollective(op, &m));
  report_->step_seconds += m.seconds;
  report_->ops.push_back(m);
  return absl::OkStatus();
}

absl::Status RankReplay::Step(int64_t step, size_t& next_start, size_t& next_op, size_t& next_end) {
  if (options_.inject_failure_rank == rank_.rank && step >= options_.inject_failure_step) {
    return absl::InternalError(StrCat("failure injected at step ", options_.inject_failure_step, " for testing"));
  }
  for (; next_start < by_start_.size() && by_start_[next_start]->start == step; ++next_start) {
    const PlanBuffer& b = *by_start_[next_start];
    void* ptr = nullptr;
    if (mode_ == AllocationMode::kArena) {
      ptr = static_cast<char*>(arena_) + *b.offset;
    } else {
      ASSIGN_OR_RETURN(ptr, holdings_.Take(b.bytes, MemoryPool::kPlan));
    }
    RETURN_IF_ERROR(backend_.Touch(ptr, b.bytes));
    live_[b.id] = ptr;
  }
  for (; next_op < rank_.ops.size() && rank_.ops[next_op].step == step; ++next_op) {
    RETURN_IF_ERROR(RunOp(next_op));
  }
  for (; next_end < by_end_.size() && by_end_[next_end]->end == step; ++next_end) {
    const PlanBuffer& b = *by_end_[next_end];
    if (mode_ == AllocationMode::kPool) RETURN_IF_ERROR(holdings_.Give(live_.at(b.id)));
    live_.erase(b.id);
  }
  return absl::OkStatus();
}

absl::Status RankReplay::Run() {
  for (const PlanBuffer& b : rank_.buffers) {
    by_start_.push_back(&b);
    by_end_.push_back(&b);
  }
  // Stable sorts on id-sorted buffers: ties stay in id order.
  std::stable_sort(by_start_.begin(), by_start_.end(),
                   [](const PlanBuffer* a, const PlanBuffer* b) { return a->start < b->start; });
  std::stable_sort(by_end_.begin(), by_end_.end(),
                   [](const PlanBuffer* a, const PlanBuffer* b) { return a->end < b->end; });
  std::vector<int64_t> steps;
  for (const PlanBuffer& b : rank_.buffers) {
    steps.push_back(b.start);
    steps.push_back(b.end);
  }
  for (const PlanOp& op : rank_.ops) steps.push_back(op.step);
  if (options_.inject_failure_rank == rank_.rank) steps.push_back(options_.inject_failure_step);
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());

  const Clock::time_point start = Clock::now();
  if (mode_ == AllocationMode::kArena) {
    ASSIGN_OR_RETURN(arena_, holdings_.Take(ArenaBytes(rank_), MemoryPool::kArena));
  }
  size_t next_start = 0, next_op = 0, next_end = 0;
  for (int64_t step : steps) {
    report_->failed_step = step;
    RETURN_IF_ERROR(Step(step, next_start, next_op, next_end));
  }
  report_->failed_step = -1;
  RETURN_IF_ERROR(backend_.Synchronize(options_.timeout_seconds));
  report_->wall_seconds = SecondsSince(start);
  if (arena_ != nullptr) RETURN_IF_ERROR(holdings_.Give(arena_));
  arena_ = nullptr;
  return absl::OkStatus();
}

RankOutcome OutcomeOf(const absl::Status& status) {
  if (absl::IsDeadlineExceeded(status)) return RankOutcome::kTimedOut;
  return RankOutcome::kFailed;
}

// The statuses of every rank, agreed: true when all ranks are still ok.
absl::StatusOr<bool> AllOk(Coordinator& coordinator, const RankReport& mine, double timeout) {
  ASSIGN_OR_RETURN(std::vector<std::string> all,
                   coordinator.AllGather(mine.outcome == RankOutcome::kOk ? "ok" : "failed", timeout));
  for (const std::string& s : all) {
    if (s != "ok") return false;
  }
  return true;
}

// Makes this rank's backend and checks that the plan fits its free memory,
// recording the outcome in `report`; null when no backend could be made.
std::unique_ptr<Backend> OpenBackend(const RankPlan& rank, const BackendFactory& make_backend,
                                     RankReport* report) {
  absl::StatusOr<std::unique_ptr<Backend>> made = make_backend();
  if (!made.ok()) {
    report->outcome = RankOutcome::kNoDevice;
    report->error = std::string(made.status().message());
    return nullptr;
  }
  std::unique_ptr<Backend> backend = *std::move(made);
  report->backend = backend->Name();
  report->device = backend->DeviceDescription();
  if (report->mode == AllocationMode::kArena && DefaultAllocationMode(rank) != AllocationMode::kArena) {
    report->outcome = RankOutcome::kFailed;
    report->error = "arena mode needs an offset for every buffer; this rank's plan has none for some";
  } else if (absl::StatusOr<DeviceMemoryInfo> memory = backend->QueryMemory(); !memory.ok()) {
    report->outcome = RankOutcome::kNoDevice;
    report->error = std::string(memory.status().message());
  } else {
    report->device_total_bytes = memory->total_bytes;
    report->device_free_before_bytes = memory->free_bytes;
    if (report->needed_bytes > memory->free_bytes) report->outcome = RankOutcome::kDoesNotFit;
  }
  return backend;
}

// Whether every rank may go on; a rank told to stop that had no problem of
// its own is marked not run.
absl::StatusOr<bool> AllGo(Coordinator& coordinator, const ReplayOptions& options, RankReport* report) {
  ASSIGN_OR_RETURN(bool go, AllOk(coordinator, *report, options.timeout_seconds));
  if (!go && report->outcome == RankOutcome::kOk) report->outcome = RankOutcome::kNotRun;
  return go;
}

void RecordMeasurement(const MemoryMeasurement& measured, RankReport* report) {
  report->measured_peak_bytes = measured.plan_peak_bytes;
  report->scratch_peak_bytes = measured.scratch_peak_bytes;
  report->reserved_peak_bytes = measured.reserved_peak_bytes;
  report->device_free_min_bytes = measured.free_min_bytes;
  report->device_free_after_bytes = measured.free_now_bytes;
}

// Measures, fit check, connect and replay on this rank, into `report`.
// Returns an error only when the ranks cannot agree (the control plane
// failed); the replay's own errors land in the report.
absl::Status RunRank(const ExecutorPlan& plan, Coordinator& coordinator, const BackendFactory& make_backend,
                     const ReplayOptions& options, RankReport* report) {
  const RankPlan& rank = plan.ranks[coordinator.rank()];
  report->mode = options.mode.value_or(DefaultAllocationMode(rank));
  report->planned_peak_stated = rank.planned_peak_bytes.has_value();
  report->planned_peak_bytes = PlannedPeakBytes(rank, report->mode);
  report->plan_peak_bytes = PlanPeakBytes(rank, report->mode);
  report->needed_bytes = report->plan_peak_bytes + MaxScratchBytes(rank);

  std::unique_ptr<Backend> backend = OpenBackend(rank, make_backend, report);
  ASSIGN_OR_RETURN(bool go, AllGo(coordinator, options, report));
  if (!go) return absl::OkStatus();
  const std::vector<std::vector<int>> groups = CollectiveGroups(plan);
  std::map<std::vector<int>, int> group_index;
  for (size_t i = 0; i < groups.size(); ++i) group_index[groups[i]] = static_cast<int>(i);
  if (absl::Status connected = backend->Connect(groups, options.timeout_seconds); !connected.ok()) {
    report->outcome = OutcomeOf(connected);
    report->error = StrCat("connecting the ranks: ", connected.message());
  }
  ASSIGN_OR_RETURN(go, AllGo(coordinator, options, report));
  if (!go) return absl::OkStatus();
  {
    RankReplay replay(rank, group_index, *backend, report->mode, options, report);
    if (absl::Status replayed = replay.Run(); !replayed.ok()) {
      report->outcome = OutcomeOf(replayed);
      report->error = std::string(replayed.message());
    }
  }  // everything the replay held is given back here
  RecordMeasurement(backend->Measure(), report);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ValidationReport> RunValidation(const ExecutorPlan& plan, Coordinator& coordinator,
                                               const BackendFactory& make_backend, const ReplayOptions& options) {
  if (static_cast<int>(plan.ranks.size()) != coordinator.size()) {
    return absl::InvalidArgumentError(
        StrCat("the plan has ", plan.ranks.size(), plan.ranks.size() == 1 ? " rank" : " ranks", " but ",
               coordinator.size(), coordinator.size() == 1 ? " process was" : " processes were",
               " started; start one process per rank (mpirun -np ", plan.ranks.size(), ")"));
  }
  RankReport mine;
  mine.rank = coordinator.rank();
  RETURN_IF_ERROR(RunRank(plan, coordinator, make_backend, options, &mine));
  absl::StatusOr<std::vector<std::string>> wires =
      coordinator.AllGather(RankReportToWire(mine), 2 * options.timeout_seconds + 30);
  ValidationReport report;
  report.transport = coordinator.Transport();
  if (!wires.ok()) {
    // Some rank never reported: this rank's report, and the others unknown.
    if (!absl::IsDeadlineExceeded(wires.status())) return wires.status();
    report.backend = mine.backend;
    for (int r = 0; r < coordinator.size(); ++r) {
      RankReport missing;
      missing.rank = r;
      missing.outcome = RankOutcome::kNotReported;
      missing.error = std::string(wires.status().message());
      report.ranks.push_back(r == mine.rank ? mine : missing);
    }
    return report;
  }
  for (const std::string& wire : *wires) {
    ASSIGN_OR_RETURN(RankReport r, RankReportFromWire(wire));
    if (report.backend.empty()) report.backend = r.backend;
    report.ranks.push_back(std::move(r));
  }
  return report;
}

}  // namespace memplan::executor
