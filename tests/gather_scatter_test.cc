// Gathers and scatters whose batching dims XLA's CPU pipeline lowered into
// iota indices (predictor/lowered_batching.h), as jnp.take_along_axis and
// its transpose compile: found again, and split as the partitioner split
// them (predictor/gather_scatter_rules.cc).
#include <string>

#include "gtest/gtest.h"
#include "predictor/lowered_batching.h"
#include "tests/propagate_fixture.h"

namespace memplan::predictor {
namespace {

// take_along_axis(logp, labels[..., None], axis=-1) and its transpose, as
// the CPU pipeline leaves them: the indices an iota over the batch, an iota
// over the sequence and the label, concatenated in a fusion and flattened.
constexpr const char* kTakeAlongAxis = R"(HloModule m

%make_idx (l: s32[8,16]) -> s32[8,16,1,3] {
  %l = s32[8,16]{1,0} parameter(0)
  %i0 = s32[8,16,1,1]{3,2,1,0} iota(), iota_dimension=0
  %i1 = s32[8,16,1,1]{3,2,1,0} iota(), iota_dimension=1
  %lb = s32[8,16,1,1]{3,2,1,0} bitcast(%l)
  ROOT %c = s32[8,16,1,3]{3,2,1,0} concatenate(%i0, %i1, %lb), dimensions={3}
}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (logp: f32[8,16,64], labels: s32[8,16], dy: f32[128,1,1,1]) -> (f32[128,1,1,1], f32[8,16,64]) {
  %logp = f32[8,16,64]{2,1,0} parameter(0)
  %labels = s32[8,16]{1,0} parameter(1)
  %dy = f32[128,1,1,1]{3,2,1,0} parameter(2)
  %idx4 = s32[8,16,1,3]{3,2,1,0} fusion(%labels), kind=kLoop, calls=%make_idx
  %idx = s32[128,3]{1,0} bitcast(%idx4)
  %g = f32[128,1,1,1]{3,2,1,0} gather(%logp, %idx), offset_dims={1,2,3}, collapsed_slice_dims={}, start_index_map={0,1,2}, index_vector_dim=1, slice_sizes={1,1,1}
  %zero = f32[] constant(0)
  %z = f32[8,16,64]{2,1,0} broadcast(%zero), dimensions={}
  %sc = f32[8,16,64]{2,1,0} scatter(%z, %idx, %dy), update_window_dims={1,2,3}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1,2}, index_vector_dim=1, to_apply=%add
  ROOT %t = (f32[128,1,1,1]{3,2,1,0}, f32[8,16,64]{2,1,0}) tuple(%g, %sc)
}
)";

// The batch iota is the major part of the flattened index dim: a batching
// dim (operand dim 0 with index dim 0); the sequence iota, the minor part,
// is not found (it cannot carry a split of its own).
TEST_F(PropagateTest, LoweredBatchingDimIsFoundThroughTheFusionAndTheFlattening) {
  Load(kTakeAlongAxis);
  for (const char* name : {"g", "sc"}) {
    const ir::Instruction* inst = Named(name);
    ASSERT_NE(inst, nullptr);
    const std::vector<LoweredBatchingDim> dims =
        FindLoweredBatchingDims(program_->module, graph_.scheduled_as, *inst);
    ASSERT_EQ(dims.size(), 1u) << name;
    EXPECT_EQ(dims[0].operand_dim, 0) << name;
    EXPECT_EQ(dims[0].index_dim, 0) << name;
  }
}

// Log-probabilities and labels both split by batch: the partitioner, which
// saw batching dims, gathers locally. As looked-up dims the batch split
// made the gathered values a partial sum: the ids all-gathered and the
// whole batch's values all-reduced.
TEST_F(PropagateTest, LoweredBatchingDimsSplitAlikeGatherLocally) {
  Load(kTakeAlongAxis);
  const ir::Mesh mesh = MakeMesh({{"fsdp", 4}});
  Propagation p = Run(mesh, {{{1, 0, 0}, 0}, {{1, 0}, 0}, {{1, 0, 0, 0}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "g"), mesh), "[fsdp]");
  EXPECT_TRUE(p.collectives.empty());
}

// The transpose scatters the batch-split updates into zeros: the result,
// and the zeros made for it, take the indices' batch split.
TEST_F(PropagateTest, ScatterThroughLoweredBatchingDimsTakesTheIndicesSplit) {
  Load(kTakeAlongAxis);
  const ir::Mesh mesh = MakeMesh({{"fsdp", 4}});
  Propagation p = Run(mesh, {{}, {{1, 0}, 0}, {{1, 0, 0, 0}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "sc"), mesh), "[fsdp]");
  EXPECT_EQ(AxesShardingToString(Of(p, "z"), mesh), "[fsdp]");
}

}  // namespace
}  // namespace memplan::predictor
