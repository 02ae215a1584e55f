// GroupValuesAt's grouping where values of one key come in runs, broken
// runs and near-equal shapes: the grouping remembers the last shape and key
// it saw, and these cases must give what a lookup per value gives.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzer/source_resolution.h"
#include "analyzer/value_groups.h"
#include "ir/program.h"

namespace memplan::analyzer {
namespace {

ir::Value ArrayValue(int64_t id, ir::DType dtype, std::vector<int64_t> dims, int64_t size) {
  ir::Value v;
  v.id = ir::ValueId(id);
  v.shape.dtype = dtype;
  v.shape.dims = std::move(dims);
  v.size = size;
  v.allocation = ir::AllocationId(0);
  return v;
}

struct Grouped {
  ir::Program program;
  std::vector<ValueOrigin> origins;
  std::vector<ValueGroup> groups;
};

Grouped GroupAll(std::vector<ir::Value> values, std::vector<ir::OpMetadata>* ops = nullptr) {
  Grouped g;
  ir::Allocation allocation;
  allocation.id = ir::AllocationId(0);
  allocation.size = 1 << 20;
  g.program.allocations.push_back(allocation);
  g.program.values = std::move(values);
  g.origins.resize(g.program.values.size());
  if (ops != nullptr) {
    for (size_t i = 0; i < ops->size() && i < g.origins.size(); ++i) g.origins[i].op = &(*ops)[i];
  }
  std::vector<size_t> indices(g.program.values.size());
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = i;
  g.groups = GroupValuesAt(g.program, g.origins, indices);
  return g;
}

std::vector<int64_t> Ids(const ValueGroup& group) {
  std::vector<int64_t> ids;
  for (ir::ValueId id : group.values) ids.push_back(id.value());
  return ids;
}

TEST(ValueGroups, ARunBrokenByAnotherKeyResumesItsGroup) {
  // A, A, B, A: the third A joins the first group, not a new one.
  Grouped g = GroupAll({ArrayValue(1, ir::DType::kF32, {4}, 16),
                        ArrayValue(2, ir::DType::kF32, {4}, 16),
                        ArrayValue(3, ir::DType::kF32, {8}, 32),
                        ArrayValue(4, ir::DType::kF32, {4}, 16)});
  ASSERT_EQ(g.groups.size(), 2u);
  EXPECT_EQ(g.groups[0].shape, "f32[4]");
  EXPECT_EQ(Ids(g.groups[0]), (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(g.groups[0].total_bytes, 48);
  EXPECT_EQ(g.groups[1].shape, "f32[8]");
  EXPECT_EQ(Ids(g.groups[1]), (std::vector<int64_t>{3}));
}

TEST(ValueGroups, AdjacentShapesOfOneSizeThatDifferAreNotMerged) {
  // Same size and dimensions, another element type; same element type,
  // dimensions in another order; a dynamic dimension.
  ir::Value dynamic = ArrayValue(5, ir::DType::kF32, {2, 8}, 64);
  dynamic.shape.dynamic_dims = {true, false};
  Grouped g = GroupAll({ArrayValue(1, ir::DType::kF32, {2, 8}, 64),
                        ArrayValue(2, ir::DType::kS32, {2, 8}, 64),
                        ArrayValue(3, ir::DType::kF32, {8, 2}, 64),
                        ArrayValue(4, ir::DType::kF32, {2, 8}, 64), dynamic});
  ASSERT_EQ(g.groups.size(), 4u);
  std::vector<std::string> shapes;
  for (const ValueGroup& group : g.groups) shapes.push_back(group.shape);
  EXPECT_EQ(shapes, (std::vector<std::string>{"f32[2,8]", "s32[2,8]", "f32[8,2]", "f32[<=2,8]"}));
  EXPECT_EQ(Ids(g.groups[0]), (std::vector<int64_t>{1, 4}));
}

TEST(ValueGroups, OneShapeOfTwoSizesOrOpNamesIsTwoGroups) {
  std::vector<ir::OpMetadata> ops(4);
  ops[0].op_name = "a";
  ops[1].op_name = "a";
  ops[2].op_name = "b";
  ops[3].op_name = "a";
  Grouped g = GroupAll({ArrayValue(1, ir::DType::kF32, {4}, 16),
                        ArrayValue(2, ir::DType::kF32, {4}, 16),
                        ArrayValue(3, ir::DType::kF32, {4}, 16),
                        ArrayValue(4, ir::DType::kF32, {4}, 20)},
                       &ops);
  ASSERT_EQ(g.groups.size(), 3u);
  EXPECT_EQ(Ids(g.groups[0]), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(g.groups[0].op_name, "a");
  EXPECT_EQ(Ids(g.groups[1]), (std::vector<int64_t>{4}));  // 20 bytes, larger than 16
  EXPECT_EQ(Ids(g.groups[2]), (std::vector<int64_t>{3}));
  EXPECT_EQ(g.groups[2].op_name, "b");
}

}  // namespace
}  // namespace memplan::analyzer
