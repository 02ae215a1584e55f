// Replays on the host backend in this one process (no MPI): the measured
// peak is the planned one in both allocation modes, plans that do not fit
// are refused before anything is allocated, every error path gives all
// memory back, and the views carry what calibration reads.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "executor/host_backend.h"
#include "executor/mpi_session.h"
#include "executor/plan_json.h"
#include "executor/replay.h"
#include "executor/report_wire.h"
#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "parsers/source_text.h"
#include "viz/collectives_report.h"
#include "viz/validate_report.h"

namespace memplan::executor {
namespace {

// JSON members as std::optional (LLVM 14 returns llvm::Optional, which
// gtest cannot compare).
std::optional<int64_t> Int(const llvm::json::Object& o, llvm::StringRef key) {
  const auto v = o.getInteger(key);
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}
std::optional<std::string> Str(const llvm::json::Object& o, llvm::StringRef key) {
  const auto v = o.getString(key);
  return v ? std::optional<std::string>(v->str()) : std::nullopt;
}

// Wraps a backend, keeps count of what is allocated, and can make the n-th
// allocation fail as a full device would.
class RecordingBackend : public Backend {
 public:
  struct Record {
    int allocations = 0;
    int outstanding = 0;
    int fail_allocation = -1;  // 1-based; -1: none
  };
  RecordingBackend(std::unique_ptr<Backend> inner, Record* record) : inner_(std::move(inner)), record_(record) {}

  std::string Name() const override { return inner_->Name(); }
  std::string DeviceDescription() const override { return inner_->DeviceDescription(); }
  absl::StatusOr<DeviceMemoryInfo> QueryMemory() override { return inner_->QueryMemory(); }
  absl::Status Connect(const std::vector<std::vector<int>>& groups, double timeout) override {
    return inner_->Connect(groups, timeout);
  }
  absl::StatusOr<void*> Allocate(int64_t bytes, MemoryPool pool) override {
    if (++record_->allocations == record_->fail_allocation) {
      return absl::ResourceExhaustedError("out of memory (injected)");
    }
    absl::StatusOr<void*> ptr = inner_->Allocate(bytes, pool);
    if (ptr.ok()) ++record_->outstanding;
    return ptr;
  }
  absl::Status Free(void* ptr) override {
    --record_->outstanding;
    return inner_->Free(ptr);
  }
  absl::Status Touch(void* ptr, int64_t bytes) override { return inner_->Touch(ptr, bytes); }
  absl::Status CopyToDevice(void* d, const void* h, int64_t bytes) override { return inner_->CopyToDevice(d, h, bytes); }
  absl::Status CopyToHost(void* h, const void* d, int64_t bytes) override { return inner_->CopyToHost(h, d, bytes); }
  absl::StatusOr<double> Gemm(const GemmOp& g, const void* a, const void* b, void* c, double timeout) override {
    return inner_->Gemm(g, a, b, c, timeout);
  }
  absl::StatusOr<double> Collective(const CollectiveCall& call) override { return inner_->Collective(call); }
  absl::Status Synchronize(double timeout) override { return inner_->Synchronize(timeout); }
  MemoryMeasurement Measure() override { return inner_->Measure(); }

 private:
  std::unique_ptr<Backend> inner_;
  Record* record_;
};

class ReplayTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(StartedByMpiLauncher()) << "run these tests without mpirun";
    absl::StatusOr<std::unique_ptr<MpiSession>> session = MpiSession::Start();
    ASSERT_TRUE(session.ok()) << session.status();
    session_ = *std::move(session);
  }

  BackendFactory Factory(int64_t device_bytes = int64_t{1} << 30) {
    return [this, device_bytes]() -> absl::StatusOr<std::unique_ptr<Backend>> {
      HostBackendOptions options;
      options.device_memory_bytes = device_bytes;
      return std::unique_ptr<Backend>(
          new RecordingBackend(std::make_unique<HostBackend>(*session_, options), &record_));
    };
  }

  ExecutorPlan Plan(const std::string& text) {
    absl::StatusOr<ExecutorPlan> plan = ParsePlanJson(*parsers::SourceText::FromString("plan.json", text));
    EXPECT_TRUE(plan.ok()) << plan.status();
    return plan.ok() ? *plan : ExecutorPlan{};
  }

  RankReport Replay(const ExecutorPlan& plan, const ReplayOptions& options, int64_t device_bytes = int64_t{1} << 30) {
    absl::StatusOr<ValidationReport> report = RunValidation(plan, *session_, Factory(device_bytes), options);
    EXPECT_TRUE(report.ok()) << report.status();
    if (!report.ok() || report->ranks.size() != 1) return RankReport{};
    return report->ranks[0];
  }

  std::unique_ptr<MpiSession> session_;
  RecordingBackend::Record record_;
};

// Live at step 0: b1 (1000); 1: b1 + b2 (3000); 2: b2 + b3 (2500); 3: b3.
// Ops on every kind of collective (a group of one rank) and a GEMM, bound
// to the buffers, so no scratch.
constexpr const char* kOneRank = R"({"schema": "memplan.executor-plan.v1", "ranks": [{"rank": 0,
  "buffers": [{"id": 1, "bytes": 1000, "start": 0, "end": 1, "offset": 0},
              {"id": 2, "bytes": 2000, "start": 1, "end": 2, "offset": 1000},
              {"id": 3, "bytes": 500, "start": 2, "end": 3, "offset": 0}],
  "ops": [{"step": 0, "kind": "all_reduce", "bytes": 1000, "dtype": "f32", "group": [0], "input": 1, "output": 1},
          {"step": 1, "kind": "all_gather", "bytes": 1000, "dtype": "bf16", "group": [0], "input": 1, "output": 2},
          {"step": 1, "kind": "reduce_scatter", "bytes": 1000, "dtype": "f16", "group": [0], "input": 2, "output": 2},
          {"step": 2, "kind": "all_to_all", "bytes": 500, "dtype": "u8", "group": [0], "input": 3, "output": 3},
          {"step": 2, "kind": "send_recv", "bytes": 400, "dtype": "s32", "group": [0], "input": 2, "output": 3},
          {"step": 2, "kind": "gemm", "m": 8, "n": 8, "k": 8, "dtype": "f32", "a": 2, "b": 2, "c": 3}]}]})";

TEST_F(ReplayTest, PoolModeMeasuresThePlannedPeak) {
  ReplayOptions options;
  options.mode = AllocationMode::kPool;
  const RankReport rank = Replay(Plan(kOneRank), options);
  EXPECT_EQ(rank.outcome, RankOutcome::kOk) << rank.error;
  EXPECT_EQ(rank.mode, AllocationMode::kPool);
  EXPECT_EQ(rank.planned_peak_bytes, 3000);
  EXPECT_EQ(rank.measured_peak_bytes, 3000);
  EXPECT_EQ(rank.scratch_peak_bytes, 0);
  ASSERT_EQ(rank.ops.size(), 6u);
  for (const OpMeasurement& op : rank.ops) {
    EXPECT_EQ(op.wrong, 0) << "op " << op.index;
    EXPECT_FALSE(op.scratch);
    EXPECT_GE(op.seconds, 0.0);
  }
  EXPECT_EQ(record_.outstanding, 0);
  // Everything went back to the device.
  EXPECT_EQ(rank.device_free_after_bytes, rank.device_free_before_bytes);
}

TEST_F(ReplayTest, ArenaModeMeasuresTheArena) {
  const RankReport rank = Replay(Plan(kOneRank), ReplayOptions{});
  EXPECT_EQ(rank.outcome, RankOutcome::kOk) << rank.error;
  EXPECT_EQ(rank.mode, AllocationMode::kArena);
  EXPECT_EQ(rank.planned_peak_bytes, 3000);  // the end of buffer 2
  EXPECT_EQ(rank.measured_peak_bytes, 3000);
  EXPECT_EQ(record_.allocations, 1);  // one block
  EXPECT_EQ(record_.outstanding, 0);
}

TEST_F(ReplayTest, RefusesAPlanThatDoesNotFitBeforeAllocating) {
  // The arena (3000 bytes) and a copy of the in-place all-to-all's input
  // (500 bytes, as NCCL needs one) make 3500.
  const RankReport rank = Replay(Plan(kOneRank), ReplayOptions{}, /*device_bytes=*/3499);
  EXPECT_EQ(rank.outcome, RankOutcome::kDoesNotFit);
  EXPECT_EQ(rank.needed_bytes, 3500);
  EXPECT_EQ(rank.device_free_before_bytes, 3499);
  EXPECT_EQ(record_.allocations, 0);
  EXPECT_NE(viz::RankProblemSentence(rank).find("does not fit"), std::string::npos);
  EXPECT_EQ(Judge(ValidationReport{"", "host", "", {rank}}, std::nullopt).ranks_not_fitting, 1);
}

TEST_F(ReplayTest, ScratchCountsApartFromThePlan) {
  // The collectives and the GEMM name no buffers: their operands are
  // scratch, and the plan's peak is its buffers' alone.
  const RankReport rank = Replay(Plan(R"({"schema": "memplan.executor-plan.v1", "ranks": [{"rank": 0,
    "buffers": [{"id": 1, "bytes": 100, "start": 0, "end": 1}],
    "ops": [{"step": 0, "kind": "gemm", "m": 4, "n": 4, "k": 4, "dtype": "f64"},
            {"step": 1, "kind": "all_reduce", "bytes": 64, "dtype": "f32", "group": [0]}]}]})"),
                                 ReplayOptions{});
  EXPECT_EQ(rank.outcome, RankOutcome::kOk) << rank.error;
  EXPECT_EQ(rank.measured_peak_bytes, 100);
  EXPECT_EQ(rank.scratch_peak_bytes, 3 * 4 * 4 * 8);  // A, B and C of the GEMM
  EXPECT_EQ(rank.needed_bytes, 100 + 3 * 4 * 4 * 8);
  EXPECT_TRUE(rank.ops[0].scratch);
  EXPECT_EQ(record_.outstanding, 0);
}

TEST_F(ReplayTest, EveryFailedAllocationGivesEverythingBack) {
  ReplayOptions options;
  options.mode = AllocationMode::kPool;
  // The pool replay allocates 3 buffers; a scratch-using variant adds more.
  const ExecutorPlan plan = Plan(kOneRank);
  for (int fail = 1; fail <= 3; ++fail) {
    record_ = RecordingBackend::Record{};
    record_.fail_allocation = fail;
    const RankReport rank = Replay(plan, options);
    EXPECT_EQ(rank.outcome, RankOutcome::kFailed) << "allocation " << fail;
    EXPECT_NE(rank.error.find("out of memory (injected)"), std::string::npos) << rank.error;
    EXPECT_GE(rank.failed_step, 0);
    EXPECT_EQ(record_.outstanding, 0) << "allocation " << fail;
    EXPECT_EQ(rank.device_free_after_bytes, rank.device_free_before_bytes) << "allocation " << fail;
  }
}

TEST_F(ReplayTest, AnInjectedFailureStopsTheRankAtItsStep) {
  ReplayOptions options;
  options.mode = AllocationMode::kPool;
  options.inject_failure_rank = 0;
  options.inject_failure_step = 2;
  const RankReport rank = Replay(Plan(kOneRank), options);
  EXPECT_EQ(rank.outcome, RankOutcome::kFailed);
  EXPECT_EQ(rank.failed_step, 2);
  EXPECT_EQ(rank.ops.size(), 3u);  // the ops of steps 0 and 1
  EXPECT_EQ(record_.outstanding, 0);
  EXPECT_EQ(Judge(ValidationReport{"", "host", "", {rank}}, std::nullopt).ranks_failed, 1);
}

TEST_F(ReplayTest, APlanForMoreRanksThanProcessesIsAnError) {
  const ExecutorPlan plan = Plan(R"({"schema": "memplan.executor-plan.v1", "ranks": [{"rank": 0}, {"rank": 1}]})");
  absl::StatusOr<ValidationReport> report = RunValidation(plan, *session_, Factory(), ReplayOptions{});
  ASSERT_FALSE(report.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(report.status()));
  EXPECT_NE(std::string(report.status().message()).find("mpirun -np 2"), std::string::npos);
}

TEST_F(ReplayTest, AMissingBackendIsReportedNotCrashed) {
  const ExecutorPlan plan = Plan(kOneRank);
  absl::StatusOr<ValidationReport> report = RunValidation(
      plan, *session_,
      []() -> absl::StatusOr<std::unique_ptr<Backend>> {
        return absl::FailedPreconditionError("no usable CUDA device: none here");
      },
      ReplayOptions{});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->ranks[0].outcome, RankOutcome::kNoDevice);
  EXPECT_EQ(Judge(*report, std::nullopt).ranks_failed, 1);
}

TEST(Judge, HoldsPeaksToTheToleranceOnlyWhenGiven) {
  RankReport rank;
  rank.planned_peak_bytes = 1000;
  rank.measured_peak_bytes = 1030;
  EXPECT_DOUBLE_EQ(PeakErrorPercent(rank), 3.0);
  const ValidationReport report{"", "host", "", {rank}};
  EXPECT_TRUE(Judge(report, std::nullopt).ok());
  EXPECT_TRUE(Judge(report, 3.0).ok());
  EXPECT_EQ(Judge(report, 2.5).ranks_over_peak_error, 1);
  RankReport not_run;
  not_run.outcome = RankOutcome::kNotRun;  // another rank's failure says why
  EXPECT_TRUE(Judge(ValidationReport{"", "host", "", {not_run}}, std::nullopt).ok());
}

TEST(ReportWire, RoundTrips) {
  RankReport r;
  r.rank = 3;
  r.outcome = RankOutcome::kTimedOut;
  r.error = "all_reduce did not complete";
  r.failed_step = 7;
  r.backend = "cuda";
  r.device = "GPU";
  r.mode = AllocationMode::kPool;
  r.planned_peak_bytes = 1 << 20;
  r.planned_peak_stated = true;
  r.plan_peak_bytes = 1000;
  r.needed_bytes = 2000;
  r.measured_peak_bytes = 1001;
  r.scratch_peak_bytes = 5;
  r.reserved_peak_bytes = 2 << 20;
  r.device_free_before_bytes = 1 << 30;
  r.step_seconds = 0.25;
  r.ops = {{0, 0.125, 0, false}, {4, 0.5, 17, true}};
  absl::StatusOr<RankReport> back = RankReportFromWire(RankReportToWire(r));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(RankReportToWire(*back), RankReportToWire(r));
  EXPECT_EQ(back->ops[1].wrong, 17);
  EXPECT_EQ(back->reserved_peak_bytes, 2 << 20);
  EXPECT_FALSE(back->device_total_bytes.has_value());
  EXPECT_FALSE(RankReportFromWire("{\"rank\": 1}").ok());
}

TEST_F(ReplayTest, JsonCarriesPeaksAndCalibrationRecords) {
  const ExecutorPlan plan = Plan(kOneRank);
  ReplayOptions options;
  options.mode = AllocationMode::kPool;
  absl::StatusOr<ValidationReport> report = RunValidation(plan, *session_, Factory(), options);
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string json = viz::RenderValidateJson({plan, *report, std::nullopt});
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object* rank = (*parsed->getAsObject()->getArray("ranks"))[0].getAsObject();
  EXPECT_EQ(Int(*rank, "planned_peak_bytes"), 3000);
  EXPECT_EQ(Int(*rank, "measured_peak_bytes"), 3000);
  const llvm::json::Array* collectives = rank->getArray("collectives");
  ASSERT_EQ(collectives->size(), 5u);
  for (const llvm::json::Value& value : *collectives) {
    const llvm::json::Object& c = *value.getAsObject();
    for (const char* key : {"collective", "bytes", "count", "dtype", "time_us", "algbw_gbps", "busbw_gbps", "wrong"}) {
      EXPECT_NE(c.get(key), nullptr) << key;
    }
  }
  const llvm::json::Object& gather = *(*collectives)[1].getAsObject();
  EXPECT_EQ(Str(gather, "collective"), "all_gather");
  EXPECT_EQ(Str(gather, "dtype"), "bfloat16");
  EXPECT_EQ(Int(gather, "count"), 500);
  EXPECT_EQ(rank->getArray("gemms")->size(), 1u);
  const std::string text = viz::RenderValidateText({plan, *report, std::nullopt});
  EXPECT_NE(text.find("result: PASS"), std::string::npos) << text;
}

TEST(CollectivesJson, BusBandwidthIsAlgorithmBandwidthTimesTheFactor) {
  CollectiveBenchReport report;
  report.backend = "host";
  report.ranks = 4;
  report.rows = {{CollectiveKind::kAllReduce, 1 << 20, WireType::kF32, 1e-3, 0},
                 {CollectiveKind::kAllGather, 1 << 20, WireType::kF32, 2e-3, 3}};
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(viz::RenderCollectiveBenchJson(report));
  ASSERT_TRUE(static_cast<bool>(parsed));
  const llvm::json::Object& root = *parsed->getAsObject();
  EXPECT_EQ(Str(root, "schema"), "memplan.collectives.v1");
  EXPECT_EQ(Int(root, "ranks"), 4);
  const llvm::json::Object& reduce = *(*root.getArray("results"))[0].getAsObject();
  EXPECT_DOUBLE_EQ(*reduce.getNumber("time_us"), 1000.0);
  EXPECT_DOUBLE_EQ(*reduce.getNumber("algbw_gbps"), 1.048576);
  EXPECT_DOUBLE_EQ(*reduce.getNumber("busbw_gbps"), 1.048576 * 1.5);
  const llvm::json::Object& gather = *(*root.getArray("results"))[1].getAsObject();
  EXPECT_EQ(Int(gather, "wrong"), 3);
  EXPECT_EQ(Int(gather, "count"), 262144);
  const std::string text = viz::RenderCollectiveBenchText(report);
  EXPECT_NE(text.find("# Out of bounds values : 3 FAILED"), std::string::npos) << text;
}

}  // namespace
}  // namespace memplan::executor
