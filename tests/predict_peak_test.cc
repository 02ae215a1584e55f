// What is live at the predicted live peak (Prediction::live_at_peak): the
// buffers the memory model counted there, named by value or collective.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "analyzer/liveness.h"
#include "gtest/gtest.h"
#include "parsers/load_program.h"
#include "predictor/predict.h"
#include "tests/predict_corpus.h"
#include "tests/test_util.h"
#include "viz/predict_report.h"

namespace memplan::test {
namespace {

using predictor::PeakBuffer;
using predictor::PeakContents;

// The invariants of one prediction's list: it adds up to the live peak,
// holds at most kLargestKept buffers, most bytes first, each live at the
// peak step and pointing at an instruction or collective of the program.
void ExpectConsistent(const ir::Program& program, const predictor::Prediction& p,
                      const std::string& what) {
  ASSERT_NE(p.live_at_peak, nullptr) << what;
  const PeakContents& c = *p.live_at_peak;
  const predictor::DeviceMemory& d = p.devices.at(0);
  int64_t listed = 0;
  for (const PeakBuffer& b : c.largest) listed += b.bytes;
  EXPECT_EQ(d.argument_bytes + listed + c.other_bytes, d.live_peak_bytes) << what;
  EXPECT_LE(c.largest.size(), PeakContents::kLargestKept) << what;
  if (c.other_count > 0) {
    EXPECT_EQ(c.largest.size(), PeakContents::kLargestKept) << what;
  }
  for (size_t k = 0; k < c.largest.size(); ++k) {
    const PeakBuffer& b = c.largest[k];
    if (k > 0) {
      EXPECT_GE(c.largest[k - 1].bytes, b.bytes) << what << " buffer " << k;
    }
    EXPECT_LE(b.start, d.live_peak_step) << what << " buffer " << k;
    EXPECT_GE(b.end, d.live_peak_step) << what << " buffer " << k;
    ASSERT_TRUE(b.instruction.valid()) << what << " buffer " << k;
    EXPECT_LT(static_cast<size_t>(b.instruction.value()), program.module.instruction_count());
    if (b.kind == PeakBuffer::Kind::kValue) {
      const ir::Value* v = program.FindValue(b.value);
      ASSERT_NE(v, nullptr) << what << " buffer " << k;
      EXPECT_EQ(v->instruction, b.instruction) << what << " buffer " << k;
    } else {
      EXPECT_LT(static_cast<size_t>(b.collective), p.collective_list.size()) << what;
    }
  }
}

TEST(LiveAtPeak, AddsUpToTheLivePeakOverTheCorpus) {
  for (const char* root : {"samples/sharded", "samples/sharded_heldout"}) {
    auto corpus = LoadCorpus(SourcePath(root));
    ASSERT_TRUE(corpus.ok()) << corpus.status();
    for (const CorpusProgram& program : *corpus) {
      auto loaded = parsers::LoadProgram(program.dir, {});
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      auto predictor = predictor::Predictor::Create(loaded->program);
      ASSERT_TRUE(predictor.ok()) << predictor.status();
      for (const CorpusCase& c : program.cases) {
        auto p = (*predictor)->Predict(c.plan);
        ASSERT_TRUE(p.ok()) << p.status();
        ExpectConsistent(loaded->program, *p, program.name + " " + c.candidate);
      }
    }
  }
}

// mlp_train_step dp8: XLA's compile combines the four weight gradients'
// all-reduces into one of 16.8 MB and holds the partial sums and the
// results at once there (its temp, which the prediction meets exactly). The
// list shows it: every result of the combined all-reduce, and each weight
// gradient's partial sum, live at the peak.
TEST(LiveAtPeak, MlpDataParallelPeaksAtItsCombinedAllReduce) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  const CorpusProgram* mlp = nullptr;
  for (const CorpusProgram& p : *corpus) {
    if (p.name == "mlp_train_step") mlp = &p;
  }
  ASSERT_NE(mlp, nullptr);
  const CorpusCase* dp8 = nullptr;
  for (const CorpusCase& c : mlp->cases) {
    if (c.candidate == "dp8") dp8 = &c;
  }
  ASSERT_NE(dp8, nullptr);
  auto loaded = parsers::LoadProgram(mlp->dir, {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto predictor = predictor::Predictor::Create(loaded->program);
  ASSERT_TRUE(predictor.ok()) << predictor.status();
  auto p = predictor.value()->Predict(dp8->plan);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->collectives.size(), 1u);
  ASSERT_EQ(p->collectives[0].count, 1);  // one combined all-reduce
  const PeakContents& c = *p->live_at_peak;
  int64_t results = 0, weight_results = 0, partial_weight_gradients = 0;
  for (const PeakBuffer& b : c.largest) {
    if (b.kind == PeakBuffer::Kind::kCollectiveResult) {
      results += b.bytes;
      if (b.bytes == int64_t{4} << 20) ++weight_results;
    }
    if (b.kind == PeakBuffer::Kind::kValue && b.bytes == int64_t{4} << 20) {
      const auto& leaves = (*p->instruction_shardings)[static_cast<size_t>(b.instruction.value())];
      if (leaves.at(static_cast<size_t>(b.leaf)).partial != 0) ++partial_weight_gradients;
    }
  }
  // The four weight gradients' results among them.
  EXPECT_EQ(weight_results, 4);
  EXPECT_LE(results, p->collectives[0].result_bytes);
  EXPECT_GE(results + c.other_bytes, p->collectives[0].result_bytes);
  EXPECT_EQ(partial_weight_gradients, 4);
}

// On one device, with every argument replicated, the prediction's live peak
// is XLA's own (HloLiveRange's sum, at the same step) but for constants,
// which the prediction does not count (4 bytes or none), and the list names
// exactly the values the compile holds live there: so for every program of
// the corpus without donated arguments or a loop. (A donated parameter's
// allocation counts as an argument throughout; XLA's sum drops the
// parameter after its last reader, before its update: llama_train_step
// +3.1%, transformer_train_adam +0.9%, gpt_lm_train_step +0.5%;
// scan_layers_train_step -9.8%, docs/prediction.md.)
TEST(LiveAtPeak, OneDeviceListsTheValuesTheCompileHoldsLive) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  for (const CorpusProgram& program : *corpus) {
    const std::set<std::string> exact = {"mlp_train_step", "transformer_fwd", "convnet_train_step",
                                         "moe_train_step"};
    if (!exact.contains(program.name)) continue;
    auto loaded = parsers::LoadProgram(program.dir, {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const ir::Program& ir = loaded->program;
    auto predictor = predictor::Predictor::Create(ir);
    ASSERT_TRUE(predictor.ok()) << predictor.status();
    ir::ResolvedPlan plan = program.cases.front().plan;
    plan.mesh = ir::Mesh();
    plan.mesh.axes = {{"x", 1}};
    for (size_t i = 0; i < plan.arguments.size(); ++i) {
      plan.SetArgumentSharding(i, ir::HloSharding::Replicated());
    }
    auto p = predictor.value()->Predict(plan);
    ASSERT_TRUE(p.ok()) << p.status();
    const analyzer::Timeline timeline = analyzer::ComputeTimeline(ir);
    const std::optional<analyzer::LivePeak> xla = analyzer::ComputeLivePeak(ir, timeline);
    ASSERT_TRUE(xla.has_value());
    std::set<int64_t> compiled;  // values live there, but arguments and constants
    int64_t constants = 0;
    for (ir::ValueId id : xla->values) {
      const ir::Value* v = ir.FindValue(id);
      const ir::Opcode op = ir.module.instruction(v->instruction).opcode;
      if (op == ir::Opcode::kConstant) {
        constants += v->size;
      } else if (v->size > 0 && op != ir::Opcode::kParameter) {
        compiled.insert(id.value());
      }
    }
    const predictor::DeviceMemory& d = p->devices.at(0);
    EXPECT_EQ(d.live_peak_bytes, xla->bytes - constants) << program.name;
    EXPECT_EQ(d.live_peak_step, xla->step) << program.name;
    EXPECT_EQ(d.live_peak_instruction, xla->instruction) << program.name;
    EXPECT_TRUE(d.live_peak_instruction.valid()) << program.name;
    // The largest listed, the rest counted: each listed buffer is one of
    // the compile's, and as many in all.
    const PeakContents& c = *p->live_at_peak;
    std::set<int64_t> predicted;
    for (const PeakBuffer& b : c.largest) {
      ASSERT_EQ(b.kind, PeakBuffer::Kind::kValue) << program.name;
      predicted.insert(b.value.value());
    }
    EXPECT_EQ(predicted.size(), c.largest.size()) << program.name;
    EXPECT_EQ(predicted.size() + static_cast<size_t>(c.other_count), compiled.size()) << program.name;
    for (int64_t id : predicted) EXPECT_TRUE(compiled.contains(id)) << program.name << " " << id;
  }
}

// The text view lists the largest buffers with their shapes and shardings
// and counts the rest; the JSON keeps every listed buffer.
TEST(LiveAtPeak, ViewsNameTheBuffers) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  const CorpusProgram& program = corpus->front();
  auto loaded = parsers::LoadProgram(program.dir, {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto predictor = predictor::Predictor::Create(loaded->program);
  ASSERT_TRUE(predictor.ok()) << predictor.status();
  auto p = predictor.value()->Predict(program.cases.front().plan);
  ASSERT_TRUE(p.ok()) << p.status();
  const viz::PredictReportInput in{loaded->program.module, program.name, *p};
  const std::string text = viz::RenderPredictText(in);
  EXPECT_NE(text.find("Live at the peak (step "), std::string::npos);
  const PeakBuffer& largest = p->live_at_peak->largest.front();
  const viz::PeakBufferText t = viz::DescribePeakBuffer(loaded->program.module, *p, largest);
  EXPECT_NE(text.find(t.name), std::string::npos);
  const std::string json = viz::RenderPredictJson(in);
  EXPECT_NE(json.find("\"live_at_peak\""), std::string::npos);
  EXPECT_NE(json.find("\"other_bytes\""), std::string::npos);
}

}  // namespace
}  // namespace memplan::test
