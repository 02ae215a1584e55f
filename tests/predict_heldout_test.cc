// The programs held out of the sharded corpus (samples/sharded_heldout; its
// README says what they are and why). gpt_lm_train_step misses the corpus
// targets (docs/accuracy.md, "Held-out programs"), so it is not held to
// them; these tests hold the rules that were read from it, each against
// XLA's memory_analysis() of the 8-device compile, and each fails without
// its rule. llama_train_step and bf16_mixed_train_step met them at their
// first measurement, before any rule was read from them; they hold them
// there.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "tests/predict_corpus.h"
#include "tests/test_util.h"

namespace memplan::test {
namespace {

class HeldOut : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto rows = PredictCorpusAt(SourcePath("samples/sharded_heldout"));
    ASSERT_TRUE(rows.ok()) << rows.status();
    rows_ = new std::vector<CorpusRow>(*std::move(rows));
  }
  static void TearDownTestSuite() {
    delete rows_;
    rows_ = nullptr;
  }
  static const CorpusRow* Row(std::string_view candidate,
                              std::string_view program = "gpt_lm_train_step") {
    for (const CorpusRow& r : *rows_) {
      if (r.c.program == program && r.c.candidate == candidate) return &r;
    }
    return nullptr;
  }
  static std::vector<CorpusRow>* rows_;
};

std::vector<CorpusRow>* HeldOut::rows_ = nullptr;

TEST_F(HeldOut, HasTheSixFamilyCandidatesOfEachProgram) {
  ASSERT_NE(rows_, nullptr);
  EXPECT_EQ(rows_->size(), 18u);
  for (const CorpusRow& r : *rows_) {
    EXPECT_TRUE(r.c.program == "gpt_lm_train_step" || r.c.program == "llama_train_step" ||
                r.c.program == "bf16_mixed_train_step");
    const predictor::DeviceMemory& d = r.prediction.devices.at(0);
    EXPECT_EQ(d.argument_bytes, r.c.truth.argument_bytes) << r.c.program << " " << r.c.candidate;
  }
}

// Measured once with no rule read from them, these met the corpus targets
// (arguments and outputs exact, every footprint within 10%, the candidates
// in XLA's order); held there. llama_train_step: grouped-query attention
// with rotary positions, SwiGLU, RMSNorm, remat, Adam.
// bf16_mixed_train_step: bf16 compute from f32 master weights, Adam.
void ExpectMeetsTheCorpusTargets(const std::vector<CorpusRow>& rows, std::string_view program) {
  std::vector<std::pair<int64_t, std::string>> predicted, compiled;
  for (const CorpusRow& r : rows) {
    if (r.c.program != program) continue;
    const predictor::DeviceMemory& d = r.prediction.devices.at(0);
    EXPECT_EQ(d.output_bytes, r.c.truth.output_bytes) << program << " " << r.c.candidate;
    EXPECT_LE(std::fabs(r.footprint_error_percent), 10.0) << program << " " << r.c.candidate;
    predicted.push_back({r.prediction.max_device_footprint_bytes, r.c.candidate});
    compiled.push_back({r.c.truth.footprint(), r.c.candidate});
  }
  ASSERT_EQ(predicted.size(), 6u) << program;
  std::sort(predicted.begin(), predicted.end());
  std::sort(compiled.begin(), compiled.end());
  for (size_t i = 0; i < predicted.size(); ++i) {
    EXPECT_EQ(predicted[i].second, compiled[i].second) << program << " rank " << i;
  }
}

TEST_F(HeldOut, LlamaMeetsTheCorpusTargets) { ExpectMeetsTheCorpusTargets(*rows_, "llama_train_step"); }

TEST_F(HeldOut, MixedPrecisionMeetsTheCorpusTargets) {
  ExpectMeetsTheCorpusTargets(*rows_, "bf16_mixed_train_step");
}

// fsdp8 splits the token ids by batch and the embedding by vocabulary over
// the same axis. XLA keeps the batch split: it all-gathers the ids (512 ->
// 4,096 bytes), looks each one up in every device's part of the table, all-
// reduces the whole batch's rows (1 MiB) and slices each device's batch.
// Taking the vocabulary's split instead (a partial sum, the batch whole)
// leaves every later activation whole: the footprint was +45% (+149% with
// the scatter below unsplit too).
TEST_F(HeldOut, EmbeddingLookupKeepsTheIdsBatchSplit) {
  const CorpusRow* row = Row("fsdp8");
  ASSERT_NE(row, nullptr);
  int id_gathers = 0, lookup_sums = 0;
  for (const predictor::PredictedCollective& pc : row->prediction.collective_list) {
    if (pc.kind == predictor::CollectiveKind::kAllGather && pc.operand_bytes == 512 &&
        pc.result_bytes == 4096) {
      ++id_gathers;
    }
    if (pc.kind == predictor::CollectiveKind::kAllReduce && pc.result_bytes == (1 << 20)) {
      ++lookup_sums;
    }
  }
  EXPECT_GE(id_gathers, 1);
  EXPECT_GE(lookup_sums, 1);
  EXPECT_EQ(row->prediction.devices.at(0).output_bytes, row->c.truth.output_bytes);
  EXPECT_LE(std::fabs(row->footprint_error_percent), 10.0);
}

// The cross-entropy's backward pass scatter-adds into zeros of the log-
// probabilities' shape (f32[8,128,4096], 16 MiB whole). XLA makes the zeros
// in the scatter's sharding; left replicated they were the largest temp
// buffer of tp8 (footprint +33%) and fsdp8.
TEST_F(HeldOut, ZerosAScatterAddsIntoAreMadeInItsSharding) {
  for (std::string_view candidate : {"tp8", "fsdp8"}) {
    const CorpusRow* row = Row(candidate);
    ASSERT_NE(row, nullptr) << candidate;
    EXPECT_LE(std::fabs(row->footprint_error_percent), 10.0) << candidate;
  }
}

// The tied table's gradient has two parts: the LM head dot's and the
// embedding lookup's scatter-add of the batch-split rows. Each is a partial
// sum over dp that XLA all-reduces (all-reduce.38 holds both, 4 MiB each).
TEST_F(HeldOut, ScatterAddOfBatchSplitUpdatesIsAllReduced) {
  const CorpusRow* row = Row("dp8");
  ASSERT_NE(row, nullptr);
  int table_sums = 0;
  for (const predictor::PredictedCollective& pc : row->prediction.collective_list) {
    if (pc.kind == predictor::CollectiveKind::kAllReduce && pc.result_bytes == 4096 * 256 * 4) {
      ++table_sums;
    }
  }
  EXPECT_EQ(table_sums, 2);
}

// The single-device program folds the embedding's scatter-add into the
// momentum update: it scatters into the buffer that already holds the LM
// head's part plus momentum, which reads that part's all-reduce. XLA's
// partitioned program scatters into zeros, all-reduces the partial with
// every other gradient in one all-reduce (all-reduce.38: 14.8 MB, the
// partial and every result live at once), then adds. memplan judged the
// scatter's partial dependent on the LM head's all-reduce through its
// accumulator and all-reduced it apart, after the others, with no buffer
// of its own: one op more and footprint -15.9%; now one op, as XLA's.
TEST_F(HeldOut, ScatterAddIntoAWholeAccumulatorJoinsTheCombinedAllReduce) {
  const CorpusRow* row = Row("dp8");
  ASSERT_NE(row, nullptr);
  ASSERT_EQ(row->prediction.collectives.size(), 1u);
  EXPECT_EQ(row->prediction.collectives[0].count, 1);
  EXPECT_LE(std::fabs(row->footprint_error_percent), 1.0);
  int excluded = 0;
  for (const predictor::PredictedCollective& pc : row->prediction.collective_list) {
    if (pc.excluded_accumulator.valid()) ++excluded;
  }
  EXPECT_EQ(excluded, 1);
}

// fsdp4_tp2 leaves w_q, w_k and w_v (256 x 256, under the FSDP minimum)
// split by tp alone, and the layer-norm scales replicated; XLA's outputs
// of their updates (params and momentum) are split by fsdp as well, as the
// weight gradients are. The momentum update was settled from the momentum
// (the first stage) and kept it, all-gathering the gradient: outputs
// 1,081,344 bytes over XLA's. Refined on its free dims by its operands, it
// keeps the gradient's fsdp: then only wpe's update differed (98,304 bytes
// under; CopiesOfParametersKeepThePlansSharding below).
TEST_F(HeldOut, SettledUpdatesTakeTheGradientsSplitOnFreeDims) {
  const CorpusRow* row = Row("fsdp4_tp2");
  ASSERT_NE(row, nullptr);
  const int64_t predicted = row->prediction.devices.at(0).output_bytes;
  EXPECT_LE(std::llabs(predicted - row->c.truth.output_bytes), 98304)
      << predicted << " against " << row->c.truth.output_bytes;
}

// The single-device program copies wpe (a donated parameter whose update
// does not wait for every reader: copy.154) and its forward add reads the
// copy, beside the embedding split by d over fsdp; that add's want split
// the copy [null, fsdp], and the update, reading it, came out split too
// (98,304 bytes under XLA's outputs). XLA inserts the copy after
// partitioning: there the add reads the parameter, replicated as the plan
// says, and slices it locally. A copy of an entry parameter now keeps the
// parameter's sharding, and every held-out case's outputs are exact.
TEST_F(HeldOut, CopiesOfParametersKeepThePlansSharding) {
  const CorpusRow* row = Row("fsdp4_tp2");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->prediction.devices.at(0).output_bytes, row->c.truth.output_bytes);
  for (const CorpusRow& r : *rows_) {
    EXPECT_EQ(r.prediction.devices.at(0).output_bytes, r.c.truth.output_bytes)
        << r.c.program << " " << r.c.candidate;
  }
}

// JAX and XLA keep a donated parameter's alias only when its output comes
// out sharded as the parameter is: fsdp4_tp2 gives the updates of w_q, w_k,
// w_v and the layer-norm scales the gradients' fsdp split (their parameters
// and momenta are split by tp alone or replicated), and XLA's alias is
// 2,916,352 bytes, not the 4,499,456 of every donated parameter. memplan
// counted them all (alias above the outputs: found by predict_fuzzer).
TEST_F(HeldOut, AnAliasWhoseOutputIsShardedOtherwiseIsDropped) {
  const CorpusRow* row = Row("fsdp4_tp2");
  ASSERT_NE(row, nullptr);
  const predictor::DeviceMemory& d = row->prediction.devices.at(0);
  EXPECT_EQ(d.alias_bytes, row->c.truth.alias_bytes);
  EXPECT_LE(d.alias_bytes, d.output_bytes);
  for (const CorpusRow& r : *rows_) {
    EXPECT_EQ(r.prediction.devices.at(0).alias_bytes, r.c.truth.alias_bytes)
        << r.c.program << " " << r.c.candidate;
  }
}

// tp8 splits 4 heads of 64 (256 columns) 8 ways: each device holds half a
// head. XLA tiles it (heads 4 ways, the head dim 2), moves no data and
// all-reduces the attention logits over the 2-way part (4 all-reduces of
// f32[8,1,128,128], 512 KiB, none of them gathers); memplan gathered the
// head dim's part instead (12 all-gathers, more in the backward pass).
TEST_F(HeldOut, HalfHeadsAreTiledNotGathered) {
  const CorpusRow* row = Row("tp8");
  ASSERT_NE(row, nullptr);
  int gathers = 0, logit_sums = 0;
  for (const predictor::PredictedCollective& pc : row->prediction.collective_list) {
    if (pc.kind == predictor::CollectiveKind::kAllGather) ++gathers;
    if (pc.kind == predictor::CollectiveKind::kAllReduce && pc.result_bytes == 8 * 128 * 128 * 4) {
      ++logit_sums;
    }
  }
  EXPECT_EQ(gathers, 0);
  EXPECT_EQ(logit_sums, 4);
}

// take_along_axis's gather and its transpose's scatter have batching dims
// (batch, sequence) when XLA partitions them; the CPU pipeline lowers them
// into iota indices before memplan reads the module. Found again
// (predictor/lowered_batching.h), the labels' batch split reaches the
// scatter and, backward, the log-softmax: fsdp4_tp2 was +78.9% with the
// cross-entropy's values split by vocabulary only.
TEST_F(HeldOut, CrossEntropyFollowsTheLabelsThroughLoweredBatchingDims) {
  const CorpusRow* row = Row("fsdp4_tp2");
  ASSERT_NE(row, nullptr);
  EXPECT_LE(std::fabs(row->footprint_error_percent), 10.0);
}

}  // namespace
}  // namespace memplan::test
