// The collective-measurement parsers (parsers/collective_measurements_parser.h)
// on the published nccl-tests outputs in samples/nccl-tests/ (values read off
// the files by hand) and on inline inputs for each layout and each error.
#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "ir/collective.h"
#include "ir/collective_measurements.h"
#include "parsers/collective_measurements_parser.h"
#include "ir/strings.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using ir::CollectiveKind;
using parsers::CollectiveParseOptions;

absl::StatusOr<ir::CollectiveMeasurements> ParseInline(std::string_view text,
                                                       CollectiveParseOptions options = {},
                                                       std::string name = "t.txt") {
  auto source = parsers::SourceText::FromString(std::move(name), text);
  return parsers::ParseCollectiveMeasurements(*source, options);
}

absl::StatusOr<ir::CollectiveMeasurements> LoadSample(std::string_view name) {
  return parsers::LoadCollectiveMeasurements(test::SourcePath(StrCat("samples/nccl-tests/", name)),
                                             std::nullopt);
}

std::vector<const ir::CollectiveSample*> OutOfPlace(const ir::CollectiveRun& run) {
  std::vector<const ir::CollectiveSample*> out;
  for (const ir::CollectiveSample& s : run.samples) {
    if (!s.in_place) out.push_back(&s);
  }
  return out;
}

TEST(CollectiveTest, BusBandwidthFactorsAreNcclTestsDefinitions) {
  EXPECT_DOUBLE_EQ(ir::BusBandwidthFactor(CollectiveKind::kAllReduce, 8), 14.0 / 8.0);
  EXPECT_DOUBLE_EQ(ir::BusBandwidthFactor(CollectiveKind::kAllGather, 8), 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(ir::BusBandwidthFactor(CollectiveKind::kReduceScatter, 16), 15.0 / 16.0);
  EXPECT_DOUBLE_EQ(ir::BusBandwidthFactor(CollectiveKind::kAllToAll, 4), 3.0 / 4.0);
  EXPECT_DOUBLE_EQ(ir::BusBandwidthFactor(CollectiveKind::kSendRecv, 8), 1.0);
  EXPECT_DOUBLE_EQ(ir::BusBandwidthFactor(CollectiveKind::kAllReduce, 1), 0.0);
}

TEST(CollectiveTest, NamesRoundTripAndFold) {
  for (CollectiveKind kind : ir::kAllCollectiveKinds) {
    EXPECT_EQ(ir::CollectiveFromName(ir::CollectiveName(kind)), kind);
  }
  EXPECT_EQ(ir::CollectiveFromName("AllToAll"), CollectiveKind::kAllToAll);
  EXPECT_EQ(ir::CollectiveFromName("alltoall"), CollectiveKind::kAllToAll);
  EXPECT_EQ(ir::CollectiveFromName("sendrecv"), CollectiveKind::kSendRecv);
  EXPECT_EQ(ir::CollectiveFromName("all-reduce"), CollectiveKind::kAllReduce);
  EXPECT_EQ(ir::CollectiveFromName("allreduce2"), std::nullopt);
}

TEST(CollectiveFileNameTest, LongestNameWins) {
  EXPECT_EQ(parsers::CollectiveFromFileName("x/nccl_allreduce.log"), CollectiveKind::kAllReduce);
  EXPECT_EQ(parsers::CollectiveFromFileName("nccl_reducescatter.log"),
            CollectiveKind::kReduceScatter);
  EXPECT_EQ(parsers::CollectiveFromFileName("reduce_perf.txt"), CollectiveKind::kReduce);
  EXPECT_EQ(parsers::CollectiveFromFileName("all-to-all.json"), CollectiveKind::kAllToAll);
  EXPECT_EQ(parsers::CollectiveFromFileName("allreduce_vs_allgather.txt"), std::nullopt);
  EXPECT_EQ(parsers::CollectiveFromFileName("reduce/bench.txt"), std::nullopt);  // a directory
}

// ---------------------------------------------------------------------------
// Published outputs (samples/nccl-tests/README.md says where each is from).

TEST(NcclTestsSamplesTest, SuperbenchA100AllReduceOldLayout) {
  // nccl-tests of 2020 or so: "error" column, no "root", an NCCL INFO line
  // inside the table; the collective comes from the file name.
  auto m = LoadSample("superbench-a100-8gpu-nccl_allreduce.log");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 1u);
  const ir::CollectiveRun& run = m->runs[0];
  EXPECT_EQ(run.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(run.ranks, 8);
  EXPECT_EQ(run.NodeCount(), 1);
  EXPECT_EQ(run.device, "A100-SXM4-40GB");
  EXPECT_EQ(run.samples.size(), 68u);  // 34 rows, out-of-place and in-place
  const auto oop = OutOfPlace(run);
  ASSERT_EQ(oop.size(), 34u);
  EXPECT_EQ(oop.back()->bytes, 8589934592);
  EXPECT_EQ(oop.back()->count, 2147483648);
  EXPECT_DOUBLE_EQ(oop.back()->time_us, 63896);
  EXPECT_DOUBLE_EQ(oop.back()->algbw_gbps, 134.44);
  EXPECT_DOUBLE_EQ(oop.back()->busbw_gbps, 235.26);
  EXPECT_EQ(oop.back()->dtype, "float");
  EXPECT_FALSE(oop.back()->wrong_elements.has_value());  // "N/A"
  EXPECT_EQ(oop.back()->location, StrCat(test::SourcePath(
      "samples/nccl-tests/superbench-a100-8gpu-nccl_allreduce.log"), ":50:3"));
  EXPECT_DOUBLE_EQ(run.samples[1].time_us, 34.05);  // row 1, in-place
  EXPECT_TRUE(run.samples[1].in_place);
  // The NCCL INFO line was counted, not fatal.
  ASSERT_EQ(m->diagnostics.warnings().size(), 1u);
  EXPECT_EQ(m->diagnostics.warnings()[0].count, 1);
}

TEST(NcclTestsSamplesTest, SuperbenchA100AllGatherHasNoRedopColumn) {
  auto m = LoadSample("superbench-a100-8gpu-nccl_allgather.log");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 1u);
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kAllGather);
  const auto oop = OutOfPlace(m->runs[0]);
  ASSERT_EQ(oop.size(), 34u);
  EXPECT_EQ(oop[20]->bytes, 1048576);
  EXPECT_DOUBLE_EQ(oop[20]->time_us, 72.95);
  EXPECT_DOUBLE_EQ(oop[20]->busbw_gbps, 12.58);
}

TEST(NcclTestsSamplesTest, SuperbenchA100AllToAllBlankRedopAlignsByColumn) {
  // The header names a redop column the rows leave blank: values are placed
  // by where they end.
  auto m = LoadSample("superbench-a100-8gpu-nccl_alltoall.log");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 1u);
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kAllToAll);
  const auto oop = OutOfPlace(m->runs[0]);
  ASSERT_EQ(oop.size(), 34u);
  EXPECT_EQ(oop[5]->bytes, 32);
  EXPECT_DOUBLE_EQ(oop[5]->time_us, 89.00);
  EXPECT_EQ(oop.back()->bytes, 8589934592);
  EXPECT_DOUBLE_EQ(oop.back()->time_us, 33508);
  EXPECT_DOUBLE_EQ(oop.back()->algbw_gbps, 256.36);
  EXPECT_DOUBLE_EQ(oop.back()->busbw_gbps, 224.31);
}

TEST(NcclTestsSamplesTest, SuperbenchA100ReduceScatter) {
  auto m = LoadSample("superbench-a100-8gpu-nccl_reducescatter.log");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kReduceScatter);
  EXPECT_EQ(m->runs[0].ranks, 8);
  EXPECT_DOUBLE_EQ(OutOfPlace(m->runs[0]).back()->busbw_gbps, 231.52);
}

TEST(NcclTestsSamplesTest, TwoNodeH100FromEchoedCommand) {
  // The collective is named only by the mpirun command quoted above the run.
  auto m = LoadSample("a3mega-h100-2node-all_reduce.txt");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 1u);
  const ir::CollectiveRun& run = m->runs[0];
  EXPECT_EQ(run.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(run.ranks, 16);
  EXPECT_EQ(run.NodeCount(), 2);
  EXPECT_EQ(run.rank_hosts[7], "ztan-mig-235z");
  EXPECT_EQ(run.rank_hosts[8], "ztan-mig-gq73");
  EXPECT_EQ(run.device, "NVIDIA H100 80GB HBM3");
  const auto oop = OutOfPlace(run);
  ASSERT_EQ(oop.size(), 31u);
  EXPECT_EQ(oop.front()->bytes, 8);
  EXPECT_DOUBLE_EQ(oop.front()->time_us, 135.8);
  EXPECT_EQ(oop.back()->wrong_elements, 0);
  EXPECT_DOUBLE_EQ(oop.back()->busbw_gbps, 338.82);
}

TEST(NcclTestsSamplesTest, SendRecvWithoutDevicesKeepsRanksUnknown) {
  auto m = LoadSample("playground-a100-8gpu-sendrecv.md");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 1u);
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kSendRecv);
  EXPECT_EQ(m->runs[0].ranks, 0);
  ASSERT_EQ(m->runs[0].samples.size(), 8u);
  EXPECT_FALSE(m->runs[0].samples[1].wrong_elements.has_value());  // in-place "N/A"
  EXPECT_EQ(m->runs[0].samples[0].wrong_elements, 0);
}

TEST(NcclTestsSamplesTest, Version220NamesItsProgram) {
  auto m = LoadSample("dgx-spark-gb10-2node-all_reduce-2.20.0.txt");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 1u);
  EXPECT_EQ(m->runs[0].tool, "nccl-tests 2.20.0");
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(m->runs[0].ranks, 2);
  EXPECT_EQ(m->runs[0].NodeCount(), 2);
  EXPECT_EQ(OutOfPlace(m->runs[0]).size(), 4u);
}

TEST(NcclTestsSamplesTest, OneRankAllGather) {
  auto m = LoadSample("nixpkgs-rtx4090-1gpu-all_gather-2.13.6.txt");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kAllGather);
  EXPECT_EQ(m->runs[0].ranks, 1);
  EXPECT_DOUBLE_EQ(m->runs[0].samples[0].algbw_gbps, 1816.16);
}

// ---------------------------------------------------------------------------
// Inline inputs: layouts.

constexpr std::string_view kHeader213 =
    "#                                                              out-of-place"
    "                       in-place          \n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
    "            (us)  (GB/s)  (GB/s)       \n";

TEST(NcclTestsTextTest, OpenMpiTagPrefixesAndRankInference) {
  // No device lines: the rank count follows from busbw/algbw (1.75 = 2*7/8).
  std::string text;
  for (std::string_view line :
       {std::string_view("# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor)\n")}) {
    text += StrCat("[1,0]<stdout>:", line);
  }
  std::string_view header = kHeader213;
  while (!header.empty()) {
    const size_t nl = header.find('\n');
    text += StrCat("[1,0]<stdout>:", header.substr(0, nl + 1));
    header.remove_prefix(nl + 1);
  }
  text +=
      "[1,0]<stdout>:    16777216       4194304     float     sum      -1    226.0   74.23  "
      "129.90      0    225.0   74.57  130.49      0\n";
  auto m = ParseInline(text, {CollectiveKind::kAllReduce, std::nullopt});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->runs[0].ranks, 8);
  EXPECT_DOUBLE_EQ(m->runs[0].samples[0].time_us, 226.0);
}

TEST(NcclTestsTextTest, MillisecondTablesOf2017) {
  // nccl-tests 1.x printed "bytes N type op" and the time in ms, with no
  // units line: algbw = size / time tells.
  const std::string text =
      "# Using devices\n"
      "#   Rank  0 Pid  1000 on host device  0 [0x06] Tesla P100-SXM2-16GB\n"
      "#   Rank  1 Pid  1000 on host device  1 [0x07] Tesla P100-SXM2-16GB\n"
      "#                                                out-of-place                    in-place\n"
      "#       bytes             N    type      op     time  algbw  busbw      res     time  algbw"
      "  busbw      res\n"
      "    33554432       8388608   float     sum    1.694  19.81  19.81    0e+00    1.690  19.85"
      "  19.85    0e+00\n";
  auto m = ParseInline(text, {CollectiveKind::kAllReduce, std::nullopt});
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs[0].samples.size(), 2u);
  EXPECT_DOUBLE_EQ(m->runs[0].samples[0].time_us, 1694.0);
  EXPECT_EQ(m->runs[0].samples[0].max_error, 0.0);
}

TEST(NcclTestsTextTest, SeveralRunsInOneFile) {
  const std::string run_a = StrCat(
      "# Collective test starting: all_gather_perf\n"
      "#  Rank  0 Group  0 Pid 1 on a device  0 [0x01] GPU\n"
      "#  Rank  1 Group  0 Pid 1 on a device  1 [0x02] GPU\n",
      kHeader213,
      "     1048576        131072     float    none      -1    20.00   52.43   26.21      0"
      "    20.00   52.43   26.21      0\n"
      "# Out of bounds values : 0 OK\n");
  const std::string run_b = StrCat(
      "# Collective test starting: reduce_scatter_perf\n"
      "#  Rank  0 Group  0 Pid 1 on a device  0 [0x01] GPU\n"
      "#  Rank  1 Group  0 Pid 1 on b device  1 [0x02] GPU\n",
      kHeader213,
      "     1048576        131072     float     sum      -1    40.00   26.21   13.11      0"
      "    40.00   26.21   13.11      0\n");
  auto m = ParseInline(StrCat(run_a, run_b));
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 2u);
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kAllGather);
  EXPECT_EQ(m->runs[0].NodeCount(), 1);
  EXPECT_EQ(m->runs[1].kind, CollectiveKind::kReduceScatter);
  EXPECT_EQ(m->runs[1].NodeCount(), 2);
  EXPECT_EQ(m->runs[0].location, "t.txt:5:1");  // the column header
  EXPECT_EQ(m->runs[1].location, "t.txt:13:1");
}

TEST(NcclTestsTextTest, AllReduceIsInferredFromItsBusFactor) {
  const std::string text = StrCat(
      "#  Rank  0 Group  0 Pid 1 on a device  0 [0x01] GPU\n"
      "#  Rank  1 Group  0 Pid 1 on a device  1 [0x02] GPU\n"
      "#  Rank  2 Group  0 Pid 1 on a device  2 [0x03] GPU\n"
      "#  Rank  3 Group  0 Pid 1 on a device  3 [0x04] GPU\n",
      kHeader213,
      "     1048576        262144     float     sum      -1    20.00   52.43   78.64      0"
      "    20.00   52.43   78.64      0\n");
  auto m = ParseInline(text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kAllReduce);
}

TEST(NcclTestsTextTest, MemplanBenchCollectivesText) {
  // `memplan bench-collectives` prints nccl-tests' out-of-place columns, one
  // table per collective after "# Collective: NAME", and the rank count in
  // its first line.
  const std::string text =
      "# memplan bench-collectives: backend host, 2 ranks, transport MPI (Open MPI v4.1.4)\n"
      "# device (rank 0): host memory as a device of 10.76 GiB (11548370944 bytes)\n"
      "#\n"
      "# Collective: all_reduce\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n"
      "     1048576        262144     float     sum      -1   3562.2    0.29    0.29       0\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 0.29\n"
      "#\n"
      "# Collective: all_gather\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n"
      "     1048576        131072     float    none      -1   1000.0    1.05    0.52       0\n";
  auto m = ParseInline(text);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 2u);
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(m->runs[0].tool, "memplan bench-collectives (host)");
  EXPECT_EQ(m->runs[0].ranks, 2);
  EXPECT_EQ(m->runs[1].kind, CollectiveKind::kAllGather);
  EXPECT_EQ(m->runs[1].ranks, 2);
  EXPECT_EQ(m->runs[1].samples.size(), 1u);
  EXPECT_FALSE(m->runs[1].samples[0].in_place);
}

// ---------------------------------------------------------------------------
// Inline inputs: errors name file:line:col.

TEST(NcclTestsTextErrorTest, UnknownCollectiveIsFailedPrecondition) {
  const std::string text = StrCat(
      kHeader213,
      "     1048576        262144     float    none      -1    20.00   52.43   52.43      0"
      "    20.00   52.43   52.43      0\n");
  auto m = ParseInline(text);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(m.status().message(), "t.txt:2:1: error: expected the name of "
                                                      "the collective"))
      << m.status();
}

TEST(NcclTestsTextErrorTest, BusbwThatContradictsTheCollective) {
  // An all-gather table over 8 ranks (busbw = 7/8 algbw) read as all-reduce.
  auto m = parsers::LoadCollectiveMeasurements(
      test::SourcePath("samples/nccl-tests/superbench-a100-8gpu-nccl_allgather.log"),
      CollectiveKind::kAllReduce);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "nccl_allgather.log:33:56: error: expected "
                                                      "busbw = algbw x 2(n-1)/n"))
      << m.status();
}

TEST(NcclTestsTextErrorTest, ProgramNameContradictsTheGivenCollective) {
  const std::string text =
      StrCat("# Collective test starting: alltoall_perf\n", kHeader213,
             "     1048576        262144     float    none      -1    20.00   52.43   52.43      0"
             "    20.00   52.43   52.43      0\n");
  auto m = ParseInline(text, {CollectiveKind::kAllGather, std::nullopt});
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "t.txt:1:29: error: the output names the "
                                                      "program alltoall_perf (all_to_all)"))
      << m.status();
}

TEST(NcclTestsTextErrorTest, RowsThatDoNotFitTheHeader) {
  const std::string text = StrCat(kHeader213, "     1048576  x\n");
  auto m = ParseInline(text, {CollectiveKind::kAllReduce, std::nullopt});
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "t.txt:4:6: error: expected a row of the "
                                                      "table whose header is at line 2"))
      << m.status();
}

TEST(NcclTestsTextErrorTest, BadNumber) {
  const std::string text = StrCat(
      kHeader213,
      "     1048576        262144     float     sum      -1    2x.00   52.43   91.75      0"
      "    20.00   52.43   91.75      0\n");
  auto m = ParseInline(text, {CollectiveKind::kAllReduce, std::nullopt});
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "t.txt:4:57: error: expected a number "
                                                      "under 'time'"))
      << m.status();
}

TEST(NcclTestsTextErrorTest, TimeThatContradictsAlgbw) {
  const std::string text = StrCat(
      kHeader213,
      "     1048576        262144     float     sum      -1    99.00   52.43   52.43      0"
      "    20.00   52.43   52.43      0\n");
  auto m = ParseInline(text, {CollectiveKind::kAllReduce, std::nullopt});
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "t.txt:4:6: error: expected algbw = size "
                                                      "/ time"))
      << m.status();
}

TEST(NcclTestsTextErrorTest, NoTable) {
  auto m = ParseInline("hello\n# nThread 1\n");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "t.txt:1:1: error: expected an nccl-tests "
                                                      "result table"))
      << m.status();
}

// ---------------------------------------------------------------------------
// JSON: nccl-tests -J and memplan.collectives.v1.

// The layout src/util.cu writes (file version 3; values of a 2-GPU run
// made up for the test: no published -J output was found).
constexpr std::string_view kNcclTestsJson = R"({"version":3,"start_time":"2026-01-02 03:04:05",
"args":["./build/all_gather_perf","-b","1M","-e","2M","-g","2"],"env":[],"nccl_version":22907,
"config":{"nthreads":1,"ngpus":2,"minimum_bytes":1048576,"maximum_bytes":2097152,
"step_factor":2,"warmup_iters":1,"iterations":20,"aggregated_iterations":1,"validation":1,
"graph":0,"blocking_collectives":false,"parallel_init":false,
"devices":[{"rank":0,"group":0,"pid":7,"hostname":"n1","device":0,"device_hex":"0000:07:00",
"device_info":"NVIDIA H100 80GB HBM3"},{"rank":1,"group":0,"pid":7,"hostname":"n1","device":1,
"device_hex":"0000:0b:00","device_info":"NVIDIA H100 80GB HBM3"}]},
"results":[{"size":1048576,"count":131072,"type":"float","redop":"none","root":"    -1",
"out_of_place":{"time":20.000000,"alg_bw":52.428800,"bus_bw":26.214400,"nwrong":0.000000},
"in_place":{"time":"nan","alg_bw":"nan","bus_bw":"nan","nwrong":null},
"actual_iterations":20,"experiment_name":""},
{"size":2097152,"count":262144,"type":"float","redop":"none","root":"    -1",
"out_of_place":{"time":30.000000,"alg_bw":69.905067,"bus_bw":34.952533,"nwrong":0.000000},
"in_place":null,"actual_iterations":20,"experiment_name":""}],
"out_of_bounds":{"count":0,"okay":true},"average_bus_bandwidth":{"bandwidth":30.5,"okay":"unchecked"},
"end_time":"2026-01-02 03:04:06"})";

TEST(NcclTestsJsonTest, ReadsTheWriterLayout) {
  auto m = ParseInline(kNcclTestsJson, {}, "r.json");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 1u);
  const ir::CollectiveRun& run = m->runs[0];
  EXPECT_EQ(run.kind, CollectiveKind::kAllGather);
  EXPECT_EQ(run.ranks, 2);
  EXPECT_EQ(run.tool, "nccl-tests (JSON version 3)");
  EXPECT_EQ(run.device, "NVIDIA H100 80GB HBM3");
  // The in-place "nan" time is skipped and counted.
  ASSERT_EQ(run.samples.size(), 2u);
  EXPECT_EQ(run.samples[0].wrong_elements, 0);
  EXPECT_FALSE(run.samples[1].in_place);
  EXPECT_DOUBLE_EQ(run.samples[1].time_us, 30.0);
  ASSERT_EQ(m->diagnostics.warnings().size(), 1u);
  EXPECT_EQ(m->diagnostics.warnings()[0].first_location, "r.json:11:20");
}

TEST(NcclTestsJsonTest, SyntaxErrorIsLocated) {
  auto m = ParseInline("{\"results\": [1, }", {}, "r.json");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "r.json:1:17: error: expected valid JSON"))
      << m.status();
}

TEST(NcclTestsJsonTest, SchemaErrorIsLocatedAtTheValue) {
  auto m = ParseInline("{\"results\": [\n  {\"size\": -5, \"out_of_place\": {}}]}",
                       {CollectiveKind::kAllReduce, std::nullopt}, "r.json");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(),
                                "r.json:2:12: error: results[0].size: expected a non-negative "
                                "integer"))
      << m.status();
}

TEST(NcclTestsJsonTest, DeepNestingIsRefused) {
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "{\"x\":";
  deep += "1" + std::string(100, '}');
  auto m = ParseInline(deep, {}, "r.json");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "nested more than 64 levels"))
      << m.status();
}

constexpr std::string_view kMemplanJson = R"({"schema":"memplan.collectives.v1","backend":"cuda",
"ranks":4,"hosts":["a","a","b","b"],"results":[
{"collective":"all_reduce","bytes":1048576,"count":262144,"dtype":"float","time_us":20.0,
 "algbw_gbps":52.4288,"busbw_gbps":78.6432,"wrong":0},
{"collective":"all_to_all","bytes":1048576,"count":262144,"dtype":"float","time_us":40.0,
 "algbw_gbps":26.2144,"busbw_gbps":19.6608,"wrong":0},
{"collective":"all_reduce","bytes":2097152,"count":524288,"dtype":"float","time_us":30.0,
 "algbw_gbps":69.9051,"busbw_gbps":104.8576,"wrong":0}]})";

TEST(MemplanCollectivesJsonTest, OneRunPerCollective) {
  auto m = ParseInline(kMemplanJson, {}, "b.json");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 2u);
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(m->runs[0].samples.size(), 2u);
  EXPECT_EQ(m->runs[0].NodeCount(), 2);
  EXPECT_EQ(m->runs[0].tool, "memplan bench-collectives (cuda)");
  EXPECT_EQ(m->runs[1].kind, CollectiveKind::kAllToAll);
  EXPECT_EQ(m->runs[1].ranks, 4);
}

TEST(MemplanCollectivesJsonTest, ValidateReportsGroupRecordsByCollectiveAndGroup) {
  // memplan.validate.v1 (docs/executor-plan.md): each rank lists the
  // collectives it ran, with the group.
  constexpr std::string_view kValidate = R"json({"schema":"memplan.validate.v1","backend":"cuda",
"ranks":[
 {"rank":0,"outcome":"ok","device":"NVIDIA H100 80GB HBM3 (device 0 of 8)","collectives":[
  {"collective":"all_reduce","bytes":4096,"count":1024,"dtype":"float","time_us":20.48,
   "algbw_gbps":0.2,"busbw_gbps":0.2,"wrong":0,"ranks":2,"group":[0,8],"op":0,"step":0},
  {"collective":"all_gather","bytes":8192,"count":2048,"dtype":"float","time_us":40.96,
   "algbw_gbps":0.2,"busbw_gbps":0.1,"wrong":0,"ranks":2,"group":[0,1],"op":1,"step":1}]},
 {"rank":8,"outcome":"ok","device":"NVIDIA H100 80GB HBM3 (device 0 of 8)","collectives":[
  {"collective":"all_reduce","bytes":4096,"count":1024,"dtype":"float","time_us":20.48,
   "algbw_gbps":0.2,"busbw_gbps":0.2,"wrong":0,"ranks":2,"group":[0,8],"op":0,"step":0}]}]})json";
  auto m = ParseInline(kValidate, {}, "v.json");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->runs.size(), 2u);
  EXPECT_EQ(m->runs[0].kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(m->runs[0].samples.size(), 2u);  // from ranks 0 and 8
  EXPECT_EQ(m->runs[0].group_devices, (std::vector<int64_t>{0, 8}));
  EXPECT_EQ(m->runs[0].tool, "memplan validate (cuda)");
  EXPECT_EQ(m->runs[1].kind, CollectiveKind::kAllGather);
  EXPECT_EQ(m->runs[1].ranks, 2);
}

TEST(MemplanCollectivesJsonTest, Errors) {
  auto wrong_schema = ParseInline(R"({"schema":"memplan.collectives.v2"})", {}, "b.json");
  ASSERT_FALSE(wrong_schema.ok());
  EXPECT_TRUE(absl::StrContains(wrong_schema.status().message(),
                                "b.json:1:11: error: schema: expected \"memplan.collectives.v1\" or "
                                "\"memplan.validate.v1\""))
      << wrong_schema.status();
  auto bad_busbw = ParseInline(
      R"({"schema":"memplan.collectives.v1","backend":"host","ranks":4,"results":[
{"collective":"all_gather","bytes":1048576,"time_us":20.0,"algbw_gbps":52.4288,"busbw_gbps":52.4288}]})",
      {}, "b.json");
  ASSERT_FALSE(bad_busbw.ok());
  EXPECT_TRUE(absl::StrContains(bad_busbw.status().message(),
                                "b.json:2:93: error: expected busbw = algbw x (n-1)/n = 39.32"))
      << bad_busbw.status();
  auto bad_kind = ParseInline(
      R"({"schema":"memplan.collectives.v1","backend":"host","ranks":4,"results":[{"collective":"gather"}]})",
      {}, "b.json");
  ASSERT_FALSE(bad_kind.ok());
  EXPECT_TRUE(absl::StrContains(bad_kind.status().message(), "results[0].collective: expected "
                                                             "all_reduce"))
      << bad_kind.status();
}

}  // namespace
}  // namespace memplan
