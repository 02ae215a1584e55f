// Sharding propagation rules on small HLO modules, and the sharding
// arithmetic they rest on. Expected shardings are what XLA's SPMD
// partitioner produces for these patterns (Megatron column/row parallel
// matmuls, data parallel gradients, FSDP's gather of the smaller operand as
// the sharded corpus's fsdp8 compile shows: mlp_train_step all-gathers
// f32[256,512] activations, not its f32[512,2048] weights).
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/hlo_text_program.h"
#include "parsers/source_text.h"
#include "predictor/axes_sharding.h"
#include "predictor/propagation.h"

namespace memplan::predictor {
namespace {

ir::Mesh MakeMesh(std::vector<std::pair<std::string, int64_t>> axes) {
  ir::Mesh mesh;
  for (auto& [name, size] : axes) mesh.axes.push_back({name, size});
  return mesh;
}

AxesSharding Axes(std::string_view text, const ir::Mesh& mesh, int64_t rank) {
  size_t consumed = 0;
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloSharding(text, &consumed);
  EXPECT_TRUE(s.ok()) << s.status();
  absl::StatusOr<AxesSharding> a = AxesFromHloSharding(*s, mesh, rank);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? *a : AxesSharding{};
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

class PropagateTest : public ::testing::Test {
 protected:
  void Load(std::string text) {
    auto source = parsers::SourceText::FromString("t.hlo", std::move(text));
    absl::StatusOr<ir::Program> p = parsers::ParseHloTextProgram({source}, ir::Program());
    ASSERT_TRUE(p.ok()) << p.status();
    program_ = std::make_unique<ir::Program>(*std::move(p));
    graph_ = PropagationGraph::Build(program_->module);
  }
  Propagation Run(const ir::Mesh& mesh, std::vector<AxesSharding> params) {
    MeshSizes sizes;
    for (const auto& a : mesh.axes) sizes.sizes.push_back(a.size);
    absl::StatusOr<Propagation> p = Propagate(program_->module, graph_, sizes, params);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : Propagation{};
  }
  const AxesSharding& Of(const Propagation& p, std::string_view name) {
    for (const ir::Instruction& i : program_->module.instructions()) {
      if (i.name == name) return p.leaves[static_cast<size_t>(i.id.value())].at(0);
    }
    ADD_FAILURE() << "no " << name;
    static AxesSharding none;
    return none;
  }
  std::unique_ptr<ir::Program> program_;
  PropagationGraph graph_;
};

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
  EXPECT_EQ(AxesShardingToString(Of(p, "y"), mesh), "[dp] partialtp");
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
  EXPECT_EQ(AxesShardingToString(Of(p, "y"), mesh), "[] partialfsdp");
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
  EXPECT_EQ(AxesShardingToString(Of(p, "r"), mesh), "[a] partialb");
  EXPECT_EQ(AxesShardingToString(Of(p, "t"), mesh), "[null, a] partialb");
  // [16,8] -> [128]: the major dim (16) is unsplit, the minor split one is
  // gathered; the partial sum carries through the reshape.
  EXPECT_EQ(AxesShardingToString(Of(p, "f"), mesh), "[] partialb");
}

}  // namespace
}  // namespace memplan::predictor
