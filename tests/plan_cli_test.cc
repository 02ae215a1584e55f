// `memplan plan` as a user runs it: the corpus's families.yaml and a dump
// directory give the corpus's plan byte for byte; flags override the
// families file; bad input exits 2 with a located error and no file.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using test::CommandResult;

CommandResult Plan(std::vector<std::string> args) {
  args.insert(args.begin(), {MEMPLAN_BINARY, "plan"});
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

std::string Describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

TEST(PlanCli, FamiliesFileGivesTheCorpusPlan) {
  test::TempDir dir;
  const std::string out = dir.File("p.yaml");
  const CommandResult r = Plan({"samples/sharded/transformer_train_adam", "--family", "fsdp+tp", "--mesh",
                                "fsdp=4,tp=2", "--family-inputs", "samples/sharded/transformer_train_adam/families.yaml",
                                "-o", out});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(test::ReadFileOrDie(out),
            test::ReadFileOrDie(test::SourcePath("samples/sharded/transformer_train_adam/candidates/fsdp4_tp2.plan.yaml")));
}

TEST(PlanCli, FlagsGiveTheCorpusPlan) {
  test::TempDir dir;
  const std::string tp = dir.File("tp.yaml");
  ASSERT_TRUE(test::WriteFile(tp, "{\"params['w_in']\": ColwiseParallel, \"params['w_out']\": rowwise}\n"));
  const CommandResult r = Plan({"samples/sharded/moe_train_step", "--family", "dp+tp", "--mesh", "dp=2,tp=4",
                                "--data", "x,y", "--tp-plan", tp});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, test::ReadFileOrDie(test::SourcePath("samples/sharded/moe_train_step/candidates/dp2_tp4.plan.yaml")));
  const CommandResult ep = Plan({"samples/sharded/moe_train_step", "--family", "dp+ep", "--mesh", "dp=2,ep=4",
                                 "--data", "x,y", "--ep", "params['w_in'],params['w_out']"});
  ASSERT_EQ(ep.exit_code, 0) << Describe(ep);
  EXPECT_EQ(ep.out, test::ReadFileOrDie(test::SourcePath("samples/sharded/moe_train_step/candidates/dp2_ep4.plan.yaml")));
}

TEST(PlanCli, BadInputExitsTwoWithoutAFile) {
  test::TempDir dir;
  const std::string out = dir.File("p.yaml");
  const std::string tp = dir.File("tp.yaml");
  ASSERT_TRUE(test::WriteFile(tp, "\"*w\": colwise\n\"*b\": sideways\n"));
  CommandResult r = Plan({"samples/sharded/mlp_train_step", "--family", "tp", "--mesh", "tp=8", "--tp-plan", tp,
                          "-o", out});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("tp.yaml:2:7: error: unknown tp style 'sideways'"), std::string::npos) << r.err;
  r = Plan({"samples/sharded/mlp_train_step", "--family", "dp+tp", "--mesh", "dp=8", "--data", "x", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("expected exactly dp, tp"), std::string::npos) << r.err;
  r = Plan({"samples/sharded/mlp_train_step", "--family", "dp", "--mesh", "dp=3", "--data", "x", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("does not divide by 3"), std::string::npos) << r.err;
  EXPECT_FALSE(test::FileExists(out));
}

}  // namespace
}  // namespace memplan
