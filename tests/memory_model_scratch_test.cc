// Prediction keeps per-candidate arrays between candidates in a pool of
// scratch sets that each memory-model run borrows (predictor/memory_model.cc).
// A candidate predicted with a set that has modelled other programs'
// candidates first (larger and smaller ones, in both orders) gets
// byte-for-byte what a new predictor computes for it alone on a new thread
// with a new, empty set (the pool's idle sets freed first); and so on the
// benchmarks' synthetic program, whose arrays are larger than any corpus
// program's.
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/synthetic_program.h"
#include "gtest/gtest.h"
#include "parsers/load_program.h"
#include "predictor/memory_model.h"
#include "predictor/predict.h"
#include "tests/predict_corpus.h"
#include "tests/prediction_compare.h"
#include "tests/test_util.h"

namespace memplan::test {
namespace {

// The prediction of `plan` by a new predictor (nothing shared with other
// candidates) on a new thread, with a new scratch set (the pool emptied).
absl::StatusOr<predictor::Prediction> PredictOnFreshThread(const ir::Program& program,
                                                           const ir::ResolvedPlan& plan) {
  predictor::ReleaseIdleModelScratch();
  std::optional<absl::StatusOr<predictor::Prediction>> result;
  std::thread t([&] {
    auto p = predictor::Predictor::Create(program);
    if (!p.ok()) {
      result = p.status();
      return;
    }
    result = (*p)->Predict(plan);
  });
  t.join();
  return *std::move(result);
}

TEST(PredictionScratch, ReusedScratchGivesEachCandidateTheFreshAnswer) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  std::vector<parsers::LoadedProgram> programs;
  for (const CorpusProgram& p : *corpus) {
    auto loaded = parsers::LoadProgram(p.dir, {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    programs.push_back(*std::move(loaded));
  }
  size_t cases = 0;
  // The benchmarks' 100,001-value program first and between the passes:
  // its arrays are far larger than any corpus program's.
  bench::Generated g = bench::GenerateResidualMlp(25000, 256, 512);
  auto synthetic = predictor::Predictor::Create(g.program);
  ASSERT_TRUE(synthetic.ok()) << synthetic.status();
  // Forward, then backward: each program follows both a larger and a
  // smaller one (by value and allocation count) somewhere.
  for (int pass = 0; pass < 2; ++pass) {
    const ir::ResolvedPlan plan = bench::RotationCandidate(pass, g.parameters);
    auto reused = (*synthetic)->Predict(plan);
    auto fresh = PredictOnFreshThread(g.program, plan);
    ASSERT_TRUE(reused.ok() && fresh.ok()) << plan.label;
    ExpectSamePrediction(g.program, *reused, *fresh, plan.label);
    for (size_t k = 0; k < corpus->size(); ++k) {
      const size_t i = pass == 0 ? k : corpus->size() - 1 - k;
      const CorpusProgram& p = (*corpus)[i];
      auto predictor = predictor::Predictor::Create(programs[i].program);
      ASSERT_TRUE(predictor.ok()) << predictor.status();
      for (const CorpusCase& c : p.cases) {
        auto reused = (*predictor)->Predict(c.plan);
        auto fresh = PredictOnFreshThread(programs[i].program, c.plan);
        ASSERT_TRUE(reused.ok() && fresh.ok()) << p.name << " " << c.candidate;
        ExpectSamePrediction(programs[i].program, *reused, *fresh, p.name + " " + c.candidate);
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 2 * 38u);  // samples/sharded/README.md: 6 programs, 38 candidates
}

}  // namespace
}  // namespace memplan::test
