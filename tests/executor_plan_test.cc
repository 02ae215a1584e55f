// The executor plan: reading it (every problem located at file:line:column),
// writing it back, its checks across ranks, the peaks it implies, and the
// plan a buffer assignment becomes.
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "executor/json_locate.h"
#include "executor/plan.h"
#include "executor/plan_check.h"
#include "executor/plan_json.h"
#include "executor/program_plan.h"
#include "gtest/gtest.h"
#include "parsers/load_program.h"
#include "parsers/source_text.h"
#include "tests/test_util.h"

namespace memplan::executor {
namespace {

absl::StatusOr<ExecutorPlan> Parse(const std::string& text) {
  return ParsePlanJson(*parsers::SourceText::FromString("plan.json", text));
}

std::string Message(const absl::Status& status) { return std::string(status.message()); }

// Two ranks, every feature: arena offsets, a stated peak, predictions, a
// GEMM on bound buffers, an in-place all-reduce and a scratch all-gather.
constexpr const char* kTwoRanks = R"({
  "schema": "memplan.executor-plan.v1",
  "name": "two",
  "source": "hand-written",
  "notes": ["a note"],
  "ranks": [
    {"rank": 1, "arena_bytes": 4096, "predicted_step_seconds": 0.5,
     "buffers": [{"id": 7, "bytes": 1024, "start": 0, "end": 2, "offset": 0},
                 {"id": 3, "bytes": 2048, "start": 1, "end": 1, "offset": 1024}],
     "ops": [{"step": 1, "kind": "all_reduce", "bytes": 1024, "dtype": "f32", "group": [0, 1],
              "input": 7, "output": 7, "predicted_seconds": 0.001},
             {"step": 2, "kind": "all_gather", "bytes": 64, "dtype": "bf16", "group": [1, 0]}]},
    {"rank": 0, "planned_peak_bytes": 5000,
     "buffers": [{"id": 1, "bytes": 1024, "start": 0, "end": 1},
                 {"id": 2, "bytes": 192, "start": 0, "end": 0}],
     "ops": [{"step": 0, "kind": "gemm", "m": 4, "n": 4, "k": 4, "dtype": "f32", "count": 3,
              "a": 2, "b": 2, "c": 2, "label": "dot.1"},
             {"step": 1, "kind": "all_reduce", "bytes": 1024, "dtype": "f32", "group": [0, 1],
              "input": 1, "output": 1},
             {"step": 1, "kind": "all_gather", "bytes": 64, "dtype": "bf16", "group": [1, 0]}]}
  ]
})";

TEST(PlanJson, ReadsEveryField) {
  absl::StatusOr<ExecutorPlan> plan = Parse(kTwoRanks);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->name, "two");
  EXPECT_EQ(plan->source, "hand-written");
  ASSERT_EQ(plan->notes, std::vector<std::string>{"a note"});
  ASSERT_EQ(plan->ranks.size(), 2u);
  // Sorted by rank, buffers by id.
  const RankPlan& r0 = plan->ranks[0];
  const RankPlan& r1 = plan->ranks[1];
  EXPECT_EQ(r0.rank, 0);
  EXPECT_EQ(r0.planned_peak_bytes, 5000);
  EXPECT_FALSE(r0.arena_bytes.has_value());
  ASSERT_EQ(r0.ops.size(), 3u);
  EXPECT_EQ(r0.ops[0].kind, PlanOp::Kind::kGemm);
  EXPECT_EQ(r0.ops[0].gemm.count, 3);
  EXPECT_EQ(r0.ops[0].gemm.out_dtype, ir::DType::kF32);
  EXPECT_EQ(r0.ops[0].label, "dot.1");
  EXPECT_EQ(r1.rank, 1);
  EXPECT_EQ(r1.arena_bytes, 4096);
  EXPECT_EQ(r1.predicted_step_seconds, 0.5);
  ASSERT_EQ(r1.buffers.size(), 2u);
  EXPECT_EQ(r1.buffers[0].id, 3);
  EXPECT_EQ(r1.buffers[0].offset, 1024);
  const CollectiveOp& gather = r1.ops[1].collective;
  EXPECT_EQ(gather.kind, CollectiveKind::kAllGather);
  EXPECT_EQ(gather.dtype, ir::DType::kBF16);
  EXPECT_EQ(gather.group, (std::vector<int>{1, 0}));
  EXPECT_FALSE(gather.input.has_value());
  EXPECT_EQ(r1.ops[0].predicted_seconds, 0.001);
}

TEST(PlanJson, WritesWhatItReads) {
  absl::StatusOr<ExecutorPlan> plan = Parse(kTwoRanks);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string written = RenderPlanJson(*plan);
  absl::StatusOr<ExecutorPlan> again = Parse(written);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << written;
  EXPECT_EQ(RenderPlanJson(*again), written);
  EXPECT_TRUE(LooksLikePlanJson(written));
  EXPECT_FALSE(LooksLikePlanJson("BufferAssignment:\nallocation 0: size 4"));
}

struct BadPlan {
  const char* name;
  std::string text;
  std::string location;  // "plan.json:L:C: error: "
  std::string expected;  // a part of the message
};

void PrintTo(const BadPlan& p, std::ostream* os) { *os << p.name; }

class PlanJsonErrors : public testing::TestWithParam<BadPlan> {};

TEST_P(PlanJsonErrors, NamesTheLineColumnAndWhatWasExpected) {
  const BadPlan& bad = GetParam();
  absl::StatusOr<ExecutorPlan> plan = Parse(bad.text);
  ASSERT_FALSE(plan.ok()) << bad.text;
  EXPECT_TRUE(absl::IsInvalidArgument(plan.status()));
  const std::string message = Message(plan.status());
  EXPECT_TRUE(message.starts_with(bad.location)) << message;
  EXPECT_NE(message.find(bad.expected), std::string::npos) << message;
}

// The plan header every case below starts with: line 1 and 2.
std::string Head() { return "{\"schema\": \"memplan.executor-plan.v1\",\n\"ranks\": [\n"; }

INSTANTIATE_TEST_SUITE_P(
    Cases, PlanJsonErrors,
    testing::Values(
        BadPlan{"syntax", "{\"schema\": \"memplan.executor-plan.v1\",\n  \"ranks\": [,]}", "plan.json:2:13: error: ",
                "expected valid JSON"},
        // Deep nesting was a stack overflow (SIGSEGV) in llvm::json's parser;
        // the error points at the 64th "[" (the object is level 1).
        BadPlan{"nested_too_deep",
                "{\"schema\": \"memplan.executor-plan.v1\",\n\"ranks\": " + std::string(200000, '['),
                "plan.json:2:73: error: ", "nested more than 64 levels deep"},
        BadPlan{"not_an_object", "[1, 2]", "plan.json:1:1: error: ", "expected an executor plan"},
        BadPlan{"wrong_schema", "{\"schema\": \"memplan.executor-plan.v9\", \"ranks\": []}", "plan.json:1:12: error: ",
                "expected \"memplan.executor-plan.v1\""},
        BadPlan{"no_ranks", "{\"schema\": \"memplan.executor-plan.v1\",\n \"ranks\": []}", "plan.json:2:11: error: ",
                "expected member 'ranks' (a non-empty array"},
        BadPlan{"unknown_member", Head() + "{\"rank\": 0,\n \"bufers\": []}]}", "plan.json:4:2: error: ",
                "'bufers' is not one"},
        BadPlan{"negative_bytes", Head() + "{\"rank\": 0, \"buffers\": [\n{\"id\": 0, \"bytes\": -4, \"start\": 0, \"end\": 0}]}]}",
                "plan.json:4:20: error: ", "expected an integer from 0 to"},
        BadPlan{"missing_end", Head() + "{\"rank\": 0, \"buffers\": [\n{\"id\": 0, \"bytes\": 4, \"start\": 0}]}]}",
                "plan.json:4:1: error: ", "expected member 'end'"},
        BadPlan{"end_before_start",
                Head() + "{\"rank\": 0, \"buffers\": [\n{\"id\": 0, \"bytes\": 4, \"start\": 3, \"end\": 2}]}]}",
                "plan.json:4:42: error: ", "expected an end step at or after the start step 3"},
        BadPlan{"duplicate_buffer_id",
                Head() + "{\"rank\": 0, \"buffers\": [\n{\"id\": 5, \"bytes\": 4, \"start\": 0, \"end\": 0},\n"
                         "{\"id\": 5, \"bytes\": 8, \"start\": 0, \"end\": 0}]}]}",
                "plan.json:5:8: error: ", "5 is taken"},
        BadPlan{"outside_the_arena",
                Head() + "{\"rank\": 0, \"arena_bytes\": 8, \"buffers\": [\n"
                         "{\"id\": 0, \"bytes\": 8, \"start\": 0, \"end\": 0, \"offset\": 4}]}]}",
                "plan.json:4:55: error: ", "expected the buffer to lie inside the arena of 8 bytes"},
        BadPlan{"unknown_kind", Head() + "{\"rank\": 0, \"ops\": [\n{\"step\": 0, \"kind\": \"broadcast\"}]}]}",
                "plan.json:4:21: error: ", "got \"broadcast\""},
        BadPlan{"bad_dtype",
                Head() + "{\"rank\": 0, \"ops\": [\n{\"step\": 0, \"kind\": \"all_reduce\", \"bytes\": 4, \"dtype\": "
                         "\"float32\", \"group\": [0]}]}]}",
                "plan.json:4:56: error: ", "expected an XLA element type"},
        BadPlan{"steps_out_of_order",
                Head() + "{\"rank\": 0, \"ops\": [\n"
                         "{\"step\": 5, \"kind\": \"gemm\", \"m\": 1, \"n\": 1, \"k\": 1, \"dtype\": \"f32\"},\n"
                         "{\"step\": 4, \"kind\": \"gemm\", \"m\": 1, \"n\": 1, \"k\": 1, \"dtype\": \"f32\"}]}]}",
                "plan.json:5:10: error: ", "step 4 comes after step 5"},
        BadPlan{"group_without_the_rank",
                Head() + "{\"rank\": 0, \"ops\": [\n{\"step\": 0, \"kind\": \"all_reduce\", \"bytes\": 4, "
                         "\"dtype\": \"f32\", \"group\": [1]}]},\n"
                         "{\"rank\": 1}]}",
                "plan.json:4:72: error: ", "expected a group holding rank 0"},
        BadPlan{"indivisible_all_gather",
                Head() + "{\"rank\": 0, \"ops\": [\n{\"step\": 0, \"kind\": \"all_gather\", \"bytes\": 12, "
                         "\"dtype\": \"f32\", \"group\": [0, 1]}]},\n"
                         "{\"rank\": 1, \"ops\": [{\"step\": 0, \"kind\": \"all_gather\", \"bytes\": 12, "
                         "\"dtype\": \"f32\", \"group\": [0, 1]}]}]}",
                "plan.json:4:44: error: ", "expected a multiple of 2 ranks x 4-byte f32 = 8 bytes"},
        BadPlan{"buffer_too_small",
                Head() + "{\"rank\": 0, \"buffers\": [{\"id\": 1, \"bytes\": 4, \"start\": 0, \"end\": 0}], \"ops\": [\n"
                         "{\"step\": 0, \"kind\": \"all_reduce\", \"bytes\": 8, \"dtype\": \"f32\", \"group\": [0], "
                         "\"input\": 1}]}]}",
                "plan.json:4:86: error: ", "expected a buffer of at least 8 bytes; buffer 1 has 4"},
        BadPlan{"buffer_not_live",
                Head() + "{\"rank\": 0, \"buffers\": [{\"id\": 1, \"bytes\": 64, \"start\": 2, \"end\": 3}], \"ops\": [\n"
                         "{\"step\": 0, \"kind\": \"gemm\", \"m\": 2, \"n\": 2, \"k\": 2, \"dtype\": \"f32\", \"c\": 1}]}]}",
                "plan.json:4:74: error: ", "expected a buffer live at step 0; buffer 1 lives from step 2 to 3"},
        BadPlan{"mismatched_collectives",
                Head() + "{\"rank\": 0, \"ops\": [{\"step\": 0, \"kind\": \"all_reduce\", \"bytes\": 8, "
                         "\"dtype\": \"f32\", \"group\": [0, 1]}]},\n"
                         "{\"rank\": 1, \"ops\": [\n{\"step\": 0, \"kind\": \"all_reduce\", \"bytes\": 16, "
                         "\"dtype\": \"f32\", \"group\": [0, 1]}]}]}",
                "plan.json:5:1: error: ",
                "to match rank 0's all_reduce of 8 bytes of f32 (its op 0); rank 1 has all_reduce of 16 bytes"},
        BadPlan{"missing_collective",
                Head() + "{\"rank\": 0, \"ops\": [{\"step\": 0, \"kind\": \"all_reduce\", \"bytes\": 8, "
                         "\"dtype\": \"f32\", \"group\": [0, 1]}]},\n"
                         "{\"rank\": 1, \"ops\": []}]}",
                "plan.json:4:20: error: ", "expected 1 collectives on group [0,1] as rank 0 has; rank 1 has 0"},
        BadPlan{"deadlock",
                Head() + "{\"rank\": 0, \"ops\": [{\"step\": 0, \"kind\": \"all_reduce\", \"bytes\": 8, \"dtype\": \"f32\", "
                         "\"group\": [0, 1]},\n{\"step\": 1, \"kind\": \"all_reduce\", \"bytes\": 8, \"dtype\": \"f32\", "
                         "\"group\": [0, 2]}]},\n"
                         "{\"rank\": 1, \"ops\": [{\"step\": 0, \"kind\": \"all_reduce\", \"bytes\": 8, \"dtype\": \"f32\", "
                         "\"group\": [1, 2]},\n{\"step\": 1, \"kind\": \"all_reduce\", \"bytes\": 8, \"dtype\": \"f32\", "
                         "\"group\": [0, 1]}]},\n"
                         "{\"rank\": 2, \"ops\": [{\"step\": 0, \"kind\": \"all_reduce\", \"bytes\": 8, \"dtype\": \"f32\", "
                         "\"group\": [0, 2]},\n{\"step\": 1, \"kind\": \"all_reduce\", \"bytes\": 8, \"dtype\": \"f32\", "
                         "\"group\": [1, 2]}]}]}",
                "plan.json:3:21: error: ", "rank 0 would wait here forever in all_reduce of 8 bytes of f32 on group [0,1]"},
        BadPlan{"rank_twice", Head() + "{\"rank\": 0},\n{\"rank\": 0}]}", "plan.json:4:10: error: ",
                "rank 0 is also ranks[0]"},
        BadPlan{"rank_out_of_range", Head() + "{\"rank\": 3}]}", "plan.json:3:10: error: ",
                "expected ranks numbered 0 to 0"}),
    [](const testing::TestParamInfo<BadPlan>& info) { return std::string(info.param.name); });

TEST(JsonLocate, FindsMembersAndElements) {
  const std::string text = "{\"a\": [1, {\"b\": \"x\\\"y\"}, 3],\n \"c\": {\"d\": null}, \"a\": 5}";
  // The last "a" counts, as for llvm::json.
  EXPECT_EQ(LocateJsonPath(text, {{"a", -1}}), text.rfind("5"));
  EXPECT_EQ(LocateJsonPath(text, {{"c", -1}, {"d", -1}}), text.find("null"));
  // A path that leaves the document stops at the deepest value it reached.
  EXPECT_EQ(LocateJsonPath(text, {{"c", -1}, {"zz", -1}}), text.find("{\"d\""));
  EXPECT_EQ(JsonPathString({{"ranks", -1}, {"", 2}, {"ops", -1}}), "ranks[2].ops");
}

TEST(PlanPeaks, PoolPeakIsTheMostBytesLiveAtOneStep) {
  RankPlan rank;
  // Live at step 0: 100; 1..2: 150; 3: 50 + 200 = 250; 4: 200.
  rank.buffers = {{0, 100, 0, 2, std::nullopt}, {1, 50, 1, 3, std::nullopt}, {2, 200, 3, 4, std::nullopt}};
  EXPECT_EQ(PoolPeakBytes(rank), 250);
  EXPECT_EQ(DefaultAllocationMode(rank), AllocationMode::kPool);
  EXPECT_EQ(PlannedPeakBytes(rank, AllocationMode::kPool), 250);
  rank.planned_peak_bytes = 300;
  EXPECT_EQ(PlannedPeakBytes(rank, AllocationMode::kPool), 300);
  // A buffer ending at step 2 and one starting at 3 never overlap.
  RankPlan back_to_back;
  back_to_back.buffers = {{0, 10, 0, 2, 0}, {1, 10, 3, 5, 0}};
  EXPECT_EQ(PoolPeakBytes(back_to_back), 10);
  EXPECT_EQ(DefaultAllocationMode(back_to_back), AllocationMode::kArena);
  EXPECT_EQ(ArenaBytes(back_to_back), 10);
  back_to_back.arena_bytes = 64;
  EXPECT_EQ(PlanPeakBytes(back_to_back, AllocationMode::kArena), 64);
}

TEST(PlanPeaks, ScratchCountsOnlyUnboundOperands) {
  PlanOp gemm;
  gemm.gemm = GemmOp{2, 3, 4, ir::DType::kBF16, ir::DType::kF32, 1, 7, std::nullopt, std::nullopt};
  // A (bound) 2x4 bf16; B 4x3 bf16 = 24 B; C 2x3 f32 = 24 B.
  EXPECT_EQ(ScratchBytes(gemm), 48);
  PlanOp gather;
  gather.kind = PlanOp::Kind::kCollective;
  gather.collective.kind = CollectiveKind::kAllGather;
  gather.collective.bytes = 64;
  gather.collective.group = {0, 1, 2, 3};
  EXPECT_EQ(ScratchBytes(gather), 16 + 64);
  gather.collective.kind = CollectiveKind::kAllToAll;
  gather.collective.input = gather.collective.output = 1;
  EXPECT_EQ(ScratchBytes(gather), 64);  // NCCL's all-to-all sends from a copy
}

class ProgramPlanTest : public testing::TestWithParam<test::Sample> {};

// The plan of a buffer assignment holds the compiler's numbers: its arena
// is the total allocation, and a pool replay's peak is the analyzer's live
// peak.
TEST_P(ProgramPlanTest, HoldsTheDumpsNumbers) {
  parsers::LoadOptions options;
  options.module = GetParam().module;
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(test::SourcePath(GetParam().path), options);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  absl::StatusOr<ExecutorPlan> plan = PlanFromProgram(loaded->program);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->ranks.size(), 1u);
  EXPECT_EQ(CheckPlan(*plan), std::nullopt);
  const RankPlan& rank = plan->ranks[0];
  const analyzer::Analysis analysis = analyzer::Analysis::Run(loaded->program, {});
  EXPECT_EQ(DefaultAllocationMode(rank), AllocationMode::kArena);
  EXPECT_EQ(PlanPeakBytes(rank, AllocationMode::kArena), analysis.stats.total_allocation_bytes);
  if (loaded->program.stated_total_bytes) {
    EXPECT_EQ(ArenaBytes(rank), *loaded->program.stated_total_bytes);
  }
  if (GetParam().has_live_ranges) {
    ASSERT_TRUE(analysis.peak.has_value());
    EXPECT_EQ(PoolPeakBytes(rank), analysis.peak->bytes);
  }
  for (const PlanBuffer& b : rank.buffers) {
    ASSERT_TRUE(b.offset.has_value());
    EXPECT_LE(*b.offset + b.bytes, ArenaBytes(rank)) << "buffer " << b.id;
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, ProgramPlanTest, testing::ValuesIn(test::AllSamples()), test::SampleName());

TEST(ProgramPlan, RefusesAnInputWithoutAllocations) {
  ir::Program program;
  program.source_files = {"oom.txt"};
  absl::StatusOr<ExecutorPlan> plan = PlanFromProgram(program);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(Message(plan.status()).find("expected allocations to replay"), std::string::npos);
}

}  // namespace
}  // namespace memplan::executor
