// XLA's text form of shapes and shape indices.
#include "parsers/shape_parser.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace memplan::parsers {
namespace {

using ir::DType;

struct Parsed {
  bool ok = false;
  ir::Shape shape;
  size_t stopped_at = 0;  // offset where the cursor was left
  std::string rest;
};

Parsed ParseAt(std::string_view text) {
  Parsed p;
  Cursor c(text);
  p.ok = ParseShape(c, &p.shape);
  p.stopped_at = static_cast<size_t>(c.position() - text.data());
  p.rest = std::string(c.rest());
  return p;
}

TEST(ParseShape, Scalar) {
  const Parsed p = ParseAt("f32[]");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.shape.dtype, DType::kF32);
  EXPECT_TRUE(p.shape.dims.empty());
  EXPECT_FALSE(p.shape.layout.has_value());
  EXPECT_EQ(p.shape.ElementCount(), 1);
}

TEST(ParseShape, ArrayWithLayout) {
  const Parsed p = ParseAt("bf16[32,6144]{1,0}");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.shape.dtype, DType::kBF16);
  EXPECT_EQ(p.shape.dims, (std::vector<int64_t>{32, 6144}));
  // No dimension is dynamic: no per-dimension flags are kept (ir/shape.h).
  EXPECT_TRUE(p.shape.dynamic_dims.empty());
  ASSERT_TRUE(p.shape.layout.has_value());
  EXPECT_EQ(p.shape.layout->minor_to_major, (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(p.shape.layout->details.empty());
  EXPECT_EQ(p.shape.layout->element_size_bits, 0);
  EXPECT_EQ(p.shape.layout->memory_space, 0);
}

TEST(ParseShape, StopsAfterTheShape) {
  const Parsed p = ParseAt("f32[4]{0} parameter(0)");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.rest, " parameter(0)");
}

TEST(ParseShape, Tuple) {
  const Parsed p = ParseAt("(f32[], s8[4194304]{0})");
  ASSERT_TRUE(p.ok);
  ASSERT_TRUE(p.shape.IsTuple());
  ASSERT_EQ(p.shape.tuple_elements.size(), 2u);
  EXPECT_EQ(p.shape.tuple_elements[0].dtype, DType::kF32);
  EXPECT_EQ(p.shape.tuple_elements[1].dtype, DType::kS8);
  EXPECT_EQ(p.shape.tuple_elements[1].dims, (std::vector<int64_t>{4194304}));
}

TEST(ParseShape, NestedAndEmptyTuples) {
  const Parsed nested = ParseAt("((f32[2]{0}, s32[]), pred[])");
  ASSERT_TRUE(nested.ok);
  ASSERT_EQ(nested.shape.tuple_elements.size(), 2u);
  EXPECT_TRUE(nested.shape.tuple_elements[0].IsTuple());
  EXPECT_EQ(nested.shape.tuple_elements[0].tuple_elements.size(), 2u);
  EXPECT_EQ(nested.shape.tuple_elements[1].dtype, DType::kPred);

  const Parsed empty = ParseAt("()");
  ASSERT_TRUE(empty.ok);
  EXPECT_TRUE(empty.shape.IsTuple());
  EXPECT_TRUE(empty.shape.tuple_elements.empty());
}

TEST(ParseShape, SkipsTheIndexCommentsXlaPutsInLongTuples) {
  const Parsed p = ParseAt("(f32[1]{0}, f32[2]{0}, f32[3]{0}, f32[4]{0}, f32[5]{0}, "
                           "/*index=5*/f32[6]{0}, s32[])");
  ASSERT_TRUE(p.ok);
  ASSERT_EQ(p.shape.tuple_elements.size(), 7u);
  EXPECT_EQ(p.shape.tuple_elements[5].dims, (std::vector<int64_t>{6}));
  EXPECT_EQ(p.shape.tuple_elements[6].dtype, DType::kS32);
}

TEST(ParseShape, TiledLayoutKeepsItsDetails) {
  const Parsed p = ParseAt("bf16[8,128]{1,0:T(8,128)(2,1)}");
  ASSERT_TRUE(p.ok);
  ASSERT_TRUE(p.shape.layout.has_value());
  EXPECT_EQ(p.shape.layout->minor_to_major, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(p.shape.layout->details, "T(8,128)(2,1)");
  EXPECT_EQ(p.shape.layout->element_size_bits, 0);
}

TEST(ParseShape, ElementSizeAndMemorySpace) {
  const Parsed p = ParseAt("s4[8,128]{1,0:T(8,128)E(4)S(1)}");
  ASSERT_TRUE(p.ok);
  ASSERT_TRUE(p.shape.layout.has_value());
  EXPECT_EQ(p.shape.layout->details, "T(8,128)E(4)S(1)");
  EXPECT_EQ(p.shape.layout->element_size_bits, 4);
  EXPECT_EQ(p.shape.layout->memory_space, 1);

  const Parsed s = ParseAt("f32[4096]{0:T(1024)S(1)}");
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.shape.layout->memory_space, 1);
  EXPECT_EQ(s.shape.layout->element_size_bits, 0);
}

TEST(ParseShape, ScalarWithOnlyLayoutDetails) {
  const Parsed p = ParseAt("u32[]{:T(128)}");
  ASSERT_TRUE(p.ok);
  ASSERT_TRUE(p.shape.layout.has_value());
  EXPECT_TRUE(p.shape.layout->minor_to_major.empty());
  EXPECT_EQ(p.shape.layout->details, "T(128)");
}

TEST(ParseShape, DynamicDimensions) {
  const Parsed bounded = ParseAt("f32[<=16,8]{1,0}");
  ASSERT_TRUE(bounded.ok);
  EXPECT_EQ(bounded.shape.dims, (std::vector<int64_t>{16, 8}));
  EXPECT_EQ(bounded.shape.dynamic_dims, (ir::DynamicDims{true, false}));

  const Parsed unbounded = ParseAt("s32[?,4]");
  ASSERT_TRUE(unbounded.ok);
  EXPECT_EQ(unbounded.shape.dims[0], -1);
  EXPECT_EQ(unbounded.shape.dynamic_dims, (ir::DynamicDims{true, false}));

  // A dynamic dimension after static ones: the flags start then, false
  // before it.
  const Parsed late = ParseAt("f32[2,3,<=5]{2,1,0}");
  ASSERT_TRUE(late.ok);
  EXPECT_EQ(late.shape.dynamic_dims, (ir::DynamicDims{false, false, true}));
  EXPECT_EQ(ir::ShapeToString(late.shape), "f32[2,3,<=5]{2,1,0}");
}

TEST(ParseShape, EveryElementTypeSpelling) {
  for (std::string_view text : {"pred[1]", "s4[1]", "u8[1]", "f8e4m3fn[1]", "f8e5m2[1]",
                                "bf16[1]", "f16[1]", "f64[1]", "c64[1]", "c128[1]", "token[]"}) {
    EXPECT_TRUE(ParseAt(text).ok) << text;
  }
}

TEST(ParseShape, RejectsMalformedShapes) {
  for (std::string_view text :
       {"", "f33[4]", "[4]", "f32", "f32[4", "f32[4,]", "f32[-1]", "f32[4]{1,0", "f32[4]{x}",
        "(f32[], ", "(f32[] s32[])", "F32[4]"}) {
    EXPECT_FALSE(ParseAt(text).ok) << text;
  }
}

// The layout must name each dimension at most once; which ones it named is
// kept in one word up to rank 64 and in a vector beyond, so both sides of
// that line are checked, at dimension 0, 63 and 64.
TEST(ParseShape, LayoutDimensionsAreAPermutationAtEveryRank) {
  const auto shape_of_rank = [](int rank, const std::vector<int>& layout) {
    std::string text = "f32[";
    for (int i = 0; i < rank; ++i) text += i == 0 ? "1" : ",1";
    text += "]{";
    for (size_t i = 0; i < layout.size(); ++i) {
      text += (i == 0 ? "" : ",") + std::to_string(layout[i]);
    }
    return text + "}";
  };
  for (const int rank : {1, 3, 63, 64, 65, 70}) {
    std::vector<int> all;
    for (int d = rank - 1; d >= 0; --d) all.push_back(d);
    const Parsed whole = ParseAt(shape_of_rank(rank, all));
    ASSERT_TRUE(whole.ok) << rank;
    EXPECT_EQ(whole.shape.dims.size(), static_cast<size_t>(rank));
    ASSERT_TRUE(whole.shape.layout.has_value());
    EXPECT_EQ(whole.shape.layout->minor_to_major.size(), static_cast<size_t>(rank));
    EXPECT_EQ(whole.shape.layout->minor_to_major.front(), rank - 1);
    for (const int repeated : {0, rank - 1, std::min(rank - 1, 63), std::min(rank - 1, 64)}) {
      std::vector<int> twice = {repeated, repeated};
      EXPECT_FALSE(ParseAt(shape_of_rank(rank, twice)).ok) << rank << " " << repeated;
    }
    EXPECT_FALSE(ParseAt(shape_of_rank(rank, {rank})).ok) << rank;  // past the last dimension
    EXPECT_TRUE(ParseAt(shape_of_rank(rank, {rank - 1})).ok) << rank;  // a partial layout reads
  }
}

TEST(ParseShape, LeavesTheCursorWhereTheTextStoppedMatching) {
  const Parsed p = ParseAt("f32[4,x]");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.stopped_at, 6u);  // at 'x'
}

TEST(ParseShape, RefusesAbsurdNesting) {
  const std::string deep = std::string(100, '(') + "f32[]" + std::string(100, ')');
  EXPECT_FALSE(ParseAt(deep).ok);
  const std::string fine = std::string(10, '(') + "f32[]" + std::string(10, ')');
  EXPECT_TRUE(ParseAt(fine).ok);
}

TEST(ParseShapeIndex, AcceptsXlaSpellings) {
  for (auto [text, expected] : std::vector<std::pair<std::string_view, ir::ShapeIndex>>{
           {"{}", {}}, {"{0}", {0}}, {"{1,2}", {1, 2}}, {"{10,0,3}", {10, 0, 3}}}) {
    Cursor c(text);
    ir::ShapeIndex index = {99};
    ASSERT_TRUE(ParseShapeIndex(c, &index)) << text;
    EXPECT_EQ(index, expected) << text;
    EXPECT_TRUE(c.AtEnd());
  }
}

TEST(ParseShapeIndex, RejectsMalformedIndices) {
  for (std::string_view text : {"", "1", "{", "{1,", "{a}", "{1 2}", "{,}"}) {
    Cursor c(text);
    ir::ShapeIndex index;
    EXPECT_FALSE(ParseShapeIndex(c, &index)) << text;
  }
}

}  // namespace
}  // namespace memplan::parsers
