// Reshapes of a dim split over two (sub-)axes into heads and a head dim,
// and back (predictor/op_rules.cc, SplitOntoMinorDims, MergeMinorSplits):
// a row-major tiling moves no data when the heads are split whole; when
// they are not, the minor part is all-gathered (XLA's pairs).
#include "gtest/gtest.h"
#include "tests/propagate_fixture.h"

namespace memplan::predictor {
namespace {

// 256 columns split 8 ways (a = 4 major, b = 2 minor) into 4 heads of 64
// and back: each device holds half a head, a tiling of [4, 64].
TEST_F(PropagateTest, HeadsSplitWholePassTheRestToTheHeadDim) {
  Load(R"(HloModule m

ENTRY %main (x: f32[8,256]) -> f32[8,256] {
  %x = f32[8,256]{1,0} parameter(0)
  %h = f32[8,4,64]{2,1,0} reshape(%x)
  %n = f32[8,4,64]{2,1,0} negate(%h)
  ROOT %y = f32[8,256]{1,0} reshape(%n)
}
)");
  const ir::Mesh mesh = MakeMesh({{"a", 4}, {"b", 2}});
  Propagation p = Run(mesh, {{{0, 3}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "h"), mesh), "[null, a, b]");
  EXPECT_EQ(AxesShardingToString(Of(p, "y"), mesh), "[null, (a,b)]");
  EXPECT_TRUE(p.collectives.empty());
}

// 768 split 8 ways into 12 heads of 64: 4 ways keep 3 heads a device, not
// one, so the 2-way part is all-gathered (transformer_fwd tp8's pairs).
TEST_F(PropagateTest, HeadsNotSplitWholeGatherTheRest) {
  Load(R"(HloModule m

ENTRY %main (x: f32[8,768]) -> f32[8,12,64] {
  %x = f32[8,768]{1,0} parameter(0)
  ROOT %h = f32[8,12,64]{2,1,0} reshape(%x)
}
)");
  const ir::Mesh mesh = MakeMesh({{"a", 4}, {"b", 2}});
  Propagation p = Run(mesh, {{{0, 3}, 0}});
  EXPECT_EQ(AxesShardingToString(Of(p, "h"), mesh), "[null, a]");
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].kind, CollectiveKind::kAllGather);
}

}  // namespace
}  // namespace memplan::predictor
