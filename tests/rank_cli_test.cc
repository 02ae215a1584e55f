// `memplan rank` as a user runs it, on samples/sharded/mlp_train_step with
// its families.yaml: nothing fits (exit 1 naming the smallest footprint),
// the winner under a tight and a loose budget, the emitted plan, bad flags
// (exit 2, nothing written), and the same bytes twice.
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

constexpr const char* kProgram = "samples/sharded/mlp_train_step";
constexpr const char* kInputs = "samples/sharded/mlp_train_step/families.yaml";

test::CommandResult Memplan(std::vector<std::string> args) {
  args.insert(args.begin(), MEMPLAN_BINARY);
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

test::CommandResult Rank(std::vector<std::string> extra) {
  std::vector<std::string> args = {"rank", kProgram, "--devices", "8", "--family-inputs", kInputs};
  args.insert(args.end(), extra.begin(), extra.end());
  return Memplan(args);
}

llvm::json::Value Parse(const std::string& text) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(text);
  EXPECT_TRUE(static_cast<bool>(v)) << text;
  return v ? std::move(*v) : llvm::json::Value(nullptr);
}

// label -> footprint of every candidate priced.
std::map<std::string, int64_t> Footprints(const llvm::json::Object& o) {
  std::map<std::string, int64_t> out;
  for (const char* list : {"fitting", "over_budget"}) {
    for (const llvm::json::Value& c : *o.getArray(list)) {
      const llvm::json::Object& co = *c.getAsObject();
      out[co.getString("label")->str()] = *co.getInteger("footprint_bytes");
    }
  }
  return out;
}

TEST(RankCli, LooseBudgetRanksEveryFamilyCandidate) {
  const test::CommandResult r = Rank({"--format=json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const llvm::json::Value v = Parse(r.out);
  const llvm::json::Object& o = *v.getAsObject();
  EXPECT_EQ(o.getString("schema"), llvm::StringRef("memplan.rank.v1"));
  EXPECT_EQ(*o.getInteger("budget_bytes"), int64_t{80} << 30);  // the h100's HBM
  // dp, fsdp, tp: one each; dp+tp and fsdp+tp: 2x4 and 4x2.
  EXPECT_EQ(Footprints(o).size(), 7u);
  EXPECT_EQ(o.getArray("fitting")->size(), 7u);
  // Ranked by step time.
  double last = 0;
  for (const llvm::json::Value& c : *o.getArray("fitting")) {
    const double step = *c.getAsObject()->getNumber("step_seconds");
    EXPECT_GE(step, last);
    last = step;
  }
}

TEST(RankCli, NothingFitsExitsOneNamingTheSmallestFootprint) {
  const test::CommandResult loose = Rank({"--format=json"});
  ASSERT_EQ(loose.exit_code, 0) << loose.err;
  const llvm::json::Value v = Parse(loose.out);
  std::string smallest;
  int64_t bytes = -1;
  for (const auto& [label, footprint] : Footprints(*v.getAsObject())) {
    if (bytes < 0 || footprint < bytes) {
      smallest = label;
      bytes = footprint;
    }
  }
  test::TempDir dir;
  const std::string plan = dir.File("chosen.plan.yaml");
  const test::CommandResult r = Rank({"--budget", std::to_string(bytes - 1), "--emit-plan", plan});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("smallest footprint found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(" + smallest + ", "), std::string::npos) << r.err;
  std::string grouped = std::to_string(bytes);
  for (int i = static_cast<int>(grouped.size()) - 3; i > 0; i -= 3) grouped.insert(i, ",");
  EXPECT_NE(r.err.find(grouped + " bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Over the budget (7)"), std::string::npos) << r.out;
  EXPECT_FALSE(test::FileExists(plan));  // no winner, no plan
  // Exactly at that footprint, the smallest candidate fits.
  const test::CommandResult at = Rank({"--budget", std::to_string(bytes), "--format=json"});
  ASSERT_EQ(at.exit_code, 0) << at.err;
  const llvm::json::Value a = Parse(at.out);
  EXPECT_EQ(a.getAsObject()->getString("chosen"), llvm::StringRef(smallest));
}

// Data parallel against FSDP on 8 GPUs of one node. The MLP's parameters
// (16.8 MB) are small: its collectives are latency-bound. dp8 all-reduces
// every gradient in one combined operation (XLA's compile has one too);
// fsdp8 gathers and reduces in 5 operations, as XLA's compile does (2
// all-gathers and 3 all-reduces), each paying the NVLink latency, so dp8's
// step is shorter. But dp8 keeps every parameter, gradient and update whole on
// each device, and XLA's own compiles say so: dp8's argument and output
// bytes are 7.5 and 8 times fsdp8's. A loose budget lets dp8 win; a budget between the
// two footprints (16 MiB) leaves fsdp8.
TEST(RankCli, TightBudgetMakesFsdpWinLooseLetsDataParallelWin) {
  const test::CommandResult loose = Rank({"--families", "dp,fsdp", "--format=json"});
  ASSERT_EQ(loose.exit_code, 0) << loose.err;
  const llvm::json::Value l = Parse(loose.out);
  EXPECT_EQ(l.getAsObject()->getString("chosen"), llvm::StringRef("dp8"));
  const auto f = Footprints(*l.getAsObject());
  ASSERT_TRUE(f.count("dp8") && f.count("fsdp8"));
  EXPECT_GT(f.at("dp8"), int64_t{16} << 20);
  EXPECT_LT(f.at("fsdp8"), int64_t{16} << 20);
  const test::CommandResult tight = Rank({"--families", "dp,fsdp", "--budget", "16MiB", "--format=json"});
  ASSERT_EQ(tight.exit_code, 0) << tight.err;
  const llvm::json::Value t = Parse(tight.out);
  EXPECT_EQ(t.getAsObject()->getString("chosen"), llvm::StringRef("fsdp8"));
  ASSERT_EQ(t.getAsObject()->getArray("over_budget")->size(), 1u);
  // What drives it: one combined all-reduce against several operations.
  for (const llvm::json::Value& c : *l.getAsObject()->getArray("fitting")) {
    const llvm::json::Object& o = *c.getAsObject();
    double operations = 0;
    for (const llvm::json::Value& k : *o.getArray("collectives")) {
      operations += *k.getAsObject()->getNumber("operations");
    }
    EXPECT_EQ(operations, o.getString("label") == llvm::StringRef("dp8") ? 1.0 : 5.0);
  }
}

TEST(RankCli, EmittedPlanIsThePlanCommandsAndPredicts) {
  test::TempDir dir;
  const std::string plan = dir.File("chosen.plan.yaml");
  const test::CommandResult r = Rank({"--families", "fsdp", "--emit-plan", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Chosen: fsdp8"), std::string::npos) << r.out;
  // The same file `memplan plan` writes for that family and mesh.
  const test::CommandResult p = Memplan(
      {"plan", kProgram, "--family", "fsdp", "--mesh", "fsdp=8", "--family-inputs", kInputs});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(test::ReadFileOrDie(plan), p.out);
  EXPECT_EQ(Memplan({"predict", kProgram, "--plan", plan}).exit_code, 0);
}

TEST(RankCli, PlanFilesAreCandidates) {
  const test::CommandResult r =
      Rank({"--format=json", "--plans", std::string(kProgram) + "/candidates/tp8.plan.yaml",
            std::string(kProgram) + "/candidates/dp8.plan.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const llvm::json::Value v = Parse(r.out);
  const auto f = Footprints(*v.getAsObject());
  EXPECT_EQ(f.size(), 2u);  // --plans without --families: the files only
  EXPECT_TRUE(f.count("tp8") && f.count("dp8"));
}

TEST(RankCli, BadFlagsExitTwoAndWriteNothing) {
  test::TempDir dir;
  const std::string out = dir.File("out.txt");
  EXPECT_EQ(Rank({"--budget", "eighty", "-o", out}).exit_code, 2);
  EXPECT_EQ(Rank({"--overlap", "some", "-o", out}).exit_code, 2);
  EXPECT_EQ(Rank({"--nodes", "3", "-o", out}).exit_code, 2);
  const test::CommandResult no_tp =
      Memplan({"rank", kProgram, "--devices", "8", "--data", "x,y", "--families", "tp", "-o", out});
  EXPECT_EQ(no_tp.exit_code, 2);
  EXPECT_NE(no_tp.err.find("--tp-plan"), std::string::npos) << no_tp.err;
  EXPECT_FALSE(test::FileExists(out));
}

TEST(RankCli, SameBytesTwice) {
  for (const char* format : {"--format=text", "--format=json"}) {
    const test::CommandResult a = Rank({format, "--nodes", "2"});
    const test::CommandResult b = Rank({format, "--nodes", "2"});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(a.out, b.out);
  }
}

}  // namespace
}  // namespace memplan
