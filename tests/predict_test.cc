// Sharding propagation rules on small HLO modules, and the sharding
// arithmetic they rest on. Expected shardings are what XLA's SPMD
// partitioner produces for these patterns (Megatron column/row parallel
// matmuls, data parallel gradients, FSDP's gather of the smaller operand as
// the sharded corpus's fsdp8 compile shows: mlp_train_step all-gathers
// f32[256,512] activations, not its f32[512,2048] weights).
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/hlo_text_program.h"
#include "parsers/source_text.h"
#include "predictor/axes_sharding.h"
#include "predictor/output_reassignment.h"
#include "predictor/propagation.h"
#include "predictor/reshape_groups.h"
#include "predictor/size_questions.h"
#include "predictor/sub_axes.h"
#include "tests/propagate_fixture.h"

namespace memplan::predictor {
namespace {

AxesSharding Axes(std::string_view text, const ir::Mesh& mesh, int64_t rank) {
  size_t consumed = 0;
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloSharding(text, &consumed);
  EXPECT_TRUE(s.ok()) << s.status();
  absl::StatusOr<AxesSharding> a = AxesFromHloSharding(*s, mesh, rank);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? *a : AxesSharding{};
}

// A while loop's state (init, body parameter, body result, loop result:
// one HloBuffer to XLA) is one group; a value at the same offset after a
// gap, or meeting a non-phi without a phi on either side, is not.
TEST(LoopBufferLeaders, JoinsMeetingValuesAtOneOffsetThroughAPhi) {
  // allocation 0, as scan_layers_train_step's: init 16-21, phi 21-25,
  // body result 25-44 (not a phi, meets a phi), phi 44-97, update 102-107;
  // then two non-phi values meeting at offset 0, and one at offset 8.
  struct Spec {
    int64_t offset;
    bool phi;
    ir::ScheduleStep start, end;
  };
  const std::vector<Spec> specs = {{0, false, 16, 21}, {0, true, 21, 25},  {0, false, 25, 44},
                                   {0, true, 44, 97},  {0, false, 102, 107}, {0, false, 0, 5},
                                   {0, false, 5, 10},  {8, true, 10, 16}};
  std::vector<ir::Value> ir_values(specs.size());
  std::vector<Predictor::ValueInfo> values(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    ir_values[i].offset = specs[i].offset;
    ir_values[i].is_phi = specs[i].phi;
    values[i].value = &ir_values[i];
    values[i].start = specs[i].start;
    values[i].end = specs[i].end;
  }
  // Listed out of start order, as a dump lists them.
  const std::vector<std::vector<int32_t>> allocation_values = {{4, 3, 2, 1, 0, 6, 5, 7}};
  std::vector<int32_t> leader;
  LoopBufferLeaders(values, allocation_values, leader);
  EXPECT_EQ(leader, (std::vector<int32_t>{0, 0, 0, 0, 4, 5, 6, 7}));
}

// A value overwritten in place is live until its writer runs: when the
// per-device schedule starts the writer later (after a combined
// all-reduce), the value it overwrites is held to it, not freed where the
// single-device program ended it.
TEST(HoldInPlaceOperandsToTheirWriters, HoldsAValueToItsDelayedInPlaceWriter) {
  // One in-place group, as scan_layers_train_step's w2-gradient loop
  // buffer: init 11-59, phi 59-63, phi 63-89 overwritten by the dynamic-
  // update-slice 89-97, loop result 97-103. A second group: 0-5 and 5-8
  // (nothing moves), then 20-30, dead (end < start) before its writer 30-40.
  // A third: 50-55 and 60-70, not meeting on one device.
  struct Spec {
    ir::ScheduleStep start, end;
  };
  const std::vector<Spec> specs = {{11, 59}, {59, 63}, {63, 89}, {89, 97}, {97, 103},
                                   {0, 5},   {5, 8},   {20, 30}, {30, 40}, {50, 55}, {60, 70}};
  std::vector<Predictor::ValueInfo> values(specs.size());
  std::vector<ir::ScheduleStep> end(specs.size()), begin(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    values[i].start = begin[i] = specs[i].start;
    values[i].end = end[i] = specs[i].end;
  }
  // Per device the writer (3) waits for an all-reduce at 95; so do the
  // writers of the other groups.
  begin[3] = 96;
  begin[8] = 45;
  end[7] = 19;
  begin[10] = 66;
  // Listed as Predictor::in_place_values_: (value, its group's first).
  const std::vector<std::pair<int32_t, int32_t>> in_place = {
      {1, 0}, {2, 0}, {3, 0}, {4, 0}, {6, 5}, {8, 7}, {10, 9}};
  HoldInPlaceOperandsToTheirWriters(values, in_place, begin, end);
  EXPECT_EQ(end, (std::vector<ir::ScheduleStep>{59, 63, 96, 97, 103, 5, 8, 19, 40, 55, 70}));
  // A writer that ends before its per-device step (a partial sum held to
  // its all-reduce) starts at its end (PerDeviceStart): its operand is held
  // to that.
  std::vector<Predictor::ValueInfo> pair(2);
  pair[0].start = 0;
  pair[0].end = 10;
  pair[1].start = 10;
  pair[1].end = 20;
  std::vector<ir::ScheduleStep> pair_end = {10, 25}, pair_begin = {0, 30};
  HoldInPlaceOperandsToTheirWriters(pair, {{1, 0}}, pair_begin, pair_end);
  EXPECT_EQ(pair_end, (std::vector<ir::ScheduleStep>{25, 25}));
}

// XLA's assigner orders buffers of one size by their instructions' place in
// the module's post order: callees before callers, each computation depth-
// first over operands from its user-less instructions. A convert scheduled
// early but read late comes after what its reader's other operands need.
TEST(InstructionPostOrder, CalleesFirstThenOperandsDepthFirst) {
  auto source = parsers::SourceText::FromString("t.hlo", R"(HloModule m, is_scheduled=true

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (p0: f32[8], p1: f32[8]) -> f32[8] {
  %p0 = f32[8] parameter(0)
  %p1 = f32[8] parameter(1)
  %early = f32[8] negate(%p1)
  %x = f32[8] exponential(%p0)
  %y = f32[8] multiply(%x, %x)
  %z = f32[8] add(%y, %early)
  %zero = f32[] constant(0)
  %r = f32[] reduce(%z, %zero), dimensions={0}, to_apply=%add
  ROOT %out = f32[8] broadcast(%r), dimensions={}
}
)");
  absl::StatusOr<ir::Program> p = parsers::ParseHloTextProgram({source}, ir::Program());
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<int64_t> position;
  InstructionPostOrder(p->module, position);
  std::map<std::string, int64_t> at;
  for (const ir::Instruction& inst : p->module.instructions()) at[std::string(inst.name)] = position[inst.id.value()];
  // The called computation first.
  for (const char* name : {"a", "b", "s"}) EXPECT_LT(at[name], at["p0"]) << name;
  // %early is scheduled before %x but is %z's second operand: after %y.
  const std::vector<std::string> order = {"p0", "x", "y", "p1", "early", "z", "zero", "r", "out"};
  for (size_t k = 1; k < order.size(); ++k) EXPECT_LT(at[order[k - 1]], at[order[k]]) << order[k];
}

// The re-run places an in-place group whole, and breaks ties among buffers
// of one size by TempBuffer::order, not by start.
TEST(ReassignOutputAllocations, MovesInPlaceGroupsWholeAndTiesByPostOrder) {
  // One output allocation of 100 bytes, its live-out value at 90-99.
  const std::vector<int64_t> cap = {100};
  const std::vector<std::vector<TempBuffer>> live_out = {{{100, 90, 99, -1, 0, {}}}};
  // 0: early (start 10) but late in post order, 10-60; 1: 40-41 and 2
  // overwriting it in place 41-42, earlier in post order: the group goes
  // first, so 0 stays in the arena.
  std::vector<TempBuffer> temp = {{80, 10, 60, -1, 50, {}}, {80, 40, 41, -1, 20, {}}, {80, 41, 42, 1, 21, {}}};
  std::vector<TempBuffer> resident;
  ReassignOutputAllocations(cap, live_out, {}, temp, resident);
  ASSERT_EQ(temp.size(), 1u);
  EXPECT_EQ(temp[0].start, 10);
  ASSERT_EQ(resident.size(), 2u);
  EXPECT_EQ(resident[0].start, 40);
  EXPECT_EQ(resident[1].start, 41);
  // The other way round in post order, the early one takes the allocation
  // and the group stays whole in the arena, still sharing.
  temp = {{80, 10, 60, -1, 10, {}}, {80, 40, 41, -1, 20, {}}, {80, 41, 42, 1, 21, {}}};
  resident.clear();
  ReassignOutputAllocations(cap, live_out, {}, temp, resident);
  ASSERT_EQ(temp.size(), 2u);
  EXPECT_EQ(temp[1].share_with, 0);
  ASSERT_EQ(resident.size(), 1u);
  EXPECT_EQ(resident[0].start, 10);
}

// A buffer the re-run places in a donated parameter's allocation
// (in_arguments) leaves the arena but is not resident: the arguments
// already count those bytes.
TEST(ReassignOutputAllocations, DonatedParameterAllocationsHoldBuffersAtNoCost) {
  // 0: a donated parameter's 100 bytes, the parameter to 10 and its update
  // from 90; 1: an output allocation of 100 bytes, live out from 90.
  const std::vector<int64_t> cap = {100, 100};
  const std::vector<std::vector<TempBuffer>> live_out = {
      {{100, 0, 10, -1, 0, {}}, {100, 90, 99, -1, 0, {}}}, {{100, 90, 99, -1, 0, {}}}};
  const std::vector<uint8_t> in_arguments = {1, 0};
  // Two buffers of 80 bytes at 20-60: one in each allocation.
  std::vector<TempBuffer> temp = {{80, 20, 60, -1, 1, {}}, {80, 20, 60, -1, 2, {}}};
  std::vector<TempBuffer> resident;
  ReassignOutputAllocations(cap, live_out, in_arguments, temp, resident);
  EXPECT_TRUE(temp.empty());
  EXPECT_EQ(resident.size(), 1u);
}

// A donated parameter whose reader the per-device schedule starts later
// (after a combined all-reduce) holds its allocation until that reader.
TEST(HoldDonatedParametersToTheirReaders, ParameterLivesToItsDelayedReader) {
  std::vector<Predictor::ValueInfo> values(4);
  values[0].start = 0, values[0].end = 10;   // the parameter, read at 10 on one device
  values[1].start = 10, values[1].end = 12;  // its reader, issued at 30 per device
  values[2].start = 0, values[2].end = 5;    // another parameter, read at 5
  values[3].start = 5, values[3].end = 6;    // its reader, not delayed
  const std::vector<std::pair<int32_t, int32_t>> readers = {{0, 1}, {2, 3}};
  const std::vector<ir::ScheduleStep> begin = {0, 30, 0, 5};
  std::vector<ir::ScheduleStep> end = {10, 40, 5, 6};
  HoldDonatedParametersToTheirReaders(values, readers, begin, end);
  EXPECT_EQ(end[0], 30);
  EXPECT_EQ(end[2], 5);
  EXPECT_EQ(end[1], 40);
}

TEST(AxesSharding, ReadsJaxShardingsOfATwoAxisMesh) {
  const ir::Mesh mesh = MakeMesh({{"dp", 2}, {"tp", 4}});
  // What jax 0.10 gives P(None, 'tp') and P('dp', None) on Mesh(dp=2, tp=4)
  // (samples/sharded/mlp_train_step/candidates/dp2_tp4.truth.json).
  const AxesSharding col = Axes("{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}", mesh, 2);
  EXPECT_EQ(AxesShardingToString(col, mesh), "[null, tp]");
  const AxesSharding data = Axes("{devices=[2,1,4]<=[8] last_tile_dim_replicate}", mesh, 2);
  EXPECT_EQ(AxesShardingToString(data, mesh), "[dp]");
  const AxesSharding both = Axes("{devices=[8,1]<=[8]}", mesh, 2);
  EXPECT_EQ(AxesShardingToString(both, mesh), "[(dp,tp)]");
  EXPECT_TRUE(Axes("{replicated}", mesh, 3).IsReplicated());
}

TEST(AxesSharding, RefusesWhatNoWholeAxesExplain) {
  const ir::Mesh mesh = MakeMesh({{"dp", 2}, {"tp", 4}});
  size_t consumed = 0;
  auto s = parsers::ParseHloSharding("{devices=[2,1,4]<=[8] last_tile_dim_replicate}", &consumed);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(AxesFromHloSharding(*s, mesh, 3).ok());  // rank mismatch
  auto odd = parsers::ParseHloSharding("{devices=[2,4]0,2,4,6,1,3,5,7}", &consumed);
  ASSERT_TRUE(odd.ok());
  // Dim 0 steps devices 0 -> 1 (tp), dim 1 steps 0 -> 2 (tp too): no axis set.
  EXPECT_FALSE(AxesFromHloSharding(*odd, mesh, 2).ok());
}

TEST(AxesSharding, ShardBytesPadLikeXla) {
  MeshSizes mesh{{8}};
  ir::Shape s;
  s.dtype = ir::DType::kF32;
  s.dims = {8, 128, 1001};
  AxesSharding a;
  a.dims = {0, 0, 1};
  // XLA pads 1001 to tiles of 126 (samples/sharded/README.md, tp8).
  EXPECT_EQ(ShardBytes(s, a, mesh), 8 * 128 * 126 * 4);
  EXPECT_EQ(ShardBytes(s, AxesSharding{}, mesh), 8 * 128 * 1001 * 4);
}

constexpr const char* kMlp = R"(HloModule m, entry_computation_layout={(f32[256,512]{1,0}, f32[512,2048]{1,0}, f32[2048,512]{1,0})->f32[256,512]{1,0}}

ENTRY %main (x: f32[256,512], w1: f32[512,2048], w2: f32[2048,512]) -> f32[256,512] {
  %x = f32[256,512]{1,0} parameter(0)
  %w1 = f32[512,2048]{1,0} parameter(1)
  %w2 = f32[2048,512]{1,0} parameter(2)
  %h = f32[256,2048]{1,0} dot(%x, %w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %y = f32[256,512]{1,0} dot(%h, %w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %c = f32[] constant(0)
  %b = f32[256,512]{1,0} broadcast(%c), dimensions={}
  ROOT %out = f32[256,512]{1,0} add(%y, %b)
}
)";

TEST_F(PropagateTest, MegatronColumnThenRowParallelAllReducesOnce) {
  Load(kMlp);
  const ir::Mesh mesh = MakeMesh({{"dp", 2}, {"tp", 4}});
  // x [dp, null], w1 [null, tp] (colwise), w2 [tp, null] (rowwise).
  Propagation p = Run(mesh, {{{1, 0}, 0}, {{0, 2}, 0}, {{2, 0}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "h"), mesh), "[dp, tp]");
  EXPECT_EQ(AxesShardingToString(Of(p, "y"), mesh), "[dp] partial(tp)");
  EXPECT_EQ(AxesShardingToString(Of(p, "out"), mesh), "[dp]");
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(p.collectives[0].axes, 2u);
  EXPECT_EQ(p.collectives[0].result_bytes, 128 * 512 * 4);  // f32[128,512] per device
  EXPECT_TRUE(p.unknown.empty());
}

TEST_F(PropagateTest, FsdpGathersTheSmallerOperand) {
  Load(kMlp);
  const ir::Mesh mesh = MakeMesh({{"fsdp", 8}});
  // x [fsdp, null]; w1 [null, fsdp]; w2 [fsdp, null] (largest dims).
  Propagation p = Run(mesh, {{{1, 0}, 0}, {{0, 1}, 0}, {{1, 0}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "h"), mesh), "[null, fsdp]");
  ASSERT_GE(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].kind, CollectiveKind::kAllGather);
  EXPECT_EQ(p.collectives[0].result_bytes, 256 * 512 * 4);  // x gathered whole
  // h [null, fsdp] @ w2 [fsdp, null]: contracting on fsdp both sides.
  EXPECT_EQ(AxesShardingToString(Of(p, "y"), mesh), "[] partial(fsdp)");
}

// Backward from the use: the scaled gradient lr * g is made in the sharding
// of the parameter it updates (XLA's propagation reaches it backwards from
// the subtract), so g's partial sum is all-reduced there and each device
// keeps its slice. Forward alone, lr * g came out replicated.
TEST_F(PropagateTest, BackwardGivesTheUpdateTheParametersSharding) {
  Load(R"(HloModule m

ENTRY %main (x: f32[256,512], dy: f32[256,64], w: f32[512,64]) -> f32[512,64] {
  %x = f32[256,512]{1,0} parameter(0)
  %dy = f32[256,64]{1,0} parameter(1)
  %w = f32[512,64]{1,0} parameter(2)
  %g = f32[512,64]{1,0} dot(%x, %dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  %lr = f32[] constant(0.1)
  %lrb = f32[512,64]{1,0} broadcast(%lr), dimensions={}
  %step = f32[512,64]{1,0} multiply(%lrb, %g)
  ROOT %new = f32[512,64]{1,0} subtract(%w, %step)
}
)");
  const ir::Mesh mesh = MakeMesh({{"fsdp", 8}});
  // x, dy: [fsdp, null] (the batch); w: [fsdp, null].
  Propagation p = Run(mesh, {{{1}, 0}, {{1}, 0}, {{1}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "g"), mesh), "[] partial(fsdp)");
  EXPECT_EQ(AxesShardingToString(Of(p, "step"), mesh), "[fsdp]");
  EXPECT_EQ(AxesShardingToString(Of(p, "lrb"), mesh), "[fsdp]");
  EXPECT_EQ(AxesShardingToString(Of(p, "new"), mesh), "[fsdp]");
  // One all-reduce of the partial g, full size: XLA's CPU pipeline keeps
  // the partitioner's all-reduce and slices (no reduce-scatter in any
  // samples/sharded compile).
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(p.collectives[0].result_bytes, 512 * 64 * 4);
}

// A zero accumulator carried by a loop is sharded from the loop state's
// later use, backward through the while: here the loop adds a sharded
// value to it, the loop's result feeds a [dp]-sharded subtract.
TEST_F(PropagateTest, BackwardReachesLoopStateFromTheLoopsUse) {
  Load(R"(HloModule m

%body (s: (s32[], f32[64,32], f32[64,32])) -> (s32[], f32[64,32], f32[64,32]) {
  %s = (s32[], f32[64,32]{1,0}, f32[64,32]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %acc = f32[64,32]{1,0} get-tuple-element(%s), index=1
  %v = f32[64,32]{1,0} get-tuple-element(%s), index=2
  %one = s32[] constant(1)
  %i2 = s32[] add(%i, %one)
  %acc2 = f32[64,32]{1,0} add(%acc, %acc)
  ROOT %t = (s32[], f32[64,32]{1,0}, f32[64,32]{1,0}) tuple(%i2, %acc2, %v)
}

%cond (c: (s32[], f32[64,32], f32[64,32])) -> pred[] {
  %c = (s32[], f32[64,32]{1,0}, f32[64,32]{1,0}) parameter(0)
  %ci = s32[] get-tuple-element(%c), index=0
  %n = s32[] constant(4)
  ROOT %lt = pred[] compare(%ci, %n), direction=LT
}

ENTRY %main (w: f32[64,32], v: f32[64,32]) -> f32[64,32] {
  %w = f32[64,32]{1,0} parameter(0)
  %v = f32[64,32]{1,0} parameter(1)
  %zero = f32[] constant(0)
  %z = f32[64,32]{1,0} broadcast(%zero), dimensions={}
  %i0 = s32[] constant(0)
  %init = (s32[], f32[64,32]{1,0}, f32[64,32]{1,0}) tuple(%i0, %z, %v)
  %loop = (s32[], f32[64,32]{1,0}, f32[64,32]{1,0}) while(%init), condition=%cond, body=%body
  %out = f32[64,32]{1,0} get-tuple-element(%loop), index=1
  ROOT %new = f32[64,32]{1,0} subtract(%w, %out)
}
)");
  const ir::Mesh mesh = MakeMesh({{"dp", 8}});
  // w: [dp, null]; v replicated: nothing forward splits the accumulator.
  Propagation p = Run(mesh, {{{1}, 0}, {}});
  EXPECT_EQ(AxesShardingToString(Of(p, "z"), mesh), "[dp]");
  EXPECT_EQ(AxesShardingToString(Of(p, "acc2"), mesh), "[dp]");
  EXPECT_TRUE(Of(p, "v").IsReplicated());
  EXPECT_TRUE(p.collectives.empty());
}

// Hints live in one array of every instruction's leaves, at
// PropagationGraph::leaf_offset: each instruction's offset is the leaf count
// of every instruction before it (counted here from the shapes). A hint
// reaching leaf 1 of a tuple lands on that leaf: the zeros behind it take
// the split their reader wants, the other leaf stays as it was.
TEST_F(PropagateTest, HintsOfTupleLeavesLandOnTheirOwnLeaf) {
  Load(R"(HloModule m

ENTRY %main (a: f32[8,4], b: f32[8,4]) -> ((f32[8,4], f32[8,4]), f32[8,4], f32[8,4]) {
  %a = f32[8,4]{1,0} parameter(0)
  %b = f32[8,4]{1,0} parameter(1)
  %zero = f32[] constant(0)
  %z = f32[8,4]{1,0} broadcast(%zero), dimensions={}
  %p = (f32[8,4]{1,0}, f32[8,4]{1,0}) tuple(%b, %z)
  %q = f32[8,4]{1,0} get-tuple-element(%p), index=1
  %m = f32[8,4]{1,0} add(%q, %a)
  ROOT %t = ((f32[8,4]{1,0}, f32[8,4]{1,0}), f32[8,4]{1,0}, f32[8,4]{1,0}) tuple(%p, %m, %b)
}
)");
  const ir::Module& module = program_->module;
  std::vector<int64_t> counts(module.instruction_count(), -1);
  for (const ir::Instruction& inst : module.instructions()) {
    std::vector<const ir::Shape*> leaves;
    CollectLeafShapes(inst.shape, &leaves);
    counts.at(static_cast<size_t>(inst.id.value())) = static_cast<int64_t>(leaves.size());
  }
  ASSERT_EQ(graph_.leaf_offset.size(), counts.size() + 1);
  int64_t next = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    EXPECT_EQ(graph_.leaf_offset[i], next) << "instruction " << i;
    next += counts[i];
  }
  EXPECT_EQ(graph_.leaf_offset.back(), next);
  EXPECT_EQ(next, static_cast<int64_t>(counts.size()) - 2 + 2 + 4);  // p: 2 leaves, t: 4

  const ir::Mesh mesh = MakeMesh({{"dp", 8}});
  Propagation p = Run(mesh, {{{1}, 0}, {}});  // a: [dp, null]; b replicated
  EXPECT_EQ(AxesShardingToString(Of(p, "m"), mesh), "[dp]");
  EXPECT_EQ(AxesShardingToString(Of(p, "z"), mesh), "[dp]");
  EXPECT_EQ(AxesShardingToString(Of(p, "q"), mesh), "[dp]");
  for (const ir::Instruction& inst : module.instructions()) {
    if (inst.name != "p") continue;
    const auto& leaves = p.leaves[static_cast<size_t>(inst.id.value())];
    ASSERT_EQ(leaves.size(), 2u);
    EXPECT_TRUE(leaves[0].IsReplicated());
    EXPECT_EQ(AxesShardingToString(leaves[1], mesh), "[dp]");
  }
  EXPECT_TRUE(Of(p, "b").IsReplicated());
}

// One buffer all-to-all'd three ways (its split moved to dim 1, 2 or 3, of
// sizes 2, 3 and 6): which of those collectives are one (equal result
// bytes) depends on the axis size. Whatever size the answers are recorded
// at, every size that answers the recorded questions alike propagates the
// same collectives, so the answers must tell apart a size where the second
// and third results are equal (x = 3, 4, 5) from one where they differ
// (x = 6, 7, 8), though both differ from the first.
TEST_F(PropagateTest, RecordedAnswersTellApartEveryResultShardingOfOneBuffer) {
  Load(R"(HloModule m

ENTRY %main (a: f32[8,2,3,6], b1: f32[8,2,3,6], b2: f32[8,2,3,6], b3: f32[8,2,3,6]) -> (f32[8,2,3,6], f32[8,2,3,6], f32[8,2,3,6]) {
  %a = f32[8,2,3,6]{3,2,1,0} parameter(0)
  %b1 = f32[8,2,3,6]{3,2,1,0} parameter(1)
  %b2 = f32[8,2,3,6]{3,2,1,0} parameter(2)
  %b3 = f32[8,2,3,6]{3,2,1,0} parameter(3)
  %s1 = f32[8,2,3,6]{3,2,1,0} add(%b1, %a)
  %s2 = f32[8,2,3,6]{3,2,1,0} add(%b2, %a)
  %s3 = f32[8,2,3,6]{3,2,1,0} add(%b3, %a)
  ROOT %t = (f32[8,2,3,6]{3,2,1,0}, f32[8,2,3,6]{3,2,1,0}, f32[8,2,3,6]{3,2,1,0}) tuple(%s1, %s2, %s3)
}
)");
  const std::vector<AxesSharding> params = {
      {{1, 0, 0, 0}, 0}, {{0, 1, 0, 0}, 0}, {{0, 0, 1, 0}, 0}, {{0, 0, 0, 1}, 0}};
  auto shape_of = [](const Propagation& p) {
    std::vector<std::string> out;
    for (const PredictedCollective& c : p.collectives) {
      out.push_back(absl::StrCat(static_cast<int>(c.kind), " ", c.source.value(), " ", c.at.value(),
                                 " ", c.axes));
    }
    return out;
  };
  std::set<size_t> counts;
  for (int64_t a = 2; a <= 8; ++a) {
    SizeAnswers answers;
    absl::StatusOr<Propagation> pa =
        Propagate(program_->module, graph_, MeshSizes{{a}}, params, &answers);
    ASSERT_TRUE(pa.ok()) << pa.status();
    counts.insert(pa->collectives.size());
    for (int64_t b = 2; b <= 8; ++b) {
      if (!answers.Holds(MeshSizes{{b}})) continue;
      absl::StatusOr<Propagation> pb = Propagate(program_->module, graph_, MeshSizes{{b}}, params);
      ASSERT_TRUE(pb.ok()) << pb.status();
      EXPECT_EQ(shape_of(*pa), shape_of(*pb)) << "recorded at " << a << ", held at " << b;
    }
  }
  EXPECT_EQ(counts, (std::set<size_t>{2, 3}));  // sizes of both kinds were tried
}

// An all-to-all re-splits: its result is no larger per device than its
// operand. And one buffer all-gathered for two consumers is gathered once
// (XLA's CSE of the partitioned program).
TEST_F(PropagateTest, AllToAllKeepsTheSizeAndGathersAreShared) {
  Load(R"(HloModule m

ENTRY %main (a: f32[64,32], b: f32[64,32], w: f32[32,16]) -> (f32[64,32], f32[64,16], f32[64,16]) {
  %a = f32[64,32]{1,0} parameter(0)
  %b = f32[64,32]{1,0} parameter(1)
  %w = f32[32,16]{1,0} parameter(2)
  %s = f32[64,32]{1,0} add(%a, %b)
  %d1 = f32[64,16]{1,0} dot(%a, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %e = f32[64,16]{1,0} exponential(%d1)
  %d2 = f32[64,16]{1,0} dot(%e, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %t = (f32[64,32]{1,0}, f32[64,16]{1,0}, f32[64,16]{1,0}) tuple(%s, %d1, %d2)
}
)");
  const ir::Mesh mesh = MakeMesh({{"dp", 8}});
  // a: [dp, null]; b: [null, dp]; w: [null, dp].
  Propagation p = Run(mesh, {{{1}, 0}, {{0, 1}, 0}, {{0, 1}, 0}});
  int all_to_all = 0, gathers_of_w = 0;
  for (const PredictedCollective& c : p.collectives) {
    if (c.kind == CollectiveKind::kAllToAll) {
      ++all_to_all;
      EXPECT_EQ(c.result_bytes, c.operand_bytes);
      EXPECT_EQ(c.result_bytes, 64 * 32 * 4 / 8);
    }
    if (c.kind == CollectiveKind::kAllGather && c.source.valid() &&
        program_->module.instruction(c.source).name == "w") {
      ++gathers_of_w;
    }
  }
  EXPECT_EQ(all_to_all, 1);
  EXPECT_EQ(gathers_of_w, 1);
}

TEST_F(PropagateTest, UnknownOpsReplicateAndAreListed) {
  Load(R"(HloModule m

ENTRY %main (x: f32[64,8]) -> f32[64,8] {
  %x = f32[64,8]{1,0} parameter(0)
  ROOT %cc = f32[64,8]{1,0} custom-call(%x), custom_call_target="Foo"
}
)");
  const ir::Mesh mesh = MakeMesh({{"dp", 8}});
  Propagation p = Run(mesh, {{{1}, 0}});
  ASSERT_EQ(p.unknown.size(), 1u);
  EXPECT_TRUE(p.unknown[0].had_sharded_operand);
  EXPECT_TRUE(Of(p, "cc").IsReplicated());
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].kind, CollectiveKind::kAllGather);
}

// log-plus-one, exponential-minus-one and atan2 are elementwise (XLA prices them so): a sharding
// passes through them with no collective and no place left unknown.
TEST_F(PropagateTest, Log1pExpm1AndAtan2KeepTheirOperandsSharding) {
  Load(R"(HloModule m

ENTRY %main (x: f32[64,8], y: f32[64,8]) -> f32[64,8] {
  %x = f32[64,8]{1,0} parameter(0)
  %y = f32[64,8]{1,0} parameter(1)
  %l = f32[64,8]{1,0} log-plus-one(%x)
  %e = f32[64,8]{1,0} exponential-minus-one(%l)
  ROOT %a = f32[64,8]{1,0} atan2(%e, %y)
}
)");
  const ir::Mesh mesh = MakeMesh({{"dp", 8}});
  Propagation p = Run(mesh, {{{1, 0}, 0}, {{1, 0}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "l"), mesh), "[dp]");
  EXPECT_EQ(AxesShardingToString(Of(p, "e"), mesh), "[dp]");
  EXPECT_EQ(AxesShardingToString(Of(p, "a"), mesh), "[dp]");
  EXPECT_TRUE(p.collectives.empty());
  EXPECT_TRUE(p.unknown.empty());
}

// Hand-worked reshapes: which input dims hold the same elements as which
// output dims (the walk both the forward rule and the backward hint use).
TEST(ReshapeDimGroups, GroupsDimsWhoseProductsMeet) {
  auto groups = [](std::vector<int64_t> in, std::vector<int64_t> out) {
    std::string s;
    for (const ReshapeGroup& g : ReshapeDimGroups(in, out)) {
      absl::StrAppend(&s, "[", g.in_begin, ",", g.in_end, ")->[", g.out_begin, ",", g.out_end, ")",
                      g.exact ? "" : "~", " ");
    }
    return s;
  };
  EXPECT_EQ(groups({8, 768}, {8, 12, 64}), "[0,1)->[0,1) [1,2)->[1,3) ");
  EXPECT_EQ(groups({8, 12, 64}, {8, 768}), "[0,1)->[0,1) [1,3)->[1,2) ");
  EXPECT_EQ(groups({2, 1, 3}, {6}), "[0,3)->[0,1) ");       // a 1 inside a group
  EXPECT_EQ(groups({1, 4}, {4, 1}), "[1,2)->[0,1) ");       // 1s outside any group
  EXPECT_EQ(groups({6, 4}, {4, 6}), "[0,2)->[0,2) ");       // 6 = 4 x 1.5: one group
  EXPECT_EQ(groups({4, 6}, {4, 3}), "[0,1)->[0,1) [1,2)->[1,2)~ ");  // not a reshape
  EXPECT_EQ(groups({}, {}), "");
}

TEST_F(PropagateTest, ReduceOverAShardedDimIsPartialAndReshapeKeepsTheMajorSplit) {
  Load(R"(HloModule m

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[8,16,4]) -> f32[128] {
  %x = f32[8,16,4]{2,1,0} parameter(0)
  %c = f32[] constant(0)
  %r = f32[8,16]{1,0} reduce(%x, %c), dimensions={2}, to_apply=%add
  %t = f32[16,8]{1,0} transpose(%r), dimensions={1,0}
  ROOT %f = f32[128]{0} reshape(%t)
}
)");
  const ir::Mesh mesh = MakeMesh({{"a", 2}, {"b", 4}});
  Propagation p = Run(mesh, {{{1, 0, 2}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "r"), mesh), "[a] partial(b)");
  EXPECT_EQ(AxesShardingToString(Of(p, "t"), mesh), "[null, a] partial(b)");
  // [16,8] -> [128]: the major dim (16) is unsplit, the minor split one is
  // gathered; the partial sum carries through the reshape.
  EXPECT_EQ(AxesShardingToString(Of(p, "f"), mesh), "[] partial(b)");
}

// 768 split 8 ways, reshaped to 12 heads of 64: 12 is not divisible by 8
// but by 4 of it. On whole axes the heads are gathered and propagation asks
// for tp as 4 x 2; on those sub-axes the heads keep the major 4 and only the
// minor 2 is gathered (XLA: all-gathers over groups [4,2]<=[8],
// samples/sharded/transformer_fwd/candidates/tp8.truth.json).
TEST_F(PropagateTest, ReshapeKeepsThePartOfAnAxisThatDividesOnSubAxes) {
  Load(R"(HloModule m

ENTRY %main (x: f32[8,768]) -> f32[8,12,64] {
  %x = f32[8,768]{1,0} parameter(0)
  ROOT %h = f32[8,12,64]{2,1,0} reshape(%x)
}
)");
  const ir::Mesh mesh = MakeMesh({{"tp", 8}});
  Propagation whole = Run(mesh, {{{0, 1}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(whole, "h"), mesh), "[]");
  ASSERT_EQ(whole.wanted_sub_axes.size(), 1u);
  EXPECT_EQ(whole.wanted_sub_axes[0], (std::pair<size_t, int64_t>{0, 4}));

  const SubAxes sub = FactorMesh(MeshSizes{{8}}, whole.wanted_sub_axes);
  EXPECT_FALSE(sub.identity);
  EXPECT_EQ(sub.mesh.sizes, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(sub.Split(AxisMask{1}), 3u);
  EXPECT_EQ(sub.Merge(AxisMask{1}), 1u);
  EXPECT_EQ(sub.Merge(AxisMask{2}), 1u);

  const ir::Mesh split = MakeMesh({{"hi", 4}, {"lo", 2}});
  Propagation parts = Run(split, {sub.Split(AxesSharding{{0, 1}, 0})});
  EXPECT_EQ(AxesShardingToString(Of(parts, "h"), split), "[null, hi]");
  ASSERT_EQ(parts.collectives.size(), 1u);
  EXPECT_EQ(parts.collectives[0].kind, CollectiveKind::kAllGather);
  EXPECT_EQ(parts.collectives[0].axes, 2u);               // lo
  EXPECT_EQ(parts.collectives[0].operand_bytes, 8 * 96 * 4);   // f32[8,96]
  EXPECT_EQ(parts.collectives[0].result_bytes, 8 * 192 * 4);   // f32[8,192]: 3 heads
  EXPECT_TRUE(parts.wanted_sub_axes.empty());
}

// A dimension split by several axes keeps the major ones whose product
// divides the reshape's major output dimension.
TEST_F(PropagateTest, ReshapeKeepsTheMajorAxesThatDivide) {
  Load(R"(HloModule m

ENTRY %main (x: f32[8,768]) -> f32[8,12,64] {
  %x = f32[8,768]{1,0} parameter(0)
  ROOT %h = f32[8,12,64]{2,1,0} reshape(%x)
}
)");
  const ir::Mesh mesh = MakeMesh({{"dp", 2}, {"tp", 4}});
  Propagation p = Run(mesh, {{{0, 3}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "h"), mesh), "[null, dp]");
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].axes, 2u);  // tp gathered
  // 12 / 2 = 6 heads left: 2 of tp's 4 would divide them.
  ASSERT_EQ(p.wanted_sub_axes.size(), 1u);
  EXPECT_EQ(p.wanted_sub_axes[0], (std::pair<size_t, int64_t>{1, 2}));
}

// A contracting dimension split by (dp, ep) on one operand and by dp on
// the other, whose ep is its batch (experts) axis: moe_train_step
// dp2_ep4's expert weight-gradient dot. XLA's partitioner does not keep
// the dp contraction split (the sharded dump has no all-reduce of the
// gradient): the tokens come to the experts over ep, h is all-gathered
// over dp, and the result is split over ep alone, no partial sum.
// Contracting over dp kept it a partial sum with its all-reduce.
TEST_F(PropagateTest, ContractionSplitAgainstABatchAxisIsGatheredOnBoth) {
  Load(R"(HloModule m

ENTRY %main (t: f32[4,16,8], h: f32[4,32,16]) -> f32[4,8,32] {
  %t = f32[4,16,8]{2,1,0} parameter(0)
  %h = f32[4,32,16]{2,1,0} parameter(1)
  ROOT %g = f32[4,8,32]{2,1,0} dot(%t, %h), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={2}
}
)");
  const ir::Mesh mesh = MakeMesh({{"dp", 2}, {"ep", 4}});
  // t [e, g*c, d]: g*c by (dp, ep). h [e, f, g*c]: e by ep, g*c by dp.
  Propagation p = Run(mesh, {{{0, 3, 0}, 0}, {{2, 0, 1}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "g"), mesh), "[ep]");
  int all_reduces = 0, gathers_of_h = 0;
  for (const PredictedCollective& c : p.collectives) {
    if (c.kind == CollectiveKind::kAllReduce) ++all_reduces;
    if (c.kind == CollectiveKind::kAllGather && c.source.valid() &&
        program_->module.instruction(c.source).name == "h") {
      ++gathers_of_h;
      EXPECT_EQ(c.axes, 1u);  // dp
      EXPECT_EQ(c.result_bytes, 4 * 32 * 16 * 4 / 4);
    }
  }
  EXPECT_EQ(all_reduces, 0);
  EXPECT_EQ(gathers_of_h, 1);
}

// A value split by dp on a dimension that its reader splits by (dp, ep)
// takes ep too, as the minor part (XLA merges a compatible, more specific
// sharding): here a reshape that cannot keep ep on the minor factor of the
// dimension it merges re-splits its operand onto the batch dim by an
// all-to-all instead of gathering ep (moe_train_step dp2_ep4's combine
// dot: XLA's all-to-all.5, where memplan gathered the expert output over
// ep, 1.25 -> 5 MiB per device).
TEST_F(PropagateTest, ASplitDimensionTakesTheReadersMinorAxes) {
  Load(R"(HloModule m

ENTRY %main (a: f32[8,4,16], b: f32[8,16,4,8]) -> f32[8,4,32] {
  %a = f32[8,4,16]{2,1,0} parameter(0)
  %b = f32[8,16,4,8]{3,2,1,0} parameter(1)
  %r = f32[8,16,32]{2,1,0} reshape(%b)
  ROOT %d = f32[8,4,32]{2,1,0} dot(%a, %r), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}
)");
  const ir::Mesh mesh = MakeMesh({{"dp", 2}, {"ep", 4}});
  // a: [(dp, ep), null, null]; b: [dp, null, null, ep].
  Propagation p = Run(mesh, {{{3, 0, 0}, 0}, {{1, 0, 0, 2}, 0}});
  EXPECT_EQ(Of(p, "r").Dim(0), 3u);
  int gathers = 0, all_to_all = 0;
  for (const PredictedCollective& c : p.collectives) {
    if (c.kind == CollectiveKind::kAllGather) ++gathers;
    if (c.kind == CollectiveKind::kAllToAll) {
      ++all_to_all;
      EXPECT_EQ(c.result_bytes, c.operand_bytes);
    }
  }
  EXPECT_EQ(gathers, 0);
  EXPECT_EQ(all_to_all, 1);
}

// A partial sum read by one fusion directly and by another through a
// bitcast outside both fusions is one value: XLA's partitioner all-reduces
// the dot once (gpt_lm_train_step tp8: the backward dx of ynn_fusion.57,
// .52 and .35 was all-reduced twice, once per path; XLA's dump has one
// all-reduce each, 16,793,600 bytes in all, memplan had 19,939,328).
TEST_F(PropagateTest, APartialSumReadThroughAnOuterBitcastIsAllReducedOnce) {
  Load(R"(HloModule m

%neg1 (p: f32[8,4]) -> f32[8,4] {
  %p = f32[8,4]{1,0} parameter(0)
  ROOT %n = f32[8,4]{1,0} negate(%p)
}

%neg2 (q: f32[32]) -> f32[32] {
  %q = f32[32]{0} parameter(0)
  ROOT %m = f32[32]{0} negate(%q)
}

ENTRY %main (x: f32[8,16], w: f32[16,4]) -> (f32[8,4], f32[32]) {
  %x = f32[8,16]{1,0} parameter(0)
  %w = f32[16,4]{1,0} parameter(1)
  %d = f32[8,4]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %b = f32[32]{0} bitcast(%d)
  %f1 = f32[8,4]{1,0} fusion(%d), kind=kLoop, calls=%neg1
  %f2 = f32[32]{0} fusion(%b), kind=kLoop, calls=%neg2
  ROOT %t = (f32[8,4]{1,0}, f32[32]{0}) tuple(%f1, %f2)
}
)");
  const ir::Mesh mesh = MakeMesh({{"tp", 8}});
  Propagation p = Run(mesh, {{{0, 1}, 0}, {{1, 0}, 0}});
  int all_reduces = 0;
  for (const PredictedCollective& c : p.collectives) {
    if (c.kind == CollectiveKind::kAllReduce) ++all_reduces;
  }
  EXPECT_EQ(all_reduces, 1);
}

}  // namespace
}  // namespace memplan::predictor
