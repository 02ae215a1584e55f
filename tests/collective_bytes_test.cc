// A structure's collectives' bytes from distinct (shape, sharding) terms
// (predictor/collective_bytes.h) are, collective by collective, ShardBytes
// of its own shape and shardings: shapes that differ only in element type,
// packed width, one dimension or rank, and shardings that differ in one
// dimension's axes, never share a term; equal ones do.
#include <vector>

#include "gtest/gtest.h"
#include "ir/shape.h"
#include "predictor/collective_bytes.h"

namespace memplan::test {
namespace {

using predictor::AxesSharding;
using predictor::CollectiveShards;

ir::Shape Array(ir::DType dtype, std::vector<int64_t> dims, int element_bits = 0) {
  ir::Shape s;
  s.dtype = dtype;
  s.dims = std::move(dims);
  if (element_bits > 0) {
    s.layout.emplace();
    s.layout->element_size_bits = element_bits;
  }
  return s;
}

AxesSharding Axes(std::vector<predictor::AxisMask> dims, predictor::AxisMask partial = 0) {
  AxesSharding a;
  for (predictor::AxisMask m : dims) a.dims.push_back(m);
  a.partial = partial;
  return a;
}

TEST(CollectiveByteTerms, EachCollectiveGetsItsOwnShardBytes) {
  // Kept alive for the terms' pointers.
  std::vector<ir::Shape> shapes = {
      Array(ir::DType::kF32, {24, 40}),      Array(ir::DType::kF32, {24, 40}),
      Array(ir::DType::kBF16, {24, 40}),     Array(ir::DType::kS4, {24, 40}, 4),
      Array(ir::DType::kS4, {24, 40}),       Array(ir::DType::kF32, {24, 41}),
      Array(ir::DType::kF32, {24, 40, 1}),   Array(ir::DType::kF32, {7}),
  };
  ir::Shape tuple;
  tuple.dtype = ir::DType::kTuple;
  tuple.tuple_elements = {shapes[0], shapes[7]};
  ir::Shape tuple2 = tuple;
  tuple2.tuple_elements.push_back(shapes[2]);
  const std::vector<AxesSharding> shardings = {
      Axes({}), Axes({1}), Axes({2}), Axes({1, 2}), Axes({3}), Axes({0, 1}), Axes({1}, 2),
  };
  std::vector<CollectiveShards> shards;
  for (const ir::Shape& shape : shapes) {
    for (size_t a = 0; a < shardings.size(); ++a) {
      shards.push_back({&shape, shardings[a], shardings[(a + 3) % shardings.size()]});
    }
  }
  shards.push_back({&tuple, Axes({}), Axes({1})});
  shards.push_back({&tuple2, Axes({}), Axes({1})});
  const predictor::CollectiveByteTerms terms = predictor::CollectiveByteTerms::Of(shards);
  // shapes[0] and [1] are equal, so are their 7 shardings' terms: 7
  // distinct arrays of 7 shardings each, and a term for each tuple
  // collective's operand and result.
  EXPECT_EQ(terms.term_count(), 7u * 7 + 4);
  for (const predictor::MeshSizes& mesh :
       {predictor::MeshSizes{{2, 4}}, predictor::MeshSizes{{3, 5}}, predictor::MeshSizes{{8, 1}}}) {
    std::vector<predictor::PredictedCollective> collectives(shards.size());
    terms.SetBytes(mesh, collectives);
    for (size_t i = 0; i < shards.size(); ++i) {
      EXPECT_EQ(collectives[i].operand_bytes,
                predictor::ShardBytes(*shards[i].shape, shards[i].operand, mesh))
          << i;
      EXPECT_EQ(collectives[i].result_bytes,
                predictor::ShardBytes(*shards[i].shape, shards[i].result, mesh))
          << i;
    }
  }
}

}  // namespace
}  // namespace memplan::test
