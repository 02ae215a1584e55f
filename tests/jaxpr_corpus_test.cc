// Jaxprs against the compiler: samples/sharded/<program>/ holds each
// program's jaxpr (jax.make_jaxpr, JAX 0.10.2) beside what XLA reported for
// its single-device compile (truth.json: memory_analysis, the arguments and
// which were donated). From the jaxpr alone:
//   - argument bytes equal memory_analysis' argument_size_in_bytes;
//   - output bytes plus XLA's output tuple table (8 bytes per element when
//     the result is a tuple of more than one) equal output_size_in_bytes;
//   - the donated inputs paired with outputs equal alias_size_in_bytes;
//   - matmul flops (dot_general, conv_general_dilated) equal the dots' and
//     convolutions' flops of XLA's optimized module (simulator/hlo_cost.h,
//     itself held to cost_analysis()), less the dots XLA's algebraic
//     simplifier turns into multiplies (no contracting dimension: an outer
//     product; no free dimension on either side: a batched inner product,
//     multiply + reduce), and except where a loop runs a matmul (XLA counts
//     a while body once, the jaxpr's scan `length` times);
//   - the predicted footprint (argument + output - aliased + the jaxpr's
//     temporaries' peak) is held to the error docs/accuracy.md states.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/jaxpr_flops.h"
#include "analyzer/jaxpr_liveness.h"
#include "analyzer/jaxpr_schedule.h"
#include "gtest/gtest.h"
#include "ir/jaxpr_lowering.h"
#include "llvm/Support/JSON.h"
#include "parsers/jaxpr_parser.h"
#include "parsers/load_program.h"
#include "simulator/hlo_cost.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Programs() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(test::SourcePath("samples/sharded"), ec)) {
    if (e.is_directory() && fs::exists(e.path() / "truth.json")) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

int64_t Int(const llvm::json::Object& o, llvm::StringRef key) {
  const auto v = o.getInteger(key);
  return v ? *v : -1;
}

std::string Grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

// The predicted footprint's largest error allowed per program, in percent
// of XLA's (docs/accuracy.md, "Jaxprs": the measured error, rounded up to
// the next whole percent), so that a change that makes a prediction worse
// fails here.
double AllowedFootprintError(const std::string& program) {
  static const std::pair<const char*, double> kBounds[] = {
      {"convnet_train_step", 14}, {"mlp_train_step", 3},    {"moe_train_step", 10},
      {"scan_layers_train_step", 8}, {"transformer_fwd", 40}, {"transformer_train_adam", 14},
  };
  for (const auto& [name, bound] : kBounds) {
    if (program == name) return bound;
  }
  return 0;
}

TEST(JaxprCorpus, BytesMatchMemoryAnalysis) {
  const std::vector<std::string> programs = Programs();
  if (programs.empty()) GTEST_SKIP() << "samples/sharded/ is absent";
  for (const std::string& dir : programs) {
    const std::string program = fs::path(dir).filename().string();
    SCOPED_TRACE(program);
    llvm::Expected<llvm::json::Value> truth = llvm::json::parse(test::ReadFileOrDie(dir + "/truth.json"));
    ASSERT_TRUE(static_cast<bool>(truth)) << llvm::toString(truth.takeError());
    const llvm::json::Object& t = *truth->getAsObject();
    const llvm::json::Object& ma = *t.getObject("memory_analysis");
    const std::string jaxpr_file = dir + "/" + t.getString("jaxpr_file")->str();
    auto source = parsers::SourceText::FromString(jaxpr_file, test::ReadFileOrDie(jaxpr_file));
    absl::StatusOr<ir::JaxprModule> module = parsers::ParseJaxpr(*source);
    ASSERT_TRUE(module.ok()) << module.status();

    // Donated: the arguments whose top-level name JAX was told to donate.
    std::vector<std::string> donated_tops;
    for (const llvm::json::Value& v : *t.getArray("donated_arguments")) donated_tops.push_back(v.getAsString()->str());
    analyzer::JaxprScheduleOptions options;
    for (const llvm::json::Value& v : *t.getArray("arguments")) {
      const std::string top = v.getAsObject()->getString("top")->str();
      options.donated.push_back(std::find(donated_tops.begin(), donated_tops.end(), top) != donated_tops.end());
    }
    const ir::Jaxpr& top = module->jaxpr(module->top);
    ASSERT_EQ(top.invars.size(), options.donated.size());
    absl::StatusOr<analyzer::JaxprSchedule> schedule = analyzer::ScheduleJaxpr(*module, options);
    ASSERT_TRUE(schedule.ok()) << schedule.status();
    const analyzer::JaxprLiveness l = analyzer::ComputeJaxprLiveness(*module, *schedule);

    EXPECT_EQ(l.argument_bytes, Int(ma, "argument_size_in_bytes"));
    const int64_t outputs = static_cast<int64_t>(top.outvars.size());
    const int64_t tuple_table = outputs > 1 ? 8 * outputs : 0;
    EXPECT_EQ(l.output_bytes + tuple_table, Int(ma, "output_size_in_bytes"));
    EXPECT_EQ(l.aliased_bytes, Int(ma, "alias_size_in_bytes"));

    // The predicted temp (every value owning memory, output memory reused
    // before the outputs are written) against XLA's temp, and the footprint.
    const int64_t xla_temp = Int(ma, "temp_size_in_bytes");
    const int64_t xla = Int(ma, "argument_size_in_bytes") + Int(ma, "output_size_in_bytes") -
                        Int(ma, "alias_size_in_bytes") + xla_temp;
    const int64_t ours = l.PredictedFootprint() + tuple_table;
    const double error = 100.0 * static_cast<double>(ours - xla) / static_cast<double>(xla);
    const double temp_error =
        100.0 * static_cast<double>(l.arena_peak_bytes - xla_temp) / static_cast<double>(xla_temp);
    // The table in docs/accuracy.md ("Jaxprs"), printed for regeneration.
    std::printf("| %s | %s | %s | %+.2f%% | %s | %s | %+.2f%% | %s |\n", program.c_str(), Grouped(xla_temp).c_str(),
                Grouped(l.arena_peak_bytes).c_str(), temp_error, Grouped(xla).c_str(), Grouped(ours).c_str(), error,
                Grouped(l.temp_peak_bytes).c_str());
    EXPECT_LE(std::abs(error), AllowedFootprintError(program));
  }
}

TEST(JaxprCorpus, MatmulFlopsMatchTheOptimizedModule) {
  const std::vector<std::string> programs = Programs();
  if (programs.empty()) GTEST_SKIP() << "samples/sharded/ is absent";
  int compared = 0;
  for (const std::string& dir : programs) {
    const std::string program = fs::path(dir).filename().string();
    SCOPED_TRACE(program);
    llvm::Expected<llvm::json::Value> truth = llvm::json::parse(test::ReadFileOrDie(dir + "/truth.json"));
    ASSERT_TRUE(static_cast<bool>(truth));
    const llvm::json::Object& t = *truth->getAsObject();
    const std::string jaxpr_file = dir + "/" + t.getString("jaxpr_file")->str();
    auto source = parsers::SourceText::FromString(jaxpr_file, test::ReadFileOrDie(jaxpr_file));
    absl::StatusOr<ir::JaxprModule> module = parsers::ParseJaxpr(*source);
    ASSERT_TRUE(module.ok()) << module.status();
    const analyzer::JaxprFlops ours = analyzer::CountJaxprFlops(*module, module->top);
    EXPECT_EQ(ours.while_loops, 0);
    bool scans = false;
    double rewritten = 0;  // flops of dots XLA makes multiplies
    for (const ir::JaxprEqn& e : module->eqns) {
      scans |= e.primitive == "scan";
      const std::optional<ir::DotDimensionNumbers> d = ir::DotGeneralDimensions(e);
      if (e.primitive != "dot_general" || !d) continue;
      auto rank = [&](size_t i) { return module->var(e.invars[i].var).aval.dims.size(); };
      const bool outer = d->lhs_contracting.empty();
      const bool inner = rank(0) == d->lhs_contracting.size() + d->lhs_batch.size() &&
                         rank(1) == d->rhs_contracting.size() + d->rhs_batch.size();
      if (outer || inner) rewritten += analyzer::EquationFlops(*module, e).matmul;
    }
    if (scans) continue;  // XLA counts a while body once
    const std::string hlo = dir + "/" + t.getString("module_name")->str() + ".cpu_after_optimizations.txt";
    absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(hlo, {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const ir::Module& m = loaded->program.module;
    const simulator::HloCostAnalysis cost(m);
    double xla = 0;
    for (const ir::Instruction& i : m.instructions()) {
      if (i.opcode == ir::Opcode::kDot || i.opcode == ir::Opcode::kConvolution) xla += cost.Cost(i.id).flops;
    }
    EXPECT_EQ(ours.matmul - rewritten, xla) << std::fixed << ours.matmul - xla;
    ++compared;
  }
  EXPECT_GE(compared, 5);
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// Matmul flops of jaxpr `j` as lowered, from the jaxpr's own count
// (analyzer::EquationFlops): every call site of a callee counted (calls are
// inlined), a loop's body and condition once (XLA counts a while's body
// once), every branch of a cond, and no equation whose outputs are all
// dropped (XLA removes dead code). `dots` counts the dot and convolution
// equations so reached.
double LoweredMatmulFlops(const ir::JaxprModule& m, ir::JaxprId j, int64_t* dots) {
  double flops = 0;
  for (ir::JaxprEqnId id : m.jaxpr(j).eqns) {
    const ir::JaxprEqn& e = m.eqn(id);
    bool dropped = !e.outvars.empty();
    for (ir::JaxprVarId v : e.outvars) dropped &= m.var(v).kind == ir::JaxprVar::Kind::kDrop;
    if (dropped) continue;
    if (e.primitive == "dot_general" || e.primitive == "conv_general_dilated") {
      flops += analyzer::EquationFlops(m, e).matmul;
      ++*dots;
    }
    bool callee_done = false;
    for (const ir::JaxprEqn::Called& k : e.called) {
      const bool region = e.primitive == "scan" || e.primitive == "while" || e.primitive == "cond";
      if (!region && callee_done) continue;
      flops += LoweredMatmulFlops(m, k.jaxpr, dots);
      callee_done = true;
    }
  }
  return flops;
}

// Each corpus jaxpr lowered into the module graph: one dot or convolution
// per dot_general / conv_general_dilated as lowered (calls inlined per call
// site), and the simulator's cost model over that graph counts the same
// matmul flops as the jaxpr's own count.
TEST(JaxprLowering, TheSimulatorCostsALoweredJaxpr) {
  const std::vector<std::string> programs = Programs();
  if (programs.empty()) GTEST_SKIP() << "samples/sharded/ is absent";
  for (const std::string& dir : programs) {
    const std::string program = fs::path(dir).filename().string();
    SCOPED_TRACE(program);
    llvm::Expected<llvm::json::Value> truth = llvm::json::parse(test::ReadFileOrDie(dir + "/truth.json"));
    ASSERT_TRUE(static_cast<bool>(truth));
    const std::string jaxpr_file = dir + "/" + truth->getAsObject()->getString("jaxpr_file")->str();
    auto source = parsers::SourceText::FromString(jaxpr_file, test::ReadFileOrDie(jaxpr_file));
    absl::StatusOr<ir::JaxprModule> jaxpr = parsers::ParseJaxpr(*source);
    ASSERT_TRUE(jaxpr.ok()) << jaxpr.status();
    absl::StatusOr<ir::Module> module = ir::LowerJaxpr(*jaxpr);
    ASSERT_TRUE(module.ok()) << module.status();
    int64_t dots = 0, expected_dots = 0;
    for (const ir::Instruction& i : module->instructions()) {
      dots += i.opcode == ir::Opcode::kDot || i.opcode == ir::Opcode::kConvolution;
    }
    const double expected = LoweredMatmulFlops(*jaxpr, jaxpr->top, &expected_dots);
    EXPECT_EQ(dots, expected_dots);
    ASSERT_NE(module->entry_computation(), nullptr);
    EXPECT_EQ(module->entry_computation()->parameters.size(), jaxpr->jaxpr(jaxpr->top).invars.size());
    const simulator::HloCostAnalysis cost(*module);
    double matmul = 0;
    for (const ir::Instruction& i : module->instructions()) {
      if (i.opcode == ir::Opcode::kDot || i.opcode == ir::Opcode::kConvolution) matmul += cost.Cost(i.id).flops;
    }
    EXPECT_EQ(matmul, expected);
    EXPECT_GT(cost.ModuleCost().flops, 0);
  }
}

}  // namespace
}  // namespace memplan
