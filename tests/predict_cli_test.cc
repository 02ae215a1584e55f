// `memplan predict` as a user runs it: the JSON keys the issue names, the
// numbers held against the corpus truth, exit 2 and no output file on a bad
// plan, and the same bytes twice.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

constexpr const char* kProgram = "samples/sharded/mlp_train_step";
constexpr const char* kPlan = "samples/sharded/mlp_train_step/candidates/dp8.plan.yaml";
constexpr const char* kTruth = "samples/sharded/mlp_train_step/candidates/dp8.truth.json";

test::CommandResult Memplan(std::vector<std::string> args) {
  args.insert(args.begin(), MEMPLAN_BINARY);
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

TEST(PredictCli, JsonHasTheKeysAndXlasArgumentBytes) {
  const test::CommandResult r = Memplan({"predict", kProgram, "--plan", kPlan, "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(r.out);
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  const llvm::json::Object* o = json->getAsObject();
  ASSERT_NE(o, nullptr);
  for (const char* key : {"mesh", "devices", "max_device_footprint_bytes", "collectives",
                          "unknown_propagation"}) {
    EXPECT_NE(o->get(key), nullptr) << key;
  }
  const llvm::json::Array* devices = o->getArray("devices");
  ASSERT_NE(devices, nullptr);
  ASSERT_EQ(devices->size(), 8u);
  const llvm::json::Object* d0 = (*devices)[0].getAsObject();
  ASSERT_NE(d0, nullptr);
  // XLA's memory_analysis() of the dp8 compile.
  const std::string truth_text = test::ReadFileOrDie(test::SourcePath(kTruth));
  llvm::Expected<llvm::json::Value> truth = llvm::json::parse(truth_text);
  ASSERT_TRUE(static_cast<bool>(truth));
  const llvm::json::Object* memory = truth->getAsObject()->getObject("memory_analysis");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(d0->getInteger("argument_bytes").getValueOr(-1), memory->getInteger("argument_size_in_bytes").getValueOr(-1));
  EXPECT_EQ(d0->getInteger("output_bytes").getValueOr(-1), memory->getInteger("output_size_in_bytes").getValueOr(-1));
  for (const char* key : {"alias_bytes", "temp_bytes", "device_footprint_bytes", "live_peak_bytes"}) {
    EXPECT_TRUE(d0->getInteger(key).hasValue()) << key;
  }
  // One all-reduce over dp combining the gradients (XLA's compile has one).
  const llvm::json::Array* collectives = o->getArray("collectives");
  ASSERT_NE(collectives, nullptr);
  ASSERT_EQ(collectives->size(), 1u);
  const llvm::json::Object* c = (*collectives)[0].getAsObject();
  EXPECT_EQ(c->getString("kind"), llvm::StringRef("all-reduce"));
  EXPECT_EQ(c->getInteger("count").getValueOr(-1), 1);
}

TEST(PredictCli, BadPlanExitsTwoAndWritesNothing) {
  test::TempDir dir;
  const std::string bad = dir.File("bad.yaml");
  // An axis the mesh lacks: the plan parser's located error.
  ASSERT_TRUE(test::WriteFile(bad, "mesh: {dp: 8}\narguments:\n  x: [tp, null]\n"));
  const std::string out = dir.File("out.json");
  const test::CommandResult r = Memplan({"predict", kProgram, "--plan", bad, "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.yaml:3:"), std::string::npos) << r.err;
  EXPECT_FALSE(test::FileExists(out));
  const test::CommandResult missing = Memplan({"predict", kProgram, "--plan", dir.File("none")});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(PredictCli, Deterministic) {
  const test::CommandResult a = Memplan({"predict", kProgram, "--plan", kPlan});
  const test::CommandResult b = Memplan({"predict", kProgram, "--plan", kPlan});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("all-reduce over dp: 1 op"), std::string::npos) << a.out;
}

}  // namespace
}  // namespace memplan
