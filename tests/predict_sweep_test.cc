// `memplan predict --plans/--family`: one table of candidates sorted by
// predicted footprint. The argument bytes of every candidate are held
// against XLA's memory_analysis() of that candidate's 8-device compile
// (samples/sharded/*/candidates/*.truth.json; the corpus plans follow the
// family rules, so family candidates meet the same truth), the order
// against the footprints the table itself prints, and the bad inputs exit 2
// with nothing written.
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

constexpr const char* kProgram = "samples/sharded/mlp_train_step";
constexpr const char* kCandidates = "samples/sharded/mlp_train_step/candidates/";
constexpr const char* kFamilies = "samples/sharded/mlp_train_step/families.yaml";

test::CommandResult Memplan(std::vector<std::string> args) {
  args.insert(args.begin(), MEMPLAN_BINARY);
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

int64_t TruthArgumentBytes(const std::string& candidate) {
  const std::string text =
      test::ReadFileOrDie(test::SourcePath(std::string(kCandidates) + candidate + ".truth.json"));
  llvm::Expected<llvm::json::Value> truth = llvm::json::parse(text);
  if (!truth) return -1;
  const llvm::json::Object* memory = truth->getAsObject()->getObject("memory_analysis");
  return memory ? memory->getInteger("argument_size_in_bytes").getValueOr(-1) : -1;
}

struct Row {
  std::string label;
  int64_t footprint = 0;
  int64_t argument = 0;
  int64_t rank = 0;
};

// The candidates of a memplan.predict_sweep.v1 document, in its order.
std::vector<Row> Rows(const std::string& out) {
  std::vector<Row> rows;
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(out);
  EXPECT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  if (!json) return rows;
  const llvm::json::Object* o = json->getAsObject();
  EXPECT_EQ(o->getString("schema"), llvm::StringRef("memplan.predict_sweep.v1"));
  const llvm::json::Array* candidates = o->getArray("candidates");
  if (candidates == nullptr) return rows;
  for (const llvm::json::Value& v : *candidates) {
    const llvm::json::Object* c = v.getAsObject();
    rows.push_back({c->getString("label").getValueOr("").str(),
                    c->getInteger("max_device_footprint_bytes").getValueOr(-1),
                    c->getInteger("argument_bytes").getValueOr(-1),
                    c->getInteger("rank").getValueOr(-1)});
  }
  return rows;
}

TEST(PredictSweep, PlanFilesSortedByFootprintWithXlasArgumentBytes) {
  const std::vector<std::string> names = {"dp8", "fsdp8", "tp8", "dp4_tp2", "dp2_tp4", "fsdp4_tp2"};
  std::vector<std::string> args = {"predict", kProgram, "--format=json", "--plans"};
  for (const std::string& n : names) args.push_back(std::string(kCandidates) + n + ".plan.yaml");
  const test::CommandResult r = Memplan(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<Row> rows = Rows(r.out);
  ASSERT_EQ(rows.size(), names.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].rank, static_cast<int64_t>(i + 1));
    EXPECT_EQ(rows[i].argument, TruthArgumentBytes(rows[i].label)) << rows[i].label;
    if (i > 0) {
      EXPECT_LE(rows[i - 1].footprint, rows[i].footprint) << rows[i].label;
    }
  }
  // dp8 replicates every parameter: the largest; fsdp8 shards them all.
  EXPECT_EQ(rows.back().label, "dp8");
  EXPECT_EQ(rows.front().label, "fsdp8");
}

TEST(PredictSweep, FamiliesOnMeshesMatchThePlanFiles) {
  const test::CommandResult r =
      Memplan({"predict", kProgram, "--format=json", "--family", "fsdp,dp+tp", "--mesh", "fsdp=8",
               "--mesh", "dp=2,tp=4", "--mesh", "dp=4,tp=2", "--family-inputs", kFamilies});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, Row> by_label;
  for (const Row& row : Rows(r.out)) by_label[row.label] = row;
  ASSERT_EQ(by_label.size(), 3u) << r.out;
  for (const char* label : {"fsdp8", "dp2_tp4", "dp4_tp2"}) {
    ASSERT_TRUE(by_label.count(label)) << label;
    EXPECT_EQ(by_label[label].argument, TruthArgumentBytes(label)) << label;
    // The plan file of the same candidate predicts the same footprint.
    const test::CommandResult one = Memplan(
        {"predict", kProgram, "--format=json", "--plans",
         std::string(kCandidates) + label + ".plan.yaml"});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const std::vector<Row> single = Rows(one.out);
    ASSERT_EQ(single.size(), 1u);
    EXPECT_EQ(single[0].footprint, by_label[label].footprint) << label;
  }
}

TEST(PredictSweep, DevicesEnumerateEveryMeshAndTextFollowsTheOrder) {
  const test::CommandResult r = Memplan({"predict", kProgram, "--family", "dp,dp+tp", "--devices",
                                         "8", "--family-inputs", kFamilies});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // dp8, then dp+tp on 2x4 and 4x2: three rows, each named once.
  size_t last = 0;
  const test::CommandResult j = Memplan({"predict", kProgram, "--family", "dp,dp+tp", "--devices",
                                         "8", "--family-inputs", kFamilies, "--format=json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const std::vector<Row> rows = Rows(j.out);
  ASSERT_EQ(rows.size(), 3u) << j.out;
  for (const Row& row : rows) {
    const size_t at = r.out.find(" " + row.label + " ");
    ASSERT_NE(at, std::string::npos) << row.label << "\n" << r.out;
    EXPECT_GT(at, last) << row.label;
    last = at;
  }
  const test::CommandResult again = Memplan({"predict", kProgram, "--family", "dp,dp+tp",
                                             "--devices", "8", "--family-inputs", kFamilies});
  EXPECT_EQ(again.out, r.out);
}

TEST(PredictSweep, BadInputsExitTwoAndWriteNothing) {
  test::TempDir dir;
  const std::string out = dir.File("out.txt");
  const std::string bad = dir.File("bad.yaml");
  ASSERT_TRUE(test::WriteFile(bad, "mesh: {dp: 8}\narguments:\n  x: [tp, null]\n"));
  const std::string good = std::string(kCandidates) + "dp8.plan.yaml";
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--plans", good, bad}, "bad.yaml:3:"},
      {{"--family", "tp", "--mesh", "dp=8", "--family-inputs", kFamilies}, "no --mesh has"},
      {{"--family", "fsdp"}, "--family needs --mesh"},
      {{"--family", "fsdp", "--mesh", "fsdp=8", "--devices", "8"}, "exclude each other"},
      {{"--family", "tp", "--mesh", "tp=8"}, "--tp-plan"},
      {{"--family", "pp", "--mesh", "pp=8"}, "--family"},
      {{"--plan", good, "--plans", good}, "one or the other"},
      {{"--mesh", "dp=8"}, "expected --family"},
      {{}, "expected --plan"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"predict", kProgram, "-o", out};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const test::CommandResult r = Memplan(args);
    EXPECT_EQ(r.exit_code, 2) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(test::FileExists(out)) << c.says;
  }
}

}  // namespace
}  // namespace memplan
