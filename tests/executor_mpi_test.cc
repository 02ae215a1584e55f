// `memplan validate` and `memplan bench-collectives` as a user runs them:
// under mpirun with 2 and 4 host ranks (measured peak equals planned peak,
// collectives correct, a plan that does not fit refused, a failing rank
// fails the run and every rank reports), alone without mpirun, and the CUDA
// backend's clear error where there is no GPU.
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

// JSON members as std::optional (LLVM 14 returns llvm::Optional, which
// gtest cannot compare).
std::optional<int64_t> Int(const llvm::json::Object& o, llvm::StringRef key) {
  const auto v = o.getInteger(key);
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}
std::optional<std::string> Str(const llvm::json::Object& o, llvm::StringRef key) {
  const auto v = o.getString(key);
  return v ? std::optional<std::string>(v->str()) : std::nullopt;
}
std::optional<bool> Bool(const llvm::json::Object& o, llvm::StringRef key) {
  const auto v = o.getBoolean(key);
  return v ? std::optional<bool>(*v) : std::nullopt;
}

using test::CommandResult;

std::string Describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.signal) + "\nstdout: " + r.out +
         "\nstderr: " + r.err;
}

// `ranks` processes of memplan under mpirun (several per core: the tests
// run on small machines).
CommandResult MpiMemplan(int ranks, std::vector<std::string> args) {
  if (geteuid() == 0) {
    // Open MPI refuses root unless told twice; CI containers run as root.
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  // Open MPI makes its session directory under TMPDIR (/tmp/ompi.HOST.UID
  // by default), and two mpiruns starting at once race on that mkdir ("File
  // exists", orte_init fails): ctest runs these tests in parallel, so each
  // test process gets a directory of its own.
  static const test::TempDir session_base;
  setenv("TMPDIR", session_base.path().c_str(), 1);
  std::vector<std::string> argv = {MEMPLAN_MPIEXEC, "-np", std::to_string(ranks)};
  for (const char* flag : {MEMPLAN_MPIEXEC_PREFLAGS}) {
    if (flag[0] != '\0') argv.push_back(flag);
  }
  argv.push_back(MEMPLAN_BINARY);
  argv.insert(argv.end(), args.begin(), args.end());
  return test::RunCommand(argv, MEMPLAN_SOURCE_DIR);
}

CommandResult Memplan(std::vector<std::string> args) {
  args.insert(args.begin(), MEMPLAN_BINARY);
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

llvm::json::Value ParseJson(const std::string& text) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    ADD_FAILURE() << llvm::toString(parsed.takeError()) << "\n" << text;
    return llvm::json::Value(nullptr);
  }
  return std::move(*parsed);
}

// A plan for `n` ranks: every collective kind on all ranks, an all-reduce
// on pairs of neighbours (two disjoint groups at once), and a GEMM, all on
// the plan's buffers, so the replay needs no scratch. Each rank holds
//   b1: 4 KiB, steps 0..3;  b2: 16 KiB, steps 1..2;  b3: 1 KiB, steps 3..4
// so its pool peak is 20 KiB (steps 1 and 2).
std::string Plan(int n) {
  std::string ranks;
  for (int r = 0; r < n; ++r) {
    std::string all = "[";
    for (int i = 0; i < n; ++i) all += (i ? "," : "") + std::to_string(i);
    all += "]";
    const int pair_first = r - r % 2;
    const std::string pair = "[" + std::to_string(pair_first) + "," + std::to_string(pair_first + 1) + "]";
    ranks += std::string(r ? ",\n" : "") + "{\"rank\": " + std::to_string(r) +
             ", \"buffers\": ["
             "{\"id\": 1, \"bytes\": 4096, \"start\": 0, \"end\": 3},"
             "{\"id\": 2, \"bytes\": 16384, \"start\": 1, \"end\": 2},"
             "{\"id\": 3, \"bytes\": 1024, \"start\": 3, \"end\": 4}],"
             " \"ops\": ["
             "{\"step\": 0, \"kind\": \"all_reduce\", \"bytes\": 4096, \"dtype\": \"f32\", \"group\": " + all +
             ", \"input\": 1, \"output\": 1, \"predicted_seconds\": 0.0001},"
             "{\"step\": 1, \"kind\": \"all_gather\", \"bytes\": 4096, \"dtype\": \"bf16\", \"group\": " + all +
             ", \"input\": 2, \"output\": 1},"
             "{\"step\": 1, \"kind\": \"reduce_scatter\", \"bytes\": 16384, \"dtype\": \"f32\", \"group\": " + all +
             ", \"input\": 2, \"output\": 2},"
             "{\"step\": 2, \"kind\": \"all_to_all\", \"bytes\": 4096, \"dtype\": \"s32\", \"group\": " + all +
             ", \"input\": 1, \"output\": 2},"
             "{\"step\": 2, \"kind\": \"send_recv\", \"bytes\": 4096, \"dtype\": \"u8\", \"group\": " + all +
             ", \"input\": 2, \"output\": 1},"
             "{\"step\": 2, \"kind\": \"all_reduce\", \"bytes\": 8192, \"dtype\": \"f16\", \"group\": " + pair +
             ", \"input\": 2, \"output\": 2},"
             "{\"step\": 3, \"kind\": \"gemm\", \"m\": 16, \"n\": 16, \"k\": 16, \"dtype\": \"bf16\", "
             "\"out_dtype\": \"f32\", \"a\": 1, \"b\": 1, \"c\": 3}]}";
  }
  return "{\"schema\": \"memplan.executor-plan.v1\", \"name\": \"every collective\", \"ranks\": [\n" + ranks + "]}\n";
}

class MpiValidate : public testing::TestWithParam<int> {};

TEST_P(MpiValidate, MeasuredPeakIsPlannedAndCollectivesAreRight) {
  const int n = GetParam();
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("plan.json"), Plan(n)));
  const CommandResult r = MpiMemplan(n, {"validate", dir.File("plan.json"), "--backend=host", "--mode=pool",
                                         "--format=json", "--timeout=30"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const llvm::json::Value json = ParseJson(r.out);
  ASSERT_NE(json.getAsObject(), nullptr);
  const llvm::json::Object& root = *json.getAsObject();
  EXPECT_EQ(Bool(root, "ok"), true);
  EXPECT_EQ(Int(root, "wrong"), 0);
  const llvm::json::Array& ranks = *root.getArray("ranks");
  ASSERT_EQ(ranks.size(), static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    const llvm::json::Object& rank = *ranks[r].getAsObject();
    EXPECT_EQ(Int(rank, "rank"), r);
    EXPECT_EQ(Str(rank, "outcome"), "ok");
    EXPECT_EQ(Int(rank, "planned_peak_bytes"), 20480);
    EXPECT_EQ(Int(rank, "measured_peak_bytes"), 20480) << "rank " << r;
    EXPECT_EQ(Int(rank, "scratch_peak_bytes"), 0);
    const llvm::json::Array& collectives = *rank.getArray("collectives");
    ASSERT_EQ(collectives.size(), 6u);
    for (const llvm::json::Value& c : collectives) {
      EXPECT_EQ(Int(*c.getAsObject(), "wrong"), 0) << "rank " << r;
      EXPECT_GT(*c.getAsObject()->getNumber("time_us"), 0.0);
    }
    EXPECT_EQ(Int((*collectives[5].getAsObject()), "ranks"), 2);
    EXPECT_EQ(rank.getArray("gemms")->size(), 1u);
  }
}

TEST_P(MpiValidate, RefusesAPlanThatDoesNotFit) {
  const int n = GetParam();
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("plan.json"), Plan(n)));
  const CommandResult r = MpiMemplan(n, {"validate", dir.File("plan.json"), "--backend=host", "--mode=pool",
                                         "--device-memory=20479", "--format=json", "-o", dir.File("out.json")});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("rank 0: does not fit: the replay needs 20.00 KiB (20,480 B)"), std::string::npos)
      << r.err;
  const llvm::json::Value json = ParseJson(test::ReadFileOrDie(dir.File("out.json")));
  ASSERT_NE(json.getAsObject(), nullptr);
  for (const llvm::json::Value& rank : *json.getAsObject()->getArray("ranks")) {
    EXPECT_EQ(Str(*rank.getAsObject(), "outcome"), "does_not_fit");
    EXPECT_EQ(Int(*rank.getAsObject(), "measured_peak_bytes"), 0);
  }
}

TEST_P(MpiValidate, AFailingRankFailsTheRunAndEveryRankReports) {
  const int n = GetParam();
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("plan.json"), Plan(n)));
  const auto start = std::chrono::steady_clock::now();
  // The last rank stops at step 2; the others wait for it in that step's
  // all-to-all until the 3 s timeout.
  const CommandResult r =
      MpiMemplan(n, {"validate", dir.File("plan.json"), "--backend=host", "--format=json", "-o", dir.File("out.json"),
                     "--timeout=3", "--inject-failure=" + std::to_string(n - 1) + ":2"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_LT(seconds, 30.0);
  EXPECT_NE(r.err.find("rank " + std::to_string(n - 1) + ": failed at step 2: failure injected"), std::string::npos)
      << r.err;
  const llvm::json::Value json = ParseJson(test::ReadFileOrDie(dir.File("out.json")));
  ASSERT_NE(json.getAsObject(), nullptr);
  const llvm::json::Array& ranks = *json.getAsObject()->getArray("ranks");
  ASSERT_EQ(ranks.size(), static_cast<size_t>(n));
  for (int rank = 0; rank < n - 1; ++rank) {
    EXPECT_EQ(Str(*ranks[rank].getAsObject(), "outcome"), "timed_out") << "rank " << rank;
  }
  EXPECT_EQ(Str(*ranks[n - 1].getAsObject(), "outcome"), "failed");
  EXPECT_EQ(Bool(*json.getAsObject(), "ok"), false);
}

INSTANTIATE_TEST_SUITE_P(Ranks, MpiValidate, testing::Values(2, 4),
                         [](const testing::TestParamInfo<int>& info) { return "np" + std::to_string(info.param); });

TEST(MpiValidate, APlanForOtherRanksIsAnError) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("plan.json"), Plan(2)));
  const CommandResult r = MpiMemplan(4, {"validate", dir.File("plan.json"), "--backend=host"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("memplan: the plan has 2 ranks but 4 processes were started"), std::string::npos) << r.err;
}

TEST(MpiBench, SweepsEveryCollectiveOnFourRanks) {
  const CommandResult r = MpiMemplan(4, {"bench-collectives", "--backend=host", "--min-bytes=64", "--max-bytes=64KiB",
                                         "--factor=8", "--iters=3", "--warmup=1", "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const llvm::json::Value json = ParseJson(r.out);
  ASSERT_NE(json.getAsObject(), nullptr);
  const llvm::json::Object& root = *json.getAsObject();
  EXPECT_EQ(Str(root, "schema"), "memplan.collectives.v1");
  EXPECT_EQ(Str(root, "backend"), "host");
  EXPECT_EQ(Int(root, "ranks"), 4);
  std::vector<std::string> seen;
  for (const llvm::json::Value& value : *root.getArray("results")) {
    const llvm::json::Object& row = *value.getAsObject();
    const std::string kind = row.getString("collective")->str();
    if (seen.empty() || seen.back() != kind) seen.push_back(kind);
    EXPECT_EQ(Int(row, "wrong"), 0) << kind;
    EXPECT_EQ(Str(row, "dtype"), "float");
    EXPECT_EQ(*row.getInteger("count") * 4, *row.getInteger("bytes"));
    const double factor = kind == "all_reduce" ? 1.5 : 0.75;  // 2(n-1)/n and (n-1)/n for n = 4
    EXPECT_NEAR(*row.getNumber("busbw_gbps"), *row.getNumber("algbw_gbps") * factor, 1e-12);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}));
}

TEST(SingleRank, ValidatesADumpWithoutMpirun) {
  const CommandResult r = Memplan({"validate", "samples/jax/mlp_train_step", "--backend=host", "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const llvm::json::Value json = ParseJson(r.out);
  ASSERT_NE(json.getAsObject(), nullptr);
  const llvm::json::Object& rank = *(*json.getAsObject()->getArray("ranks"))[0].getAsObject();
  EXPECT_EQ(Str(rank, "mode"), "arena");
  // The arena is the dump's "Total bytes used".
  EXPECT_EQ(Int(rank, "planned_peak_bytes"), 4203636);
  EXPECT_EQ(Int(rank, "measured_peak_bytes"), 4203636);
}

TEST(SingleRank, ValidationAsAnHtmlPage) {
  const CommandResult r = Memplan({"validate", "samples/jax/mlp_train_step", "--backend=host", "--format=html"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u) << r.out.substr(0, 200);
  EXPECT_NE(r.out.find("id=\"validate\""), std::string::npos);
  // The rank's planned and measured peaks, as the JSON states them (4203636 B).
  EXPECT_NE(r.out.find("4.01 MiB"), std::string::npos);
  EXPECT_NE(r.out.find(">0.00%<"), std::string::npos);
  EXPECT_EQ(r.out.find("<script src"), std::string::npos);
  // bench-collectives has no HTML view: a usage error, not text in disguise.
  const CommandResult b = Memplan({"bench-collectives", "--backend=host", "--format=html"});
  EXPECT_EQ(b.exit_code, 2) << Describe(b);
}

TEST(SingleRank, BenchesWithoutMpirun) {
  const CommandResult r = Memplan({"bench-collectives", "--backend=host", "--max-bytes=1KiB", "--iters=2"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("# Collective: all_to_all"), std::string::npos) << r.out;
}

TEST(SingleRank, BadPlansAreLocatedAndLeaveNoOutput) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("bad.json"),
                              "{\"schema\": \"memplan.executor-plan.v1\",\n \"ranks\": [{\"rank\": \"zero\"}]}\n"));
  const CommandResult r = Memplan({"validate", dir.File("bad.json"), "--backend=host", "-o", dir.File("out.txt")});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("bad.json:2:21: error: expected an integer from 0 to"), std::string::npos) << r.err;
  EXPECT_FALSE(test::FileExists(dir.File("out.txt")));
}

TEST(CudaBackend, NoGpuIsAClearErrorNotACrash) {
  if (access("/dev/nvidiactl", F_OK) == 0) GTEST_SKIP() << "this machine has an NVIDIA driver";
  for (const char* command : {"validate", "bench-collectives"}) {
    std::vector<std::string> args = {command};
    if (std::string(command) == "validate") args.push_back("samples/jax/mlp_train_step");
    args.push_back("--backend=cuda");
    const CommandResult r = Memplan(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_EQ(r.signal, 0);
    // Either this build has no CUDA backend, or it finds no GPU or driver.
    EXPECT_TRUE(r.err.find("CUDA") != std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace memplan
