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
//     itself held to cost_analysis()), except where a loop runs a matmul
//     (XLA counts a while body once, the jaxpr's scan `length` times);
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

// The predicted footprint's largest error allowed per program, in percent
// of XLA's (docs/accuracy.md, "Jaxprs": the measured error, rounded up).
double AllowedFootprintError(const std::string& program) {
  static const std::pair<const char*, double> kBounds[] = {
      {"convnet_train_step", 0}, {"mlp_train_step", 0},         {"moe_train_step", 0},
      {"scan_layers_train_step", 0}, {"transformer_fwd", 0}, {"transformer_train_adam", 0},
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

    const int64_t xla_temp = Int(ma, "temp_size_in_bytes");
    const int64_t xla = Int(ma, "argument_size_in_bytes") + Int(ma, "output_size_in_bytes") -
                        Int(ma, "alias_size_in_bytes") + xla_temp;
    const int64_t ours = l.PredictedFootprint() + tuple_table;
    const double error = 100.0 * static_cast<double>(ours - xla) / static_cast<double>(xla);
    const double temp_error =
        100.0 * static_cast<double>(l.temp_peak_bytes - xla_temp) / static_cast<double>(xla_temp);
    std::printf("| %s | %lld | %lld | %+.2f%% | %lld | %lld | %+.2f%% |\n", program.c_str(),
                static_cast<long long>(xla_temp), static_cast<long long>(l.temp_peak_bytes), temp_error,
                static_cast<long long>(xla), static_cast<long long>(ours), error);
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
    for (const ir::JaxprEqn& e : module->eqns) scans |= e.primitive == "scan";
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
    EXPECT_EQ(ours.matmul, xla);
    ++compared;
  }
  EXPECT_GE(compared, 5);
}

}  // namespace
}  // namespace memplan
