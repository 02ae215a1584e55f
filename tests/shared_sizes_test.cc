// Candidates of one structure (axis count and argument shardings as mesh
// axes) but other axis sizes share their propagation when their sizes
// answer the recorded size questions alike (predictor/size_questions.h):
// predicted that way, every corpus candidate re-sized onto other meshes and
// every bench::DistinctCandidates candidate equal, field by field, what the
// unshared predictor computes for them alone; and a candidate whose sizes
// answer a recorded question otherwise is computed, not given the recorded
// propagation (which is not its own).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/synthetic_program.h"
#include "gtest/gtest.h"
#include "ir/partition_spec.h"
#include "parsers/hlo_text_program.h"
#include "parsers/load_program.h"
#include "predictor/axes_sharding.h"
#include "predictor/predict.h"
#include "predictor/propagation.h"
#include "tests/predict_corpus.h"
#include "tests/prediction_compare.h"
#include "tests/test_util.h"

namespace memplan::test {
namespace {

// `sharding` (of an array of `rank` dims over `from`) as JAX lowers the same
// PartitionSpec over `to` (the same axes, other sizes).
absl::StatusOr<ir::HloSharding> Moved(const ir::HloSharding& sharding, const ir::Mesh& from,
                                      const ir::Mesh& to, int64_t rank) {
  auto axes = predictor::AxesFromHloSharding(sharding, from, rank);
  if (!axes.ok()) return axes.status();
  ir::JaxNamedSharding named;
  named.mesh = to;
  for (int64_t d = 0; d < rank; ++d) {
    ir::SpecDim dim;
    for (size_t a = 0; a < to.axes.size(); ++a) {
      if (axes->Dim(static_cast<size_t>(d)) & (predictor::AxisMask{1} << a)) {
        dim.axes.push_back(to.axes[a].name);
      }
    }
    if (!dim.axes.empty()) {
      dim.kind = ir::SpecDim::Kind::kAxes;
      dim.tuple = dim.axes.size() > 1;
    }
    named.spec.dims.push_back(dim);
  }
  return ir::PartitionSpecToHloSharding(named, rank);
}

// `plan` with its mesh's axes re-sized to `sizes`, every argument and output
// split on the same axes.
ir::ResolvedPlan Resized(const ir::ResolvedPlan& plan, const ir::Module& module,
                         const std::vector<int64_t>& sizes) {
  ir::ResolvedPlan out = plan;
  out.mesh = ir::Mesh{};
  for (size_t a = 0; a < plan.mesh.axes.size(); ++a) {
    out.mesh.axes.push_back({plan.mesh.axes[a].name, sizes[a]});
  }
  out.label = absl::StrCat(plan.label, "@", absl::StrJoin(sizes, "x"));
  const ir::Computation& entry = *module.entry_computation();
  out.shardings = ir::ShardingTable();
  for (size_t i = 0; i < out.arguments.size(); ++i) {
    const int64_t p = out.arguments[i].parameter;
    const int64_t rank = static_cast<int64_t>(
        module.instruction(entry.parameters[static_cast<size_t>(p)]).shape->dims.size());
    auto moved = Moved(plan.ArgumentSharding(i), plan.mesh, out.mesh, rank);
    EXPECT_TRUE(moved.ok()) << moved.status();
    if (moved.ok()) out.SetArgumentSharding(i, *moved);
  }
  std::vector<const ir::Shape*> shapes;
  predictor::CollectLeafShapes(module.instruction(entry.root).shape, &shapes);
  for (size_t k = 0; k < out.outputs.size(); ++k) {
    if (!out.outputs[k] || k >= shapes.size()) continue;
    auto moved = Moved(*out.outputs[k], plan.mesh, out.mesh,
                       static_cast<int64_t>(shapes[k]->dims.size()));
    EXPECT_TRUE(moved.ok()) << moved.status();
    if (moved.ok()) out.outputs[k] = *moved;
  }
  return out;
}

// Other sizes for `sizes`: all doubled, the first tripled (sizes that do
// not divide the programs' dims: other answers), the order reversed, and
// every size above 2 halved.
std::vector<std::vector<int64_t>> OtherSizes(const std::vector<int64_t>& sizes) {
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> doubled = sizes, tripled = sizes, reversed(sizes.rbegin(), sizes.rend()),
                       halved = sizes;
  for (int64_t& s : doubled) s *= 2;
  tripled[0] *= 3;
  for (int64_t& s : halved) s = s > 2 ? s / 2 : s;
  for (const auto& v : {doubled, tripled, reversed, halved}) {
    if (v != sizes) out.push_back(v);
  }
  return out;
}

std::vector<int64_t> SizesOf(const ir::Mesh& mesh) {
  std::vector<int64_t> sizes;
  for (const ir::MeshAxis& axis : mesh.axes) sizes.push_back(axis.size);
  return sizes;
}

TEST(SharedPrediction, EqualsUnsharedOnResizedCorpusCandidates) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  size_t cases = 0, resized = 0;
  int64_t same_structure = 0;
  for (const CorpusProgram& p : *corpus) {
    auto loaded = parsers::LoadProgram(p.dir, {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    auto shared = predictor::Predictor::Create(loaded->program);
    auto alone = predictor::Predictor::Create(loaded->program, Unshared());
    ASSERT_TRUE(shared.ok() && alone.ok());
    for (const CorpusCase& c : p.cases) {
      std::vector<ir::ResolvedPlan> plans = {c.plan};
      for (const auto& sizes : OtherSizes(SizesOf(c.plan.mesh))) {
        plans.push_back(Resized(c.plan, loaded->program.module, sizes));
      }
      for (const ir::ResolvedPlan& plan : plans) {
        auto a = (*shared)->Predict(plan);
        auto b = (*alone)->Predict(plan);
        ASSERT_TRUE(a.ok() && b.ok()) << p.name << " " << plan.label << ": "
                                      << (a.ok() ? b.status() : a.status());
        ExpectSameDetail(loaded->program, *a, *b, p.name + " " + plan.label);
        ++resized;
      }
      ++cases;
    }
    same_structure += (*shared)->sharing_counts().same_structure;
  }
  EXPECT_EQ(cases, 38u);
  EXPECT_GT(resized, 3 * cases);
  // The shared path was taken, not only the computed one.
  EXPECT_GT(same_structure, 0);
}

TEST(SharedPrediction, EqualsUnsharedOnDistinctSyntheticCandidates) {
  bench::Generated g = bench::GenerateResidualMlp(25000, 256, 512);
  ASSERT_EQ(g.program.values.size(), 100001u);
  auto shared = predictor::Predictor::Create(g.program);
  auto alone = predictor::Predictor::Create(g.program, Unshared());
  ASSERT_TRUE(shared.ok() && alone.ok());
  ASSERT_EQ(bench::DistinctCandidateCount(), 76u);
  for (size_t k = 0; k < bench::DistinctCandidateCount(); ++k) {
    const ir::ResolvedPlan plan = bench::DistinctCandidate(k, g.parameters);
    auto a = (*shared)->Predict(plan);
    auto b = (*alone)->Predict(plan);
    ASSERT_TRUE(a.ok() && b.ok()) << plan.label;
    ExpectSameDetail(g.program, *a, *b, plan.label);
  }
  const predictor::Predictor::SharingCounts counts = (*shared)->sharing_counts();
  EXPECT_EQ(counts.same_sizes, 0);
  EXPECT_GT(counts.same_structure, 0);
  EXPECT_EQ(counts.same_structure + counts.computed, 76);
}

// A slice keeps its operand's split when the split's ways divide the
// sliced size (24 rows): a shared predictor that saw x split 2 ways (2
// divides 24: the slice stays split) must compute x split 16 ways (the
// slice all-gathered, replicated) and not reuse the 2-way propagation,
// while x split 8 ways (8 divides 24) reuses it. Both equal the unshared
// predictions.
TEST(SharedPrediction, OtherAnswersAreNotReused) {
  auto source = parsers::SourceText::FromString("t.hlo", R"(HloModule m

ENTRY %main (x: f32[64,16]) -> f32[24,16] {
  %x = f32[64,16]{1,0} parameter(0)
  ROOT %s = f32[24,16]{1,0} slice(%x), slice={[0:24], [0:16]}
}
)");
  auto program = parsers::ParseHloTextProgram({source}, ir::Program());
  ASSERT_TRUE(program.ok()) << program.status();
  auto plan = [&](int64_t ways) {
    ir::ResolvedPlan p;
    p.label = absl::StrCat("a", ways);
    p.mesh.axes = {{"a", ways}};
    ir::JaxNamedSharding named;
    named.mesh = p.mesh;
    named.spec.dims = {ir::SpecDim{ir::SpecDim::Kind::kAxes, {"a"}, false}};
    ir::ArgumentPlan arg;
    arg.parameter = 0;
    p.labels = std::make_shared<ir::ArgumentLabels>(ir::ArgumentLabels{{"x"}, {""}});
    auto sharding = ir::PartitionSpecToHloSharding(named, 2);
    EXPECT_TRUE(sharding.ok()) << sharding.status();
    p.arguments.push_back(arg);
    if (sharding.ok()) p.SetArgumentSharding(0, *sharding);
    return p;
  };
  auto shared = predictor::Predictor::Create(*program);
  auto alone = predictor::Predictor::Create(*program, Unshared());
  ASSERT_TRUE(shared.ok() && alone.ok());
  std::vector<predictor::Prediction> got;
  for (int64_t ways : {2, 16, 8}) {
    auto a = (*shared)->Predict(plan(ways));
    auto b = (*alone)->Predict(plan(ways));
    ASSERT_TRUE(a.ok() && b.ok());
    ExpectSameDetail(*program, *a, *b, plan(ways).label);
    got.push_back(*std::move(a));
  }
  // The facts the test stands on: the slice is split 2 ways, gathered
  // under 16 (one all-gather, replicated), split 8 ways.
  const ir::InstructionId s = program->module.entry_computation()->root;
  const auto& split2 = (*got[0].instruction_shardings)[static_cast<size_t>(s.value())];
  const auto& split16 = (*got[1].instruction_shardings)[static_cast<size_t>(s.value())];
  ASSERT_EQ(split2.size(), 1u);
  ASSERT_EQ(split16.size(), 1u);
  EXPECT_EQ(split2[0].Dim(0), 1u);
  EXPECT_TRUE(split16[0].IsReplicated());
  EXPECT_TRUE(got[0].collective_list.empty());
  ASSERT_EQ(got[1].collective_list.size(), 1u);
  EXPECT_EQ(got[1].collective_list[0].kind, predictor::CollectiveKind::kAllGather);
  const predictor::Predictor::SharingCounts counts = (*shared)->sharing_counts();
  EXPECT_EQ(counts.computed, 2);        // 2 ways, 16 ways
  EXPECT_EQ(counts.same_structure, 1);  // 8 ways, from 2 ways
}

}  // namespace
}  // namespace memplan::test
