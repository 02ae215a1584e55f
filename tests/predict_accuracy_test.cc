// Prediction against the compiler: every (program, candidate) of
// samples/sharded predicted from the program's single-device compile, the
// candidate's plan built from the shardings the 8-device compile recorded
// (tests/predict_corpus.h), held against XLA's memory_analysis().
//
// The targets: argument and output bytes exact; device footprint
// median |error| <= 3% and max <= 10%; per program the same order of
// candidates by footprint. This test asserts the targets met; docs/
// accuracy.md has the full table (build/tests/predict_accuracy_table) with
// the ones missed, which are not loosened here.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <memory>
#include <optional>

#include "gtest/gtest.h"
#include "ir/entry_arguments.h"
#include "ir/status_macros.h"
#include "parsers/load_program.h"
#include "parsers/plan_parser.h"
#include "parsers/source_text.h"
#include "tests/predict_corpus.h"
#include "tests/test_util.h"

namespace memplan::test {
namespace {

class PredictAccuracy : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto rows = PredictCorpusAt(SourcePath("samples/sharded"));
    ASSERT_TRUE(rows.ok()) << rows.status();
    rows_ = new std::vector<CorpusRow>(*std::move(rows));
  }
  static void TearDownTestSuite() {
    delete rows_;
    rows_ = nullptr;
  }
  // Each named case ("program candidate") has a temp error within its bound
  // (percent), and every named case is in the corpus.
  static void ExpectTempErrorsWithin(const std::map<std::string, double>& bound_percent) {
    size_t seen = 0;
    for (const CorpusRow& r : *rows_) {
      const auto it = bound_percent.find(r.c.program + " " + r.c.candidate);
      if (it == bound_percent.end()) continue;
      ++seen;
      EXPECT_LE(std::fabs(r.temp_error_percent), it->second) << it->first;
    }
    EXPECT_EQ(seen, bound_percent.size());
  }
  // The corpus row of one case, or null when the corpus lacks it.
  static const CorpusRow* Row(std::string_view program, std::string_view candidate) {
    for (const CorpusRow& r : *rows_) {
      if (r.c.program == program && r.c.candidate == candidate) return &r;
    }
    return nullptr;
  }
  // The all-gathers of `row` from `operand_bytes` to `result_bytes` per
  // device, over `axes` when it is not 0.
  static int CountGathers(const CorpusRow& row, int64_t operand_bytes, int64_t result_bytes,
                          predictor::AxisMask axes = 0) {
    int count = 0;
    for (const predictor::PredictedCollective& pc : row.prediction.collective_list) {
      if (pc.kind == predictor::CollectiveKind::kAllGather && pc.operand_bytes == operand_bytes &&
          pc.result_bytes == result_bytes && (axes == 0 || pc.axes == axes)) {
        ++count;
      }
    }
    return count;
  }
  static std::vector<CorpusRow>* rows_;
};

std::vector<CorpusRow>* PredictAccuracy::rows_ = nullptr;

TEST_F(PredictAccuracy, CoversTheWholeCorpus) {
  ASSERT_NE(rows_, nullptr);
  // Six programs, 6 candidates each, 8 for the MoE (samples/sharded/README.md).
  EXPECT_EQ(rows_->size(), 38u);
}

TEST_F(PredictAccuracy, ArgumentBytesAreExact) {
  ASSERT_NE(rows_, nullptr);
  for (const CorpusRow& r : *rows_) {
    EXPECT_EQ(r.prediction.devices.front().argument_bytes, r.c.truth.argument_bytes)
        << r.c.program << " " << r.c.candidate;
  }
}

// Cases whose prediction misses a target today (docs/accuracy.md has
// their figures). They are listed, not loosened: every other case must meet
// the target, and a case leaving this list should be removed from it.
bool KnownMiss(const std::set<std::string>& misses, const CorpusRow& r) {
  return misses.count(r.c.program + " " + r.c.candidate) > 0;
}

// None now: mlp_train_step fsdp4_tp2 was 1,536 bytes short (an f32[512]
// bias gradient XLA returns replicated came out split 4 ways) until the
// first stage of Shardy's propagation (predictor/pass_through_stage.cc)
// settled y's batch split on the loss chain before the dots.
const std::set<std::string> kOutputMisses = {};

// Each held at its measured |error| rounded up to the next percent
// (docs/accuracy.md), so that a miss cannot grow unnoticed.
// None now: moe_train_step dp2_ep4 (-10.7%, held at 11) is within 10%
// since its expert weight-gradient dots and its combine dot take XLA's
// collectives (MoeExpertGradientDotsGatherInsteadOfAllReducing,
// MoeCombineReSplitsTheExpertOutputInsteadOfGathering).
const std::map<std::string, double> kFootprintMisses = {};

// A program's candidates by predicted footprint (`predicted`) or by the
// compiled one, ties in corpus order.
std::vector<std::string> CandidateOrder(std::vector<const CorpusRow*> rows, bool predicted) {
  std::stable_sort(rows.begin(), rows.end(), [&](const CorpusRow* a, const CorpusRow* b) {
    return predicted ? a->prediction.max_device_footprint_bytes < b->prediction.max_device_footprint_bytes
                     : a->c.truth.footprint() < b->c.truth.footprint();
  });
  std::vector<std::string> names;
  for (const CorpusRow* r : rows) names.push_back(r->c.candidate);
  return names;
}

TEST_F(PredictAccuracy, OutputBytesAreExact) {
  ASSERT_NE(rows_, nullptr);
  for (const CorpusRow& r : *rows_) {
    if (KnownMiss(kOutputMisses, r)) continue;
    EXPECT_EQ(r.prediction.devices.front().output_bytes, r.c.truth.output_bytes)
        << r.c.program << " " << r.c.candidate;
  }
}

TEST_F(PredictAccuracy, AliasBytesAreExact) {
  ASSERT_NE(rows_, nullptr);
  for (const CorpusRow& r : *rows_) {
    EXPECT_EQ(r.prediction.devices.front().alias_bytes, r.c.truth.alias_bytes)
        << r.c.program << " " << r.c.candidate;
  }
}

TEST_F(PredictAccuracy, FootprintWithinTenPercent) {
  ASSERT_NE(rows_, nullptr);
  for (const CorpusRow& r : *rows_) {
    const auto miss = kFootprintMisses.find(r.c.program + " " + r.c.candidate);
    const double bound = miss == kFootprintMisses.end() ? 10.0 : miss->second;
    EXPECT_LE(std::fabs(r.footprint_error_percent), bound) << r.c.program << " " << r.c.candidate;
  }
}

// Under fsdp a weight's gradient is a full-size partial sum (the batch is
// split), which XLA's CPU pipeline all-reduces in one combined all-reduce
// of every gradient before slicing each device's part; the single-device
// program computed that gradient into the output buffer of its update, and
// it must still wait there, full size, for the combined all-reduce. XLA's
// buffer assignment of these compiles holds it so (convnet fsdp8: the
// f32[256,16384] dense gradient and its all-reduced copy, 16 MiB each, live
// at once). Before, memplan ended it at its single-device reader: mlp -8.2%,
// moe -21.2%, convnet fsdp8 -22.5% footprint.
TEST_F(PredictAccuracy, PartialGradientsWaitForTheCombinedAllReduce) {
  ASSERT_NE(rows_, nullptr);
  const std::map<std::string, double> temp_bound_percent = {
      {"mlp_train_step fsdp4_tp2", 0.5},
      {"moe_train_step fsdp4_tp2", 0.5},
      {"convnet_train_step fsdp8", 5},
      {"convnet_train_step fsdp4_tp2", 2},
  };
  ExpectTempErrorsWithin(temp_bound_percent);
}

// moe_train_step under tp8 and dp2_tp4 all-reduces its second expert dot's
// partial sum (f32[8,640,512] over tp), which two fusions read. XLA's CPU
// schedule issues a lone all-reduce right before its first reader and frees
// the partial there; memplan held the partial to the last reader, beside the
// result, and predicted temp +20.3% (tp8) and +39.0% (dp2_tp4) over XLA's.
// (dp2_tp4 is held tighter by OutputAllocationsAreAssignedAnew.)
TEST_F(PredictAccuracy, LoneAllReduceFreesItsPartialAtTheFirstReader) {
  ASSERT_NE(rows_, nullptr);
  const std::map<std::string, double> temp_bound_percent = {
      {"moe_train_step tp8", 3},
  };
  ExpectTempErrorsWithin(temp_bound_percent);
}

// XLA assigns the partitioned program anew, and the predictor re-runs its
// buffer assigner on the per-device buffers (the default,
// PredictOptions::reassign_output_allocations): moe_train_step dp2_tp4
// puts the 2.5 MiB dispatch dot and its copy, temps in the single-device
// program, into the two 4 MiB weight-gradient output allocations. Keeping
// each value in its single-device allocation instead put them in the
// arena: temp +19.6%, footprint +11.0% over XLA's, and moe's order of
// dp2_tp4 against dp4_tp2 swapped.
TEST_F(PredictAccuracy, OutputAllocationsAreAssignedAnew) {
  ASSERT_NE(rows_, nullptr);
  ExpectTempErrorsWithin({{"moe_train_step dp2_tp4", 1}});
}

// moe_train_step's single-device program transposes its dispatched tokens
// and their gradient into layout copies that its expert weight-gradient
// dots read; under fsdp8 the copies come out split and the dots need them
// whole. XLA gathers the copied value once, right after computing it, and
// makes each copy whole from it (all-gather.2 of dot.6's result, then
// copy_bitcast_fusion.2 and copy_bitcast_fusion, 10 MiB each; four such
// buffers live at once, XLA's temp 47,227,160 bytes). memplan gathered each
// split copy on its own: temp -10.9%, footprint -9.1%.
TEST_F(PredictAccuracy, SplitLayoutCopiesAreMadeWholeFromTheirGatheredValue) {
  ASSERT_NE(rows_, nullptr);
  const std::map<std::string, double> temp_bound_percent = {
      {"moe_train_step fsdp8", 1},
  };
  ExpectTempErrorsWithin(temp_bound_percent);
}

// transformer_fwd reshapes its f32[8,128,768] projections to 12 heads of 64;
// under tp8 the 768 is split 8 ways, which 12 heads do not divide. XLA keeps
// 4 of the 8 ways on the heads and all-gathers pairs: its truth.json lists
// three all-gathers f32[8,128,96] -> f32[8,128,192] (393,216 -> 786,432
// bytes) over groups [4,2]<=[8], and a temp of 12,189,760 bytes. Before the
// axis could be split into sub-axes (4 x 2), memplan gathered the heads
// whole: temp +54.0%, footprint +37.0%.
TEST_F(PredictAccuracy, HeadsKeepThePartOfTheAxisThatDividesThem) {
  ASSERT_NE(rows_, nullptr);
  const CorpusRow* row = Row("transformer_fwd", "tp8");
  ASSERT_NE(row, nullptr);
  EXPECT_LE(std::fabs(row->temp_error_percent), 0.5);
  EXPECT_EQ(CountGathers(*row, 393216, 786432), 3);
  // Read back on the plan's mesh: every collective names the tp axis.
  for (const predictor::CollectiveGroup& g : row->prediction.collectives) EXPECT_EQ(g.axes, 1u);
}

// The median target, met: the median |error| over the 38 cases.
TEST_F(PredictAccuracy, FootprintMedianWithinThreePercent) {
  ASSERT_NE(rows_, nullptr);
  std::vector<double> errors;
  for (const CorpusRow& r : *rows_) errors.push_back(std::fabs(r.footprint_error_percent));
  ASSERT_FALSE(errors.empty());
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  const double median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  EXPECT_LE(median, 3.0);
}

TEST_F(PredictAccuracy, CandidatesOrderAsCompiled) {
  ASSERT_NE(rows_, nullptr);
  std::map<std::string, std::vector<const CorpusRow*>> by_program;
  for (const CorpusRow& r : *rows_) by_program[r.c.program].push_back(&r);
  for (auto& [program, list] : by_program) {
    EXPECT_EQ(CandidateOrder(list, true), CandidateOrder(list, false)) << program;
  }
}

// The plan files beside each truth (what `memplan predict --plan` reads)
// give the same predictions as the shardings the compile recorded.
TEST_F(PredictAccuracy, PlanFilesPredictLikeTheRecordedShardings) {
  ASSERT_NE(rows_, nullptr);
  std::string loaded_dir;
  std::optional<parsers::LoadedProgram> loaded;
  std::unique_ptr<predictor::Predictor> predictor;
  for (const CorpusRow& r : *rows_) {
    const std::string dir = SourcePath("samples/sharded/" + r.c.program);
    if (dir != loaded_dir) {
      auto l = parsers::LoadProgram(dir, {});
      ASSERT_TRUE(l.ok()) << l.status();
      loaded.emplace(*std::move(l));
      auto p = predictor::Predictor::Create(loaded->program);
      ASSERT_TRUE(p.ok());
      predictor = *std::move(p);
      loaded_dir = dir;
    }
    auto source = parsers::SourceText::FromFile(dir + "/candidates/" + r.c.candidate + ".plan.yaml");
    ASSERT_TRUE(source.ok()) << source.status();
    auto plan = parsers::ParsePlan(*source);
    ASSERT_TRUE(plan.ok()) << plan.status();
    auto arguments = ir::EntryArguments(loaded->program.module);
    ASSERT_TRUE(arguments.ok());
    auto resolved = parsers::ResolvePlan(*plan, *arguments, ir::EntryOutputs(loaded->program.module));
    ASSERT_TRUE(resolved.ok()) << resolved.status();
    auto prediction = predictor->Predict(*resolved);
    ASSERT_TRUE(prediction.ok()) << prediction.status();
    EXPECT_EQ(prediction->max_device_footprint_bytes, r.prediction.max_device_footprint_bytes)
        << r.c.program << " " << r.c.candidate;
  }
}

// The prediction with every argument of `p` replicated on a one-device
// mesh, under `options`; the program's compiled figures are its unsharded.
absl::StatusOr<predictor::Prediction> OneDevicePrediction(const CorpusProgram& p,
                                                          const predictor::PredictOptions& options) {
  ASSIGN_OR_RETURN(parsers::LoadedProgram loaded, parsers::LoadProgram(p.dir, {}));
  ASSIGN_OR_RETURN(auto predictor, predictor::Predictor::Create(loaded.program, options));
  ir::ResolvedPlan plan = p.cases.front().plan;
  plan.mesh = ir::Mesh();
  plan.mesh.axes = {{"x", 1}};
  for (size_t i = 0; i < plan.arguments.size(); ++i) {
    plan.SetArgumentSharding(i, ir::HloSharding::Replicated());
  }
  return predictor->Predict(plan);
}

// On one device (every argument replicated) the prediction is the program
// as compiled: its arguments, outputs and aliases exact, no collectives,
// and the assigner re-run giving back XLA's own assignment, temp within
// 0.1% of the compile's (the heap simulator's figure, docs/accuracy.md).
// A weight gradient its SGD update overwrites in place (mlp: dot, then
// multiply_subtract_fusion.7, both in allocation 0) touches its update's
// lifetime, so the re-run alone moved it to the arena: convnet temp
// +10.6%, mlp +30.0% over the compile's. Values XLA chains into a live-out
// value's allocation stay there. A while loop's state (its init, body
// parameter, body result and loop result: one HloBuffer to XLA) is re-run
// whole: value by value, scan_layers_train_step came out +6.7%.
TEST_F(PredictAccuracy, ReplicatedOnOneDeviceIsTheProgramAsCompiled) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok());
  for (const CorpusProgram& p : *corpus) {
    absl::StatusOr<predictor::Prediction> prediction = OneDevicePrediction(p, {});
    ASSERT_TRUE(prediction.ok()) << p.name << ": " << prediction.status();
    const predictor::DeviceMemory& d = prediction->devices.front();
    const analyzer::MemoryStats& u = prediction->unsharded;
    EXPECT_EQ(d.argument_bytes, u.argument_bytes) << p.name;
    EXPECT_EQ(d.output_bytes, u.output_bytes) << p.name;
    EXPECT_EQ(d.alias_bytes, u.alias_bytes) << p.name;
    EXPECT_NEAR(static_cast<double>(d.temp_bytes), static_cast<double>(u.temp_bytes),
                0.001 * static_cast<double>(u.temp_bytes))
        << p.name;
    EXPECT_TRUE(prediction->collectives.empty()) << p.name;
  }
}

// Without the re-run (reassign_output_allocations off: each value kept in
// its single-device allocation while its shard fits), one device is the
// compile's assignment unchanged: temp within 0.1% too.
TEST_F(PredictAccuracy, KeepingTheCompiledAllocationsOnOneDeviceToo) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok());
  predictor::PredictOptions keep;
  keep.reassign_output_allocations = false;
  for (const CorpusProgram& p : *corpus) {
    absl::StatusOr<predictor::Prediction> prediction = OneDevicePrediction(p, keep);
    ASSERT_TRUE(prediction.ok()) << p.name << ": " << prediction.status();
    const double temp = static_cast<double>(prediction->devices.front().temp_bytes);
    const double compiled = static_cast<double>(prediction->unsharded.temp_bytes);
    EXPECT_NEAR(temp, compiled, 0.001 * compiled) << p.name;
  }
}

// A loop's gradient accumulator that the body overwrites in place
// stays live until its dynamic-update-slice, which now waits for the
// gradients' all-reduce (output_reassignment.h,
// HoldInPlaceOperandsToTheirWriters). Freed where the single-device
// program ended it, its 25 MiB took the body's 4 MiB gradient and both
// all-reduce results: scan_layers_train_step dp2_tp4, dp4_tp2 and dp8 temp
// 16-21% under XLA's compiles.
TEST_F(PredictAccuracy, ScanLayersDataParallelHoldsItsLoopAccumulator) {
  ASSERT_NE(rows_, nullptr);
  int checked = 0;
  for (const CorpusRow& r : *rows_) {
    if (r.c.program != "scan_layers_train_step") continue;
    if (r.c.candidate != "dp2_tp4" && r.c.candidate != "dp4_tp2" && r.c.candidate != "dp8") continue;
    EXPECT_LE(std::fabs(r.temp_error_percent), 2.0) << r.c.candidate;
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

// A donated parameter's allocation is re-assigned as an output's: the
// parameter holds it to its last per-device reader, its live-out update
// from its own step, and every other value goes to the re-run, which
// offers the allocation as XLA's assigner does. Kept where the
// single-device compile put them, transformer_train_adam's dp8 weight
// gradients dot.21 (4 MiB) and dot.23 (1 MiB), computed into w_fc2's and
// w_o's allocations on one device, cost nothing: dp8 footprint -8.3%, tp8
// -6.7% (docs/accuracy.md).
TEST_F(PredictAccuracy, AdamReassignsDonatedParameterAllocations) {
  for (const char* candidate : {"dp8", "tp8"}) {
    const CorpusRow* row = Row("transformer_train_adam", candidate);
    ASSERT_NE(row, nullptr) << candidate;
    EXPECT_LE(std::fabs(row->footprint_error_percent), 1.0) << candidate;
  }
}

// A donated weight's one-device copy that the partitioned program does not
// make (predictor/donated_copies.h): adam dp4_tp2's copies of w_fc1 (2 MiB
// per device) and w_o were in the arena over its peak (footprint +6.5%,
// temp +16.8%; XLA's sharded dp4_tp2 has no copy of a weight).
TEST_F(PredictAccuracy, AdamDropsDonatedCopiesTheCombinedAllReduceOrders) {
  const CorpusRow* row = Row("transformer_train_adam", "dp4_tp2");
  ASSERT_NE(row, nullptr);
  EXPECT_LE(std::fabs(row->temp_error_percent), 1.0);
}

// Re-run, buffers of one size are placed in post order (output_reassignment
// .h, InstructionPostOrder) and an in-place group moves whole: transformer_
// fwd dp2_tp4's wrapped_convert.7 (scheduled early, read late) no longer
// takes the logits' allocation before ynn_fusion.11 and the
// broadcast_select_fusion that overwrites it (XLA's sharded compile);
// footprint was -4.9%, temp -7.7%.
TEST(PredictAccuracyReassigned, TransformerFwdDp2Tp4PlacesByPostOrder) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  predictor::PredictOptions options;
  options.reassign_output_allocations = true;
  auto rows = PredictCorpus(*corpus, options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  int checked = 0;
  for (const CorpusRow& r : *rows) {
    if (r.c.program != "transformer_fwd" || r.c.candidate != "dp2_tp4") continue;
    EXPECT_LE(std::fabs(r.temp_error_percent), 1.0);
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

// moe_train_step dp2_ep4's expert weight-gradient dots contract the tokens'
// g*c, split by (dp, ep), with h's (and its gradient's) g*c, split by dp
// while ep splits their experts. XLA's compile (truth.json) all-gathers h
// and its gradient over dp, f32[2,4,80,1024] -> f32[2,8,80,1024]
// (2,621,440 -> 5,242,880 bytes, all-gather.3 and .6), and all-reduces
// nothing over dp alone: the gradients come out whole on each expert
// shard. memplan kept the dp contraction split, a 4 MiB partial sum per
// dot and their combined all-reduce; footprint -14.0% (temp -25.2%) under
// the re-run's post-order ties.
TEST_F(PredictAccuracy, MoeExpertGradientDotsGatherInsteadOfAllReducing) {
  ASSERT_NE(rows_, nullptr);
  const CorpusRow* row = Row("moe_train_step", "dp2_ep4");
  ASSERT_NE(row, nullptr);
  int dp_all_reduces = 0;
  for (const predictor::PredictedCollective& pc : row->prediction.collective_list) {
    if (pc.axes == 1u && pc.kind == predictor::CollectiveKind::kAllReduce) ++dp_all_reduces;  // dp alone
  }
  EXPECT_EQ(CountGathers(*row, 2621440, 5242880, /*axes=*/1u), 2);  // over dp alone
  EXPECT_EQ(dp_all_reduces, 0);
  EXPECT_LE(std::fabs(row->footprint_error_percent), 10.0);
}

// moe_train_step fsdp4_tp2's w_out ([e, f, d] split on tp and fsdp) is read
// by the forward dot and the backward one, each gathering its fsdp axis and
// keeping tp: XLA's compile gathers it once per dot (all-gather.2 and .3,
// 2 -> 8 MiB per device, channels 7 and 9 apart, same replica groups) and
// w_in once (all-gather.1). memplan recorded one gather of w_out.
TEST_F(PredictAccuracy, PartialGathersAreDoneOncePerReader) {
  ASSERT_NE(rows_, nullptr);
  const CorpusRow* row = Row("moe_train_step", "fsdp4_tp2");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(CountGathers(*row, 2097152, 8388608), 3);
}

// moe_train_step dp2_ep4's combine dot reads the expert output transposed
// to [g, c*e, d] (copy_bitcast_fusion.4), ep on e, the minor factor of the
// merged c*e, and takes g split by (dp, ep). XLA's compile re-splits the
// expert output onto g by an all-to-all (all-to-all.5, 1,310,720 bytes) and
// its only all-gathers over ep are x's and the router's (all-gather.1 and
// .2, 2,097,152 and 655,360 bytes, truth.json). memplan gathered the copy
// over ep (1.25 -> 5 MiB) because a split dimension (g by dp) took no
// further axes from its reader.
TEST_F(PredictAccuracy, MoeCombineReSplitsTheExpertOutputInsteadOfGathering) {
  ASSERT_NE(rows_, nullptr);
  const CorpusRow* row = Row("moe_train_step", "dp2_ep4");
  ASSERT_NE(row, nullptr);
  std::multiset<int64_t> ep_gathers;
  for (const predictor::PredictedCollective& pc : row->prediction.collective_list) {
    if (pc.kind == predictor::CollectiveKind::kAllGather && pc.axes == 2u) ep_gathers.insert(pc.result_bytes);
  }
  EXPECT_EQ(ep_gathers, (std::multiset<int64_t>{655360, 2097152}));
}

TEST_F(PredictAccuracy, Deterministic) {
  ASSERT_NE(rows_, nullptr);
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok());
  auto again = PredictCorpus(*corpus);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), rows_->size());
  for (size_t i = 0; i < rows_->size(); ++i) {
    EXPECT_EQ((*again)[i].prediction.devices.front().temp_bytes,
              (*rows_)[i].prediction.devices.front().temp_bytes);
  }
}

}  // namespace
}  // namespace memplan::test
