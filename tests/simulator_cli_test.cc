// `memplan hw` and `memplan calibrate` as a user runs them: exit codes,
// messages naming file:line:col, the preset text printed as it is, the
// calibrated file written atomically and read back by --hw, deterministic
// output.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "simulator/hardware_loader.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using test::CommandResult;

constexpr const char* kA100AllReduce = "samples/nccl-tests/superbench-a100-8gpu-nccl_allreduce.log";
constexpr const char* kH100TwoNodes = "samples/nccl-tests/a3mega-h100-2node-all_reduce.txt";

CommandResult Memplan(std::vector<std::string> args) {
  args.insert(args.begin(), MEMPLAN_BINARY);
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

std::string Describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

TEST(HwCli, ListNamesEveryPreset) {
  const CommandResult r = Memplan({"hw", "list"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const char* line :
       {"\na100   80GiB       2039GB/s    312TFLOP/s          300GB/s           25GB/s          8",
        "\nh100   80GiB       3.35TB/s  989.5TFLOP/s          450GB/s           50GB/s          8"}) {
    EXPECT_TRUE(absl::StrContains(r.out, line)) << r.out;
  }
  EXPECT_TRUE(absl::StrContains(r.out, "\nb200  180GiB")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "\nh200  141GiB")) << r.out;
}

TEST(HwCli, ShowPrintsThePresetFileItself) {
  const CommandResult r = Memplan({"hw", "show", "h100"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, test::ReadFileOrDie(test::SourcePath("simulator/presets/h100.yaml")));
}

TEST(HwCli, ShowOfACopyReadsBackTheSame) {
  // What a user does: copy a preset, edit it, show it.
  test::TempDir dir;
  const CommandResult shown = Memplan({"hw", "show", "b200", "-o", dir.File("mine.yaml")});
  ASSERT_EQ(shown.exit_code, 0) << Describe(shown);
  std::string text = test::ReadFileOrDie(dir.File("mine.yaml"));
  const size_t at = text.find("gpus_per_node: 8");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 16, "gpus_per_node: 4");
  ASSERT_TRUE(test::WriteFile(dir.File("mine.yaml"), text));
  const CommandResult r = Memplan({"hw", "show", dir.File("mine.yaml")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(absl::StrContains(r.out, "node:\n  gpus_per_node: 4\n")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "    fp8: 4.5PFLOP/s\n")) << r.out;
}

TEST(HwCli, BadInputExitsTwo) {
  const CommandResult unknown = Memplan({"hw", "show", "v100"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err,
            "memplan: unknown hardware 'v100': expected a hardware file or one of a100, b200, "
            "h100, h200\n");
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("bad.yaml"), "extends: h100\nlinks:\n  nvlink: {bw: 1}\n"));
  const CommandResult bad = Memplan({"hw", "show", dir.File("bad.yaml")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(bad.err, "bad.yaml:3:12: error: unknown key 'bw' in links.nvlink"))
      << bad.err;
  EXPECT_EQ(Memplan({"hw", "frobnicate"}).exit_code, 2);
}

TEST(CalibrateCli, WritesAFileThatHwReads) {
  test::TempDir dir;
  const CommandResult r =
      Memplan({"calibrate", kA100AllReduce, "--hw", "a100", "-o", dir.File("links.yaml")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(absl::StrContains(r.out, "Calibration of a100 (given) from 1 run")) << r.out;
  absl::StatusOr<simulator::Hardware> hw = simulator::LoadHardware(dir.File("links.yaml"));
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_EQ(hw->name, "a100-calibrated");
  const simulator::AlphaBeta ab =
      hw->ParamsFor(simulator::Link::kNvlink, ir::CollectiveKind::kAllReduce);
  EXPECT_GT(ab.bandwidth, 200e9);
  EXPECT_LT(ab.bandwidth, 300e9);
  const CommandResult shown = Memplan({"hw", "show", dir.File("links.yaml")});
  ASSERT_EQ(shown.exit_code, 0) << Describe(shown);
  EXPECT_TRUE(absl::StrContains(shown.out, "collectives:\n  nvlink:\n    all_reduce: {alpha: "))
      << shown.out;
}

TEST(CalibrateCli, RecognisesTheHardwareAndIsDeterministic) {
  const CommandResult a = Memplan({"calibrate", kH100TwoNodes, "--format=json"});
  ASSERT_EQ(a.exit_code, 0) << Describe(a);
  const CommandResult b = Memplan({"calibrate", kH100TwoNodes, "--format=json"});
  EXPECT_EQ(a.out, b.out);
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(a.out);
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  const llvm::json::Object* o = json->getAsObject();
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->getString("schema"), llvm::Optional<llvm::StringRef>("memplan.calibration.v1"));
  EXPECT_EQ(o->getString("base"), llvm::Optional<llvm::StringRef>("h100"));
  const llvm::json::Array* fits = o->getArray("fits");
  ASSERT_NE(fits, nullptr);
  ASSERT_EQ(fits->size(), 1u);
  const llvm::json::Object* fit = (*fits)[0].getAsObject();
  EXPECT_EQ(fit->getString("link"), llvm::Optional<llvm::StringRef>("network"));
  EXPECT_EQ(fit->getInteger("rows"), llvm::Optional<int64_t>(31));
}

TEST(CalibrateCli, BadInputExitsTwoAndWritesNothing) {
  test::TempDir dir;
  // A 40GB A100 is no preset: the base must be named.
  const CommandResult no_base =
      Memplan({"calibrate", kA100AllReduce, "-o", dir.File("links.yaml")});
  EXPECT_EQ(no_base.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(no_base.err, "cannot tell which hardware the runs measured "
                                             "(devices: \"A100-SXM4-40GB\"); pass --hw"))
      << no_base.err;
  EXPECT_FALSE(test::FileExists(dir.File("links.yaml")));

  // A table that does not say which collective it measured.
  ASSERT_TRUE(test::WriteFile(
      dir.File("table.txt"),
      "#       size         count      type   redop    root     time   algbw   busbw #wrong"
      "     time   algbw   busbw #wrong\n"
      "     1048576        262144     float    none      -1    20.00   52.43   45.88      0"
      "    20.00   52.43   45.88      0\n"));
  const CommandResult unnamed = Memplan({"calibrate", dir.File("table.txt"), "--hw", "h100"});
  EXPECT_EQ(unnamed.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(unnamed.err, "table.txt:1:1: error: expected the name of the "
                                             "collective"))
      << unnamed.err;
  EXPECT_TRUE(absl::StrContains(unnamed.err, "name it with --collective")) << unnamed.err;
  // Named, it reads (8 ranks from busbw/algbw = 7/8), but one size cannot be fitted.
  const CommandResult one_size = Memplan(
      {"calibrate", dir.File("table.txt"), "--hw", "h100", "--collective", "all_gather"});
  EXPECT_EQ(one_size.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(one_size.err, "cannot fit all_gather on nvlink from 1 samples"))
      << one_size.err;

  const CommandResult bad_flag =
      Memplan({"calibrate", kA100AllReduce, "--hw", "a100", "--min-bytes", "lots"});
  EXPECT_EQ(bad_flag.exit_code, 2);
  EXPECT_EQ(bad_flag.err,
            "memplan: --min-bytes=lots: expected a byte count such as 85899345920, 80GiB or "
            "141GB\n");
}

TEST(CostCli, CostsASampleAndSaysWhatItCannotCount) {
  const std::string pb =
      "samples/jax/mlp_train_step/jit_mlp_train_step.cpu_after_optimizations.hlo.pb";
  const CommandResult a = Memplan({"cost", pb, "--format=json", "--top=0"});
  ASSERT_EQ(a.exit_code, 0) << Describe(a);
  EXPECT_EQ(Memplan({"cost", pb, "--format=json", "--top=0"}).out, a.out);  // deterministic
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(a.out);
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  const llvm::json::Object* o = json->getAsObject();
  EXPECT_EQ(o->getString("schema"), llvm::Optional<llvm::StringRef>("memplan.cost.v1"));
  EXPECT_EQ(o->getString("module"), llvm::Optional<llvm::StringRef>("jit_mlp_train_step"));
  const llvm::json::Object* xla = o->getObject("xla");
  ASSERT_NE(xla, nullptr);
  // Every instruction's time is listed (--top=0) and they add up.
  double sum = 0;
  for (const llvm::json::Value& i : *o->getArray("instructions")) {
    sum += *i.getAsObject()->getNumber("seconds");
  }
  EXPECT_NEAR(sum, *o->getNumber("compute_seconds"), 1e-15);
  // Whatever the HloProto reader gives, dots it cannot count are said, not hidden.
  const int64_t unknown = *xla->getInteger("unknown_instructions");
  const CommandResult text = Memplan({"cost", pb});
  ASSERT_EQ(text.exit_code, 0) << Describe(text);
  EXPECT_EQ(absl::StrContains(text.out, "lack what their flops need"), unknown > 0) << text.out;
  EXPECT_TRUE(absl::StrContains(text.out, "Hardware: h100 (efficiency matmul 0.7, vector 0.5, "
                                          "memory 0.8; f32 dots at the tf32 rate)"))
      << text.out;
}

// A GPU dump whose 12 cuDNN custom-calls are timed as convolutions: the
// note says so and the JSON counts them; a dump directory of one module says
// nothing on stderr (it used to print "memplan:  (--module picks another)").
TEST(CostCli, LibraryCallsAreSaidAndOneModuleIsQuiet) {
  const CommandResult text = Memplan({"cost", "samples/jax_gpu/conv_grad", "--hw", "h200"});
  ASSERT_EQ(text.exit_code, 0) << Describe(text);
  EXPECT_EQ(text.err, "");
  EXPECT_TRUE(absl::StrContains(text.out, "12 custom call(s): unknown to XLA's counts (-1 each), 0 in the "
                                          "figures as XLA counts; 12 of them"))
      << text.out;
  const CommandResult json = Memplan({"cost", "samples/jax_gpu/conv_grad", "--hw", "h200", "--format=json"});
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json.out);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object* executed = parsed->getAsObject()->getObject("executed");
  ASSERT_NE(executed, nullptr);
  EXPECT_EQ(executed->getInteger("library_calls"), llvm::Optional<int64_t>(12));
  EXPECT_EQ(parsed->getAsObject()->getObject("xla")->getInteger("custom_calls"), llvm::Optional<int64_t>(12));
}

TEST(CostCli, BadInputExitsTwo) {
  const std::string pb =
      "samples/jax/mlp_train_step/jit_mlp_train_step.cpu_after_optimizations.hlo.pb";
  const CommandResult hw = Memplan({"cost", pb, "--hw", "v100"});
  EXPECT_EQ(hw.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(hw.err, "unknown hardware 'v100'")) << hw.err;
  const CommandResult dots = Memplan({"cost", pb, "--f32-dots", "fp16"});
  EXPECT_EQ(dots.exit_code, 2);
  EXPECT_EQ(dots.err, "memplan: --f32-dots=fp16: expected tf32 or f32\n");
  const CommandResult missing = Memplan({"cost", "/nonexistent.hlo.pb"});
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace memplan
