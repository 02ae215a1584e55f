// A prediction's argument (alias) bytes are the sum over the entry's
// (donated) parameters of each one's shard bytes under its own predicted
// sharding (summed here parameter by parameter with ShardBytes; the memory
// model reuses the bytes of a parameter shaped and sharded as the one before
// it): every corpus
// candidate, the synthetic program's rotation, and candidates whose
// weights alternate shardings so neighbours of one shape differ.
#include <set>
#include <string>
#include <vector>

#include "bench/synthetic_program.h"
#include "gtest/gtest.h"
#include "parsers/load_program.h"
#include "predictor/predict.h"
#include "tests/predict_corpus.h"
#include "tests/test_util.h"

namespace memplan::test {
namespace {

void ExpectArgumentBytes(const ir::Program& program, const predictor::Prediction& p,
                         const std::string& what) {
  predictor::MeshSizes mesh;
  for (const ir::MeshAxis& axis : p.mesh.axes) mesh.sizes.push_back(axis.size);
  const ir::Computation& entry = *program.module.entry_computation();
  ASSERT_EQ(p.argument_shardings.size(), entry.parameters.size()) << what;
  int64_t want = 0;
  for (size_t i = 0; i < entry.parameters.size(); ++i) {
    if (!entry.parameters[i].valid()) continue;
    want += predictor::ShardBytes(program.module.instruction(entry.parameters[i]).shape,
                                  p.argument_shardings[i], mesh);
  }
  ASSERT_FALSE(p.devices.empty()) << what;
  EXPECT_EQ(p.devices.front().argument_bytes, want) << what;
  // Alias: the donated parameters' (input-output aliases, else live-out
  // parameter allocations), each once.
  std::set<int64_t> donated;
  for (const ir::InputOutputAlias& a : program.module.header.input_output_aliases) {
    donated.insert(a.parameter_number);
  }
  if (donated.empty()) {
    for (const ir::Allocation& a : program.allocations) {
      if (a.is_entry_parameter() && a.maybe_live_out) donated.insert(*a.parameter_number);
    }
  }
  int64_t alias = 0;
  for (int64_t i : donated) {
    if (i < 0 || i >= static_cast<int64_t>(entry.parameters.size())) continue;
    const ir::InstructionId id = entry.parameters[static_cast<size_t>(i)];
    if (!id.valid()) continue;
    alias += predictor::ShardBytes(program.module.instruction(id).shape,
                                   p.argument_shardings[static_cast<size_t>(i)], mesh);
  }
  EXPECT_EQ(p.devices.front().alias_bytes, alias) << what;
}

TEST(ArgumentBytes, SumOfEachParametersShardBytes) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  size_t cases = 0;
  for (const CorpusProgram& p : *corpus) {
    auto loaded = parsers::LoadProgram(p.dir, {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    auto predictor = predictor::Predictor::Create(loaded->program);
    ASSERT_TRUE(predictor.ok()) << predictor.status();
    for (const CorpusCase& c : p.cases) {
      auto prediction = (*predictor)->Predict(c.plan);
      ASSERT_TRUE(prediction.ok()) << p.name << " " << c.candidate;
      ExpectArgumentBytes(loaded->program, *prediction, p.name + " " + c.candidate);
      ++cases;
    }
  }
  EXPECT_EQ(cases, 38u);
  bench::Generated g = bench::GenerateResidualMlp(300, 64, 128);
  // Parameters donated but for every fourth from the first weight: runs of
  // donated neighbours with gaps, the data (another shape) before a gap.
  for (int64_t i = 0; i < g.parameters; ++i) {
    if (i % 4 == 1) continue;
    ir::InputOutputAlias alias;
    alias.parameter_number = i;
    alias.output_index = {0};
    g.program.module.header.input_output_aliases.push_back(alias);
  }
  auto predictor = predictor::Predictor::Create(g.program);
  ASSERT_TRUE(predictor.ok()) << predictor.status();
  for (int k = 0; k < 6; ++k) {
    ir::ResolvedPlan plan = bench::RotationCandidate(k, g.parameters);
    auto prediction = (*predictor)->Predict(plan);
    ASSERT_TRUE(prediction.ok()) << plan.label;
    ExpectArgumentBytes(g.program, *prediction, plan.label);
    // Every third weight replicated: neighbours of one shape, other shardings.
    if (plan.shardings.size() > 0) {
      for (size_t i = 1; i < plan.arguments.size(); i += 3) {
        plan.arguments[i].sharding_index = ir::ArgumentPlan::kReplicatedIndex;
      }
      plan.label += "_every_third_replicated";
      auto varied = (*predictor)->Predict(plan);
      ASSERT_TRUE(varied.ok()) << plan.label;
      ExpectArgumentBytes(g.program, *varied, plan.label);
    }
  }
}

}  // namespace
}  // namespace memplan::test
