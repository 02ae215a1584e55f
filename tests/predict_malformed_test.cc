// The predictor on hand-written modules no compiler would emit, as
// fuzz/predict_program_fuzzer.cc found them: each must predict (replicating
// what no rule can read) without reading outside a shape or a list.
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "gtest/gtest.h"
#include "parsers/hlo_text_program.h"
#include "parsers/source_text.h"
#include "predictor/axes_sharding.h"
#include "predictor/predict.h"
#include "tests/propagate_fixture.h"

namespace memplan::predictor {
namespace {

// A get-tuple-element without `index=` (the parser keeps -1) or past its
// operand's tuple names no element: its result is replicated and listed
// among the places no rule covers.
TEST_F(PropagateTest, GetTupleElementOfNoElementIsReplicated) {
  Load(R"(HloModule m

ENTRY %main (x: f32[8,4], y: f32[8]) -> f32[8,4] {
  %x = f32[8,4]{1,0} parameter(0)
  %y = f32[8]{0} parameter(1)
  %t = (f32[8,4]{1,0}, f32[8]{0}) tuple(%x, %y)
  %none = f32[8,4]{1,0} get-tuple-element(%t)
  %past = f32[8,4]{1,0} get-tuple-element(%t), index=5
  %first = f32[8,4]{1,0} get-tuple-element(%t), index=0
  %sum = f32[8,4]{1,0} add(%none, %past)
  ROOT %r = f32[8,4]{1,0} add(%sum, %first)
}
)");
  const ir::Mesh mesh = MakeMesh({{"dp", 2}});
  Propagation p = Run(mesh, {{{1}, 0}, {{1}, 0}});
  EXPECT_TRUE(Of(p, "none").IsReplicated()) << AxesShardingToString(Of(p, "none"), mesh);
  EXPECT_TRUE(Of(p, "past").IsReplicated()) << AxesShardingToString(Of(p, "past"), mesh);
  // The element that exists still carries x's sharding.
  EXPECT_EQ(AxesShardingToString(Of(p, "first"), mesh), "[dp]");
  EXPECT_EQ(p.unknown.size(), 2u);
}

// Dimension numbers past their shapes' ranks (a gather's offset dim past
// its result, a broadcast's dimension past its result, a transpose that is
// no permutation, a dot contracting a dimension its operand lacks): no rule
// reads them; each such instruction is listed among the places no rule
// covers.
TEST_F(PropagateTest, DimensionNumbersPastTheirRanksAreListedUnread) {
  Load(R"(HloModule m

ENTRY %main (x: f32[8,4], i: s32[8,1]) -> f32[8,4] {
  %x = f32[8,4]{1,0} parameter(0)
  %i = s32[8,1]{1,0} parameter(1)
  %g = f32[8,4]{1,0} gather(%x, %i), offset_dims={4}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
  %b = f32[8,4]{1,0} broadcast(%x), dimensions={0,7}
  %t = f32[8,4]{1,0} transpose(%x), dimensions={0,0}
  %d = f32[8,8]{1,0} dot(%x, %x), lhs_contracting_dims={1}, rhs_contracting_dims={5}
  %fine = f32[8,4]{1,0} add(%x, %x)
  %s1 = f32[8,4]{1,0} add(%g, %b)
  ROOT %s2 = f32[8,4]{1,0} add(%s1, %t)
}
)");
  const ir::Mesh mesh = MakeMesh({{"dp", 2}});
  Propagation p = Run(mesh, {{{1}, 0}, {{1}, 0}});
  std::set<std::string> unknown;
  for (const UnknownPropagation& u : p.unknown) {
    unknown.insert(std::string(program_->module.instruction(u.instruction).name));
  }
  EXPECT_EQ(unknown, (std::set<std::string>{"g", "b", "t", "d"}));
  // Unread, d (whose result nothing reads) stays replicated; the others
  // may be split after the fact for their readers (a free slice).
  EXPECT_TRUE(Of(p, "d").IsReplicated()) << AxesShardingToString(Of(p, "d"), mesh);
  EXPECT_EQ(AxesShardingToString(Of(p, "fine"), mesh), "[dp]");
}

// Arrays whose bytes cannot be counted: an unbounded dynamic dimension
// (the parser reads '?' as -1: once counted as negative bytes) and sizes
// whose sum passes int64 (once an overflow). The predictor refuses both,
// naming the instruction.
TEST(PredictMalformed, ShapesWithoutCountableBytesAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"s32[4,?]", "unbounded dynamic dimension"},
      {"f32[4611686018427387904,4]", "past 2^62 bytes"},
  };
  for (const auto& [shape, expected] : cases) {
    SCOPED_TRACE(shape);
    const std::string text = std::string("HloModule m\n\nENTRY %main (a: ") + shape +
                             ") -> f32[2] {\n  %a = " + shape +
                             " parameter(0)\n  ROOT %r = f32[2]{0} constant({1, 2})\n}\n";
    auto source = parsers::SourceText::FromString("t.hlo", text);
    absl::StatusOr<ir::Program> program = parsers::ParseHloTextProgram({source}, ir::Program());
    ASSERT_TRUE(program.ok()) << program.status();
    absl::StatusOr<std::unique_ptr<Predictor>> p = Predictor::Create(*program);
    ASSERT_FALSE(p.ok());
    EXPECT_TRUE(absl::IsInvalidArgument(p.status()));
    EXPECT_NE(p.status().message().find("instruction a ("), std::string_view::npos) << p.status();
    EXPECT_NE(p.status().message().find(expected), std::string_view::npos) << p.status();
  }
}

}  // namespace
}  // namespace memplan::predictor
