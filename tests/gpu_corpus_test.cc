// memplan against XLA's GPU compiler: samples/jax_gpu/<case> holds a real
// H200 compile (JAX 0.11.2, scripts/gpu-validate.sh) with its
// memory_analysis() (truth.json) and cost_analysis() (truth-gpu.json).
//
// - The dump directory (buffer assignment with its HLO text beside) and the
//   HloProto give memory_analysis()'s argument, output, alias and temp
//   bytes to the byte.
// - The HLO text (whose get-tuple-elements XLA prints only as "%x#N") and
//   the HloProto give the same FLOPs, transcendentals and bytes accessed,
//   and both equal cost_analysis() within XLA's float rounding (it sums
//   in 32-bit floats: about 1e-7 relative).
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/memory_stats.h"
#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "parsers/load_program.h"
#include "simulator/hlo_cost.h"
#include "tests/test_util.h"

namespace memplan::simulator {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> GpuCases() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(test::SourcePath("samples/jax_gpu"), ec)) {
    if (e.is_directory() && fs::exists(e.path() / "truth-gpu.json")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

fs::path FileEndingIn(const fs::path& dir, std::string_view suffix) {
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().ends_with(suffix)) return e.path();
  }
  ADD_FAILURE() << "no *" << suffix << " in " << dir;
  return {};
}

llvm::json::Object ReadObject(const fs::path& path, llvm::StringRef key) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(test::ReadFileOrDie(path.string()));
  if (!json) {
    ADD_FAILURE() << path << ": " << llvm::toString(json.takeError());
    return {};
  }
  const llvm::json::Object* object = json->getAsObject()->getObject(key);
  EXPECT_NE(object, nullptr) << path << " has no " << key.str();
  return object ? *object : llvm::json::Object();
}

int64_t Int(const llvm::json::Object& o, llvm::StringRef key) {
  auto v = o.getInteger(key);
  EXPECT_TRUE(v.hasValue()) << key.str();
  return v ? *v : -1;
}

parsers::LoadedProgram Load(const fs::path& path) {
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(path.string(), {});
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return loaded.ok() ? std::move(*loaded) : parsers::LoadedProgram();
}

TEST(GpuCorpus, IsPresent) { EXPECT_EQ(GpuCases().size(), 4u); }

TEST(GpuCorpus, AnalyzeEqualsMemoryAnalysis) {
  for (const fs::path& dir : GpuCases()) {
    SCOPED_TRACE(dir.filename().string());
    const llvm::json::Object truth = ReadObject(dir / "truth.json", "memory_analysis");
    for (const fs::path& input : {dir, FileEndingIn(dir, ".hlo.pb")}) {
      SCOPED_TRACE(input.filename().string());
      const analyzer::MemoryStats stats = analyzer::ComputeMemoryStats(Load(input).program);
      EXPECT_EQ(stats.argument_bytes, Int(truth, "argument_size_in_bytes"));
      EXPECT_EQ(stats.output_bytes, Int(truth, "output_size_in_bytes"));
      EXPECT_EQ(stats.alias_bytes, Int(truth, "alias_size_in_bytes"));
      EXPECT_EQ(stats.temp_bytes, Int(truth, "temp_size_in_bytes"));
      EXPECT_EQ(stats.total_allocation_bytes, Int(truth, "total_allocation_bytes"));
    }
  }
}

TEST(GpuCorpus, TextAndProtoCostAsXlaDoes) {
  int tuple_elements = 0;
  for (const fs::path& dir : GpuCases()) {
    SCOPED_TRACE(dir.filename().string());
    const llvm::json::Object truth = ReadObject(dir / "truth-gpu.json", "cost_analysis");
    const double flops = truth.getNumber("flops").getValueOr(-1);
    const double bytes = truth.getNumber("bytes accessed").getValueOr(-1);
    // The directory reads its buffer assignment with the HLO text beside it.
    const parsers::LoadedProgram text = Load(dir);
    const parsers::LoadedProgram proto = Load(FileEndingIn(dir, ".hlo.pb"));
    ASSERT_GT(text.program.module.instruction_count(), 0u) << "the HLO text beside the dump was not read";
    for (const ir::Instruction& i : text.program.module.instructions()) {
      tuple_elements += i.name.find('#') != std::string_view::npos;
    }
    const HloCost a = HloCostAnalysis(text.program.module).ModuleCost();
    const HloCost b = HloCostAnalysis(proto.program.module).ModuleCost();
    EXPECT_EQ(a.flops, b.flops);
    EXPECT_EQ(a.bytes_accessed, b.bytes_accessed);
    EXPECT_EQ(a.transcendentals, b.transcendentals);
    EXPECT_EQ(a.unknown, 0);
    EXPECT_NEAR(a.flops / flops, 1.0, 1e-5) << "ours " << a.flops << ", XLA " << flops;
    EXPECT_NEAR(a.bytes_accessed / bytes, 1.0, 1e-5) << "ours " << a.bytes_accessed << ", XLA " << bytes;
  }
  // The corpus exercises "%x#N" operands (each case has some).
  EXPECT_GE(tuple_elements, 4);
}

}  // namespace
}  // namespace memplan::simulator
