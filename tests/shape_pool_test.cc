// ir::ShapePool: one copy per distinct shape at a stable address, layout
// details owned by the pool, and copies of a pool that keep the shapes made
// before the copy while interning new ones in storage of their own.
#include "ir/shape_pool.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "ir/shape.h"

namespace memplan::ir {
namespace {

Shape Array(DType dtype, std::vector<int64_t> dims, std::vector<int64_t> minor_to_major = {}) {
  Shape s;
  s.dtype = dtype;
  s.dims = std::move(dims);
  if (!minor_to_major.empty()) {
    s.layout = Layout();
    s.layout->minor_to_major = std::move(minor_to_major);
  }
  return s;
}

TEST(ShapePoolTest, EqualShapesShareOneCopyAndOthersDoNot) {
  ShapePool pool;
  const SharedShape a = pool.Intern(Array(DType::kF32, {8, 128}, {1, 0}));
  const SharedShape b = pool.Intern(Array(DType::kF32, {8, 128}, {1, 0}));
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), pool.Intern(Array(DType::kF32, {8, 128}, {0, 1})).get());  // layout
  EXPECT_NE(a.get(), pool.Intern(Array(DType::kF32, {8, 128})).get());          // no layout
  EXPECT_NE(a.get(), pool.Intern(Array(DType::kBF16, {8, 128}, {1, 0})).get());
  EXPECT_NE(a.get(), pool.Intern(Array(DType::kF32, {128, 8}, {1, 0})).get());
  Shape tuple;
  tuple.dtype = DType::kTuple;
  tuple.tuple_elements = {Array(DType::kF32, {8}, {0})};
  Shape other_tuple = tuple;
  other_tuple.tuple_elements[0].dims = {9};
  EXPECT_NE(pool.Intern(tuple).get(), pool.Intern(other_tuple).get());
  EXPECT_EQ(pool.Intern(tuple).get(), pool.Intern(Shape(tuple)).get());
  EXPECT_EQ(pool.size(), 7u);
  EXPECT_EQ(ShapeToString(*a), "f32[8,128]{1,0}");
}

TEST(ShapePoolTest, LayoutDetailsAreThePoolsOwnCopy) {
  ShapePool pool;
  SharedShape kept;
  {
    auto text = std::make_unique<std::string>("T(8,128)");
    Shape s = Array(DType::kF32, {8, 128}, {1, 0});
    s.layout->details = *text;
    kept = pool.Intern(s);
    EXPECT_NE(kept->layout->details.data(), text->data());
    Shape other = s;
    auto other_text = std::make_unique<std::string>("T(2,128)");
    other.layout->details = *other_text;
    EXPECT_NE(pool.Intern(other).get(), kept.get());  // details take part in equality
  }  // the texts are gone: the pool's copy is what the shape reads
  EXPECT_EQ(kept->layout->details, "T(8,128)");
}

TEST(ShapePoolTest, ACopyKeepsEarlierShapesAndInternsNewOnesApart) {
  SharedShape from_original;
  std::optional<ShapePool> copy;
  {
    ShapePool original;
    from_original = original.Intern(Array(DType::kS32, {4}, {0}));
    copy.emplace(original);
    const SharedShape only_in_copy = copy->Intern(Array(DType::kS32, {5}, {0}));
    EXPECT_EQ(copy->size(), 1u);     // the copy's own storage
    EXPECT_EQ(original.size(), 1u);  // nothing written into the original's
    EXPECT_NE(only_in_copy.get(), original.Intern(Array(DType::kS32, {5}, {0})).get());
  }  // the original is destroyed: shapes made before the copy live on in it
  EXPECT_EQ(ShapeToString(*from_original), "s32[4]{0}");
  EXPECT_EQ(from_original->dims, (std::vector<int64_t>{4}));
}

TEST(ShapePoolTest, ADefaultSharedShapeSaysNothing) {
  const SharedShape none;
  EXPECT_EQ(none->dtype, DType::kInvalid);
  EXPECT_TRUE(none->dims.empty());
  EXPECT_EQ(none.get(), SharedShape().get());
}

}  // namespace
}  // namespace memplan::ir
