// Prediction from jaxprs: every (program, candidate) of samples/sharded
// predicted from the program's jaxpr (jaxpr.txt lowered into a Program,
// ir/jaxpr_program.h) with the same Predictor as the HLO programs, the
// candidate's plan built from the shardings the 8-device compile recorded
// (tests/predict_corpus.h), held against XLA's memory_analysis() of that
// compile. Donation from the single-device truth.json (donated_arguments).
//
// The table docs/accuracy.md "Jaxprs under shardings" shows is printed by
//   build/tests/memplan_jaxpr_predict_tests --gtest_filter='JaxprPredict.*'
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "ir/jaxpr_copies.h"
#include "ir/jaxpr_cpu_bf16.h"
#include "ir/jaxpr_lowering.h"
#include "ir/jaxpr_program.h"
#include "llvm/Support/JSON.h"
#include "parsers/jaxpr_parser.h"
#include "parsers/load_program.h"
#include "parsers/source_text.h"
#include "predictor/predict.h"
#include "tests/predict_corpus.h"
#include "tests/test_util.h"

namespace memplan::test {
namespace {

struct JaxprRow {
  CorpusCase c;
  predictor::DeviceMemory d;
  double footprint_error = 0;  // percent, signed
  double temp_error = 0;
};

double Percent(int64_t predicted, int64_t truth) {
  if (truth == 0) return predicted == 0 ? 0.0 : 100.0;
  return 100.0 * static_cast<double>(predicted - truth) / static_cast<double>(truth);
}

// The jaxpr of `dir` as a Program, its arguments donated as the
// single-device compile's were, bf16 computed in f32 as XLA's CPU backend
// does (the corpus's compiles are CPU compiles); with `xla_rules`, the rules of XLA's
// compile that are not yet the default (ir::JaxprProgramOptions:
// fold_dot_transposes, copy_donated_parameters).
absl::StatusOr<ir::Program> JaxprProgram(const std::string& dir, bool xla_rules) {
  llvm::Expected<llvm::json::Value> truth = llvm::json::parse(ReadFileOrDie(dir + "/truth.json"));
  if (!truth) return absl::InvalidArgumentError(llvm::toString(truth.takeError()));
  const llvm::json::Object& t = *truth->getAsObject();
  std::set<std::string> donated_tops;
  if (const llvm::json::Array* d = t.getArray("donated_arguments")) {
    for (const auto& v : *d) donated_tops.insert(v.getAsString().getValueOr("").str());
  }
  ir::JaxprProgramOptions options;
  if (const llvm::json::Array* args = t.getArray("arguments")) {
    for (const auto& a : *args) {
      const llvm::json::Object& o = *a.getAsObject();
      const int64_t number = o.getInteger("number").getValueOr(-1);
      if (number < 0) continue;
      if (options.donated.size() <= static_cast<size_t>(number)) options.donated.resize(number + 1, false);
      options.donated[number] = donated_tops.count(o.getString("top").getValueOr("").str()) > 0;
    }
  }
  options.fold_dot_transposes = xla_rules;
  options.copy_donated_parameters = xla_rules;
  // The corpus is compiled by XLA's CPU backend.
  options.cpu_bf16_in_f32 = true;
  const std::string path = dir + "/" + t.getString("jaxpr_file")->str();
  auto source = parsers::SourceText::FromString(path, ReadFileOrDie(path));
  absl::StatusOr<ir::JaxprModule> jaxpr = parsers::ParseJaxpr(*source);
  if (!jaxpr.ok()) return jaxpr.status();
  return ir::BuildJaxprProgram(*jaxpr, options);
}

// Every row's footprint |error| is at most its case's held figure, and
// every row has one.
void ExpectWithinHeld(const std::vector<JaxprRow>& rows, const std::map<std::string, double>& held) {
  for (const JaxprRow& r : rows) {
    const std::string key = r.c.program + " " + r.c.candidate;
    auto it = held.find(key);
    ASSERT_NE(it, held.end()) << key;
    EXPECT_LE(std::fabs(r.footprint_error), it->second) << key << ": " << r.footprint_error << "%";
  }
}

class JaxprPredict : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rows_ = new std::vector<JaxprRow>();
    xla_rows_ = new std::vector<JaxprRow>();
    PredictCorpus(false, rows_);
    PredictCorpus(true, xla_rows_);
  }
  // Every corpus case predicted from its program's jaxpr, appended to `rows`.
  static void PredictCorpus(bool xla_rules, std::vector<JaxprRow>* rows) {
    auto corpus = LoadCorpus(SourcePath("samples/sharded"));
    ASSERT_TRUE(corpus.ok()) << corpus.status();
    for (const CorpusProgram& p : *corpus) {
      absl::StatusOr<ir::Program> program = JaxprProgram(p.dir, xla_rules);
      ASSERT_TRUE(program.ok()) << p.name << ": " << program.status();
      programs_.push_back(std::make_unique<ir::Program>(*std::move(program)));
      auto predictor = predictor::Predictor::Create(*programs_.back());
      ASSERT_TRUE(predictor.ok()) << p.name << ": " << predictor.status();
      for (const CorpusCase& c : p.cases) {
        absl::StatusOr<predictor::Prediction> prediction = (*predictor)->Predict(c.plan);
        ASSERT_TRUE(prediction.ok()) << p.name << " " << c.candidate << ": " << prediction.status();
        JaxprRow row{c, prediction->devices.front()};
        row.footprint_error = Percent(row.d.device_footprint_bytes, c.truth.footprint());
        row.temp_error = Percent(row.d.temp_bytes, c.truth.temp_bytes);
        rows->push_back(row);
      }
    }
  }
  static void TearDownTestSuite() {
    delete rows_;
    rows_ = nullptr;
    delete xla_rows_;
    xla_rows_ = nullptr;
    programs_.clear();
  }
  static std::vector<JaxprRow>* rows_;
  static std::vector<JaxprRow>* xla_rows_;  // JaxprProgram(dir, true)
  static std::vector<std::unique_ptr<ir::Program>> programs_;
};

std::vector<JaxprRow>* JaxprPredict::rows_ = nullptr;
std::vector<JaxprRow>* JaxprPredict::xla_rows_ = nullptr;
std::vector<std::unique_ptr<ir::Program>> JaxprPredict::programs_;

std::string Table(const std::vector<JaxprRow>& rows) {
  std::string s =
      "| program | candidate | argument (pred / XLA) | output (pred / XLA) | alias (pred / XLA) | temp pred | "
      "temp XLA | temp error | footprint pred | footprint XLA | footprint error |\n"
      "|---|---|---|---|---|--:|--:|--:|--:|--:|--:|\n";
  auto mark = [](int64_t a, int64_t b) { return a == b ? std::string("exact") : absl::StrCat(a, " / ", b); };
  std::vector<double> errors;
  for (const JaxprRow& r : rows) {
    absl::StrAppend(&s, "| ", r.c.program, " | ", r.c.candidate, " | ", mark(r.d.argument_bytes, r.c.truth.argument_bytes),
                    " | ", mark(r.d.output_bytes, r.c.truth.output_bytes), " | ",
                    mark(r.d.alias_bytes, r.c.truth.alias_bytes), " | ", r.d.temp_bytes, " | ", r.c.truth.temp_bytes,
                    " | ", absl::StrFormat("%+.1f%%", r.temp_error), " | ", r.d.device_footprint_bytes, " | ",
                    r.c.truth.footprint(), " | ", absl::StrFormat("%+.1f%%", r.footprint_error), " |\n");
    errors.push_back(std::fabs(r.footprint_error));
  }
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  const double median = n == 0 ? 0 : n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  absl::StrAppend(&s, "\nCases: ", n, ". Footprint |error|: median ", absl::StrFormat("%.1f%%", median), ", max ",
                  absl::StrFormat("%.1f%%", n == 0 ? 0.0 : errors.back()), ".\n");
  return s;
}

TEST_F(JaxprPredict, PrintsTheTable) {
  ASSERT_NE(rows_, nullptr);
  std::printf("%s", Table(*rows_).c_str());
  // Six programs, 6 candidates each, 8 for the MoE (samples/sharded/README.md).
  EXPECT_EQ(rows_->size(), 38u);
}

// The same with the XLA rules not yet the default (docs/accuracy.md,
// "Jaxprs under shardings", the second table).
TEST_F(JaxprPredict, PrintsTheTableWithXlaRules) {
  ASSERT_NE(xla_rows_, nullptr);
  std::printf("%s", Table(*xla_rows_).c_str());
  EXPECT_EQ(xla_rows_->size(), 38u);
}

// The mlp's four weight gradients are each dot_general then transpose in
// the jaxpr; XLA computes each as one dot with swapped operands
// (jit_mlp_train_step.cpu_after_optimizations.txt, dot.3 ... dot). Folded
// (ir/jaxpr_dot_fold.h), no transpose of a dot owns a value; unfolded, all
// four do.
TEST(JaxprProgramRules, ATransposeOfADotOwnsNoBuffer) {
  const std::string dir = SourcePath("samples/sharded/mlp_train_step");
  auto count = [&](bool fold) {
    absl::StatusOr<ir::Program> program = JaxprProgram(dir, fold);
    EXPECT_TRUE(program.ok()) << program.status();
    if (!program.ok()) return -1;
    int n = 0;
    for (const ir::Value& v : program->values) {
      const ir::Instruction& inst = program->module.instruction(v.instruction);
      if (inst.opcode != ir::Opcode::kTranspose || inst.operands.size() != 1) continue;
      n += program->module.instruction(inst.operands[0]).opcode == ir::Opcode::kDot;
    }
    return n;
  };
  EXPECT_EQ(count(false), 4);
  EXPECT_EQ(count(true), 0);
}

// Whose allocations a Program holds decides whether the predictor may
// re-run XLA's assigner on them (predictor/predict.h): a jaxpr's are
// memplan's own; the compile's dumps state XLA's; its module text none.
TEST(JaxprProgramRules, ItsAssignmentIsSynthesisedTheCompilesIsXlas) {
  const std::string dir = SourcePath("samples/sharded/mlp_train_step");
  absl::StatusOr<ir::Program> jaxpr = JaxprProgram(dir, false);
  ASSERT_TRUE(jaxpr.ok()) << jaxpr.status();
  EXPECT_EQ(jaxpr->assignment_source, ir::AssignmentSource::kSynthesised);
  const std::string stem = dir + "/jit_mlp_train_step.cpu_after_optimizations";
  const std::pair<std::string, ir::AssignmentSource> inputs[] = {
      {dir, ir::AssignmentSource::kXla},
      {stem + ".hlo.pb", ir::AssignmentSource::kXla},
      {stem + "-memory-usage-report.txt", ir::AssignmentSource::kXla},
      {stem + ".txt", ir::AssignmentSource::kNone},
  };
  for (const auto& input : inputs) {
    SCOPED_TRACE(input.first);
    absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(input.first, {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->program.assignment_source, input.second);
  }
}

// mlp_train_step's SGD updates are elementwise outputs, each reading its
// weight gradient last; XLA writes each update over its gradient
// (jit_mlp_train_step.cpu_after_optimizations-buffer-assignment.txt:
// dot.3 and multiply_subtract_fusion.1 in allocation 3, maybe-live-out).
// With share_output_operands the four gradient dots are in the updates'
// output allocations; without, in the temp arena.
TEST(JaxprProgramRules, AnElementwiseOutputTakesTheOperandItReadsLast) {
  const std::string dir = SourcePath("samples/sharded/mlp_train_step");
  auto source = parsers::SourceText::FromString(dir, ReadFileOrDie(dir + "/jit_mlp_train_step.jaxpr.txt"));
  absl::StatusOr<ir::JaxprModule> jaxpr = parsers::ParseJaxpr(*source);
  ASSERT_TRUE(jaxpr.ok()) << jaxpr.status();
  auto gradients_in_outputs = [&](bool share) {
    ir::JaxprProgramOptions options;
    options.fold_dot_transposes = true;
    options.share_output_operands = share;
    absl::StatusOr<ir::Program> program = ir::BuildJaxprProgram(*jaxpr, options);
    EXPECT_TRUE(program.ok()) << program.status();
    if (!program.ok()) return -1;
    int n = 0;
    for (const ir::Value& v : program->values) {
      const ir::Instruction& inst = program->module.instruction(v.instruction);
      // The weight-gradient dots: the only 4 MiB dots (2048 x 512 or
      // 512 x 2048 f32; the others are 256 x 2048 or 256 x 512).
      if (inst.opcode != ir::Opcode::kDot || v.size != 4 * 2048 * 512) continue;
      const ir::Allocation& a = program->allocations[static_cast<size_t>(v.allocation.value())];
      n += a.maybe_live_out && !a.is_entry_parameter();
    }
    return n;
  };
  EXPECT_EQ(gradients_in_outputs(true), 4);
  EXPECT_LT(gradients_in_outputs(false), 4);
}

// transformer_fwd's dots read seven bf16 weights; XLA's CPU compile
// converts each to f32 first (wrapped_convert.1 ... .7), computes every
// intermediate in f32 and returns its bf16 outputs as bf16.
TEST(JaxprProgramRules, ComputesBf16InF32AsXlaCpuDoes) {
  const std::string dir = SourcePath("samples/sharded/transformer_fwd");
  absl::StatusOr<ir::Program> program = JaxprProgram(dir, false);
  ASSERT_TRUE(program.ok()) << program.status();
  ir::Module module = program->module;
  int bf16_before = 0;
  for (const ir::Instruction& inst : module.instructions()) bf16_before += inst.shape->dtype == ir::DType::kBF16;
  EXPECT_EQ(ir::ComputeBf16InF32(&module), 0);  // JaxprProgram already did
  ir::JaxprProgramOptions plain;
  auto source = parsers::SourceText::FromString(dir, ReadFileOrDie(dir + "/jit_transformer_fwd.jaxpr.txt"));
  absl::StatusOr<ir::JaxprModule> jaxpr = parsers::ParseJaxpr(*source);
  ASSERT_TRUE(jaxpr.ok()) << jaxpr.status();
  absl::StatusOr<ir::Module> lowered = ir::LowerJaxpr(*jaxpr, plain.lowering);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  int bf16_lowered = 0;
  for (const ir::Instruction& inst : lowered->instructions()) bf16_lowered += inst.shape->dtype == ir::DType::kBF16;
  EXPECT_EQ(ir::ComputeBf16InF32(&*lowered), 7);
  int bf16_after = 0, f32_converts = 0;
  for (const ir::Instruction& inst : lowered->instructions()) {
    bf16_after += inst.shape->dtype == ir::DType::kBF16;
    f32_converts += inst.opcode == ir::Opcode::kConvert && inst.shape->dtype == ir::DType::kF32 &&
                    lowered->instruction(inst.operands[0]).opcode == ir::Opcode::kParameter &&
                    lowered->instruction(inst.operands[0]).shape->dtype == ir::DType::kBF16;
  }
  // Left bf16: the 20 parameters and what defines the outputs.
  EXPECT_LT(bf16_after, bf16_lowered);
  EXPECT_EQ(bf16_after, bf16_before);
  EXPECT_GE(f32_converts, 7);
  // No dot reads a bf16 weight any more.
  for (const ir::Instruction& inst : lowered->instructions()) {
    if (inst.opcode != ir::Opcode::kDot) continue;
    for (ir::InstructionId op : inst.operands) {
      EXPECT_FALSE(lowered->instruction(op).opcode == ir::Opcode::kParameter) << inst.name;
    }
  }
}

// transformer_train_adam donates its parameters; the backward pass reads
// w_fc1, w_fc2 and w_o for an activation gradient their Adam updates do not
// depend on, so XLA copies those three (copy.40, copy.41, copy.43 of
// jit_transformer_train_adam.cpu_after_optimizations.txt) and no other
// weight: parameters 0, 1 and 3 in tree_leaves order.
TEST(JaxprProgramRules, CopiesTheDonatedWeightsXlaCopies) {
  const std::string dir = SourcePath("samples/sharded/transformer_train_adam");
  absl::StatusOr<ir::Program> program = JaxprProgram(dir, false);
  ASSERT_TRUE(program.ok()) << program.status();
  ir::Module module = program->module;
  const std::vector<int64_t> copied = ir::CopyDonatedParameters(&module);
  EXPECT_EQ(copied, (std::vector<int64_t>{0, 1, 3}));
  // Every reader of a copied parameter now reads its copy.
  const ir::InstructionId w_fc1 = module.entry_computation()->parameters[0];
  for (const ir::Instruction& inst : module.instructions()) {
    if (inst.opcode == ir::Opcode::kCopy) continue;
    for (ir::InstructionId op : inst.operands) EXPECT_NE(op, w_fc1) << inst.name;
  }
  // The mlp donates nothing: nothing to copy.
  absl::StatusOr<ir::Program> mlp = JaxprProgram(SourcePath("samples/sharded/mlp_train_step"), false);
  ASSERT_TRUE(mlp.ok()) << mlp.status();
  EXPECT_TRUE(ir::CopyDonatedParameters(&mlp->module).empty());
}

// A jaxpr's invars are the compiled program's parameters, in order, with
// the same avals: per-device argument and alias bytes are XLA's.
TEST_F(JaxprPredict, ArgumentAndAliasBytesAreExact) {
  ASSERT_NE(rows_, nullptr);
  for (const JaxprRow& r : *rows_) {
    EXPECT_EQ(r.d.argument_bytes, r.c.truth.argument_bytes) << r.c.program << " " << r.c.candidate;
    EXPECT_EQ(r.d.alias_bytes, r.c.truth.alias_bytes) << r.c.program << " " << r.c.candidate;
  }
}

// Output bytes (leaves and the 8-byte tuple table) exact on every case
// (mlp_train_step fsdp4_tp2 was 1,536 bytes short, as the HLO-based
// prediction was, until Shardy's first stage: docs/accuracy.md).
TEST_F(JaxprPredict, OutputBytesAreExact) {
  ASSERT_NE(rows_, nullptr);
  for (const JaxprRow& r : *rows_) {
    EXPECT_EQ(r.d.output_bytes, r.c.truth.output_bytes) << r.c.program << " " << r.c.candidate;
  }
}

// The footprint targets of the prediction issue (median |error| <= 3%,
// max <= 10%) are missed from jaxprs: a jaxpr is the program before XLA
// fuses, reorders and rematerializes it (docs/accuracy.md says where each
// program goes wrong). Each case is held to the |error| measured when this
// test was written, rounded up to a whole percent, so that a change making
// any case worse fails here; a better model tightens these. Re-measured
// after the backward pass (predictor/backward.cc) changed the predictor
// under both inputs: 13 cases got worse (median 16.9% -> 22.4%) and 10
// better (max 132.2% -> 72.4%); docs/accuracy.md lists both. Re-measured
// again when partial gradients held in output buffers were kept to their
// combined all-reduce (as XLA's fsdp compiles keep them; the HLO-based
// median 2.6% -> 1.8%): mlp fsdp4_tp2 -12.2% -> -8.2% here, convnet fsdp8
// +44.6% -> +45.3% and moe fsdp4_tp2 -9.2% -> +19.0% (the unfused jaxpr
// program's temporaries, too large on most cases, no longer hidden by the
// gradient freed early); docs/accuracy.md says so. Tightened when bf16
// was computed in f32 as XLA's CPU backend does (ir/jaxpr_cpu_bf16.h):
// transformer_fwd -33%..-72% -> -5.6%..+4.9%, no other case moves.
// Re-measured when Shardy's first stage, the dot's free-over-contracting
// rule and XLA's combiner order changed the predictor under both inputs
// (shardy branch; the HLO-based table then met every target): worse here
// convnet dp2_tp4 +31.8% -> +38.3%, dp4_tp2 +50.8% -> +54.8%, tp8 -9.0% ->
// +10.3%, mlp fsdp4_tp2 -8.2% -> +16.4%; better convnet fsdp4_tp2 +39.3%
// -> +28.0%, fsdp8 +45.3% -> +14.9%, moe ep8 +20.9% -> +18.3%,
// scan_layers fsdp4_tp2 +40.9% -> +35.2% (docs/accuracy.md).
TEST_F(JaxprPredict, FootprintErrorsStayWithinTheMeasuredFigures) {
  ASSERT_NE(rows_, nullptr);
  const std::map<std::string, double> held = {
      {"convnet_train_step dp2_tp4", 39},
      {"convnet_train_step dp4_tp2", 55},
      {"convnet_train_step dp8", 40},
      {"convnet_train_step fsdp4_tp2", 29},
      {"convnet_train_step fsdp8", 15},
      {"convnet_train_step tp8", 11},
      {"mlp_train_step dp2_tp4", 24},
      {"mlp_train_step dp4_tp2", 25},
      {"mlp_train_step dp8", 25},
      {"mlp_train_step fsdp4_tp2", 17},
      {"mlp_train_step fsdp8", 2},
      {"mlp_train_step tp8", 13},
      {"moe_train_step dp2_ep4", 10},
      {"moe_train_step dp2_tp4", 6},
      {"moe_train_step dp4_tp2", 16},
      {"moe_train_step dp8", 17},
      {"moe_train_step ep8", 19},
      {"moe_train_step fsdp4_tp2", 20},
      {"moe_train_step fsdp8", 3},
      {"moe_train_step tp8", 1},
      {"scan_layers_train_step dp2_tp4", 26},
      {"scan_layers_train_step dp4_tp2", 26},
      {"scan_layers_train_step dp8", 25},
      {"scan_layers_train_step fsdp4_tp2", 36},
      {"scan_layers_train_step fsdp8", 31},
      {"scan_layers_train_step tp8", 31},
      {"transformer_fwd dp2_tp4", 5},
      {"transformer_fwd dp4_tp2", 4},
      {"transformer_fwd dp8", 1},
      {"transformer_fwd fsdp4_tp2", 1},
      {"transformer_fwd fsdp8", 6},
      // 34 before bf16 was computed in f32 as on XLA's CPU (the other
      // transformer_fwd cases were at -44% to -72%).
      {"transformer_fwd tp8", 1},
      {"transformer_train_adam dp2_tp4", 4},
      {"transformer_train_adam dp4_tp2", 1},
      {"transformer_train_adam dp8", 7},
      {"transformer_train_adam fsdp4_tp2", 13},
      {"transformer_train_adam fsdp8", 19},
      {"transformer_train_adam tp8", 10},
  };
  ExpectWithinHeld(*rows_, held);
}

// The same held figures with the XLA rules not yet the default
// (JaxprProgram(dir, true)): each case at its |error| rounded up. They
// make three cases worse than the default figures above (mlp fsdp8,
// fsdp4_tp2, transformer_train_adam dp4_tp2; docs/accuracy.md says why),
// which is why they are not the default yet. Re-measured with the default
// figures (shardy branch): worse convnet dp2_tp4 +6.5% -> +12.4%; better
// convnet tp8 -9.0% -> +0.4%, mlp fsdp4_tp2 -12.3% -> +0.1%, moe dp2_ep4
// +10.8% -> +9.2%, ep8 +20.9% -> +18.3%, scan_layers fsdp4_tp2 +32.1% ->
// +26.3%.
TEST_F(JaxprPredict, XlaRulesFootprintErrorsStayWithinTheMeasuredFigures) {
  ASSERT_NE(xla_rows_, nullptr);
  const std::map<std::string, double> held = {
      {"convnet_train_step dp2_tp4", 13},
      {"convnet_train_step dp4_tp2", 33},
      {"convnet_train_step dp8", 33},
      {"convnet_train_step fsdp4_tp2", 1},
      {"convnet_train_step fsdp8", 4},
      {"convnet_train_step tp8", 1},
      {"mlp_train_step dp2_tp4", 16},
      {"mlp_train_step dp4_tp2", 17},
      {"mlp_train_step dp8", 17},
      {"mlp_train_step fsdp4_tp2", 1},
      {"mlp_train_step fsdp8", 5},
      {"mlp_train_step tp8", 13},
      {"moe_train_step dp2_ep4", 10},
      {"moe_train_step dp2_tp4", 6},
      {"moe_train_step dp4_tp2", 16},
      {"moe_train_step dp8", 17},
      {"moe_train_step ep8", 19},
      {"moe_train_step fsdp4_tp2", 1},
      {"moe_train_step fsdp8", 3},
      {"moe_train_step tp8", 1},
      {"scan_layers_train_step dp2_tp4", 23},
      {"scan_layers_train_step dp4_tp2", 23},
      {"scan_layers_train_step dp8", 22},
      {"scan_layers_train_step fsdp4_tp2", 27},
      {"scan_layers_train_step fsdp8", 29},
      {"scan_layers_train_step tp8", 30},
      {"transformer_fwd dp2_tp4", 5},
      {"transformer_fwd dp4_tp2", 4},
      {"transformer_fwd dp8", 1},
      {"transformer_fwd fsdp4_tp2", 1},
      {"transformer_fwd fsdp8", 6},
      {"transformer_fwd tp8", 1},
      {"transformer_train_adam dp2_tp4", 2},
      {"transformer_train_adam dp4_tp2", 3},
      {"transformer_train_adam dp8", 1},
      {"transformer_train_adam fsdp4_tp2", 11},
      {"transformer_train_adam fsdp8", 7},
      {"transformer_train_adam tp8", 7},
  };
  ExpectWithinHeld(*xla_rows_, held);
}

// `memplan predict FILE.jaxpr --jaxpr-rules=cpu-bf16` lowers the jaxpr as
// the held table does for a CPU compile: transformer_fwd under dp8 (x,
// input 19, sharded over dp; the rest replicated, as the compile recorded)
// gives the table's footprint, and without the rule the default lowering's
// (bf16 temporaries, smaller). An unknown rule is exit 2 naming the rules,
// with no output file.
TEST_F(JaxprPredict, CliJaxprRulesLowerAsTheTableDoes) {
  const JaxprRow* dp8 = nullptr;
  for (const JaxprRow& r : *rows_) {
    if (r.c.program == "transformer_fwd" && r.c.candidate == "dp8") dp8 = &r;
  }
  ASSERT_NE(dp8, nullptr);
  TempDir dir;
  ASSERT_TRUE(WriteFile(dir.File("dp8.plan.yaml"), "mesh: {dp: 8}\narguments:\n  19: [dp, null, null]\n"));
  const std::string jaxpr = SourcePath("samples/sharded/transformer_fwd/jit_transformer_fwd.jaxpr.txt");
  auto footprint = [&](const std::vector<std::string>& extra) -> std::string {
    std::vector<std::string> args = {MEMPLAN_BINARY, "predict", jaxpr, "--plan", dir.File("dp8.plan.yaml"),
                                     "--format=json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = RunCommand(args, dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const size_t at = r.out.find("\"device_footprint_bytes\": ");
    if (at == std::string::npos) return "";
    return r.out.substr(at, r.out.find_first_of(",\n", at) - at);
  };
  const std::string expected = "\"device_footprint_bytes\": " + std::to_string(dp8->d.device_footprint_bytes);
  EXPECT_EQ(footprint({"--jaxpr-rules=cpu-bf16"}), expected);
  EXPECT_NE(footprint({}), expected);
  const CommandResult bad = RunCommand({MEMPLAN_BINARY, "predict", jaxpr, "--plan", dir.File("dp8.plan.yaml"),
                                        "--jaxpr-rules=cpu-bf16,fold", "-o", dir.File("out.json")},
                                       dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown rule 'fold'"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("fold-dot-transposes"), std::string::npos) << bad.err;
  EXPECT_FALSE(FileExists(dir.File("out.json")));
}

// `memplan predict` on a jaxpr file: plan keys are parameter numbers or the
// jaxpr's own variable names (a jaxpr has no pytree paths). The mlp under
// dp8 shards x (input 8, `k`) and y (input 9, `l`) over dp: XLA's argument
// and output bytes (candidates/dp8.truth.json).
TEST(JaxprPredictCli, PredictsAJaxprFileUnderAPlan) {
  TempDir dir;
  ASSERT_TRUE(WriteFile(dir.File("dp8.plan.yaml"), "mesh: {dp: 8}\narguments:\n  8: [dp, null]\n  l: [dp, null]\n"));
  const std::string jaxpr = SourcePath("samples/sharded/mlp_train_step/jit_mlp_train_step.jaxpr.txt");
  const CommandResult r = RunCommand(
      {MEMPLAN_BINARY, "predict", jaxpr, "--plan", dir.File("dp8.plan.yaml"), "--format=json"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"argument_bytes\": 16928768"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"output_bytes\": 16797772"), std::string::npos) << r.out;
  // A pytree path names nothing in a jaxpr: an error naming the key.
  ASSERT_TRUE(WriteFile(dir.File("named.plan.yaml"), "mesh: {dp: 8}\narguments:\n  x: [dp, null]\n"));
  const CommandResult named =
      RunCommand({MEMPLAN_BINARY, "predict", jaxpr, "--plan", dir.File("named.plan.yaml")}, dir.path());
  EXPECT_EQ(named.exit_code, 2);
  EXPECT_NE(named.err.find("x"), std::string::npos) << named.err;
}

}  // namespace
}  // namespace memplan::test
