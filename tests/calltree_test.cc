// Call trees and traces: the text-tree parser (seed 000), the JSON reader,
// gzip, the Chrome trace parser on real PyTorch and JAX traces, the call
// tree analyses and their views.
#include <zlib.h>

#include <string>
#include <vector>

#include "analyzer/call_tree_analysis.h"
#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "parsers/call_tree_text_parser.h"
#include "parsers/chrome_trace_parser.h"
#include "parsers/gzip_text.h"
#include "parsers/json_reader.h"
#include "parsers/load_call_tree.h"
#include "ir/strings.h"
#include "tests/test_util.h"
#include "viz/call_tree_report.h"

namespace memplan {
namespace {

using ir::CallNodeKind;

absl::StatusOr<ir::CallTree> ParseTree(std::string_view text) {
  auto source = parsers::SourceText::FromString("t.txt", text);
  return parsers::ParseTextCallTree(*source);
}

absl::StatusOr<ir::CallTree> ParseTrace(std::string_view text) {
  auto source = parsers::SourceText::FromString("t.json", text);
  return parsers::ParseChromeTrace(*source);
}

const ir::Function& FunctionOf(const ir::CallTree& tree, int64_t node) {
  return tree.function(tree.node(ir::CallNodeId(node)).function);
}

TEST(TextCallTree, DepthFromPrefixWidth) {
  const std::string text =
      "\u2514\u2500\u2500 main, /a/main.py:10\n"
      "    \u251c\u2500\u2500 f, /a/f.py:1\n"
      "    \u2502   \u2514\u2500\u2500 g, /a/g.py:2\n"
      "    \u2514\u2500\u2500 h, /a/h.py:3\n"
      "        \u2514\u2500\u2500 k\n";
  absl::StatusOr<ir::CallTree> tree = ParseTree(text);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes.size(), 6u);
  EXPECT_EQ(FunctionOf(*tree, 1).name, "main");
  EXPECT_EQ(FunctionOf(*tree, 1).file, "/a/main.py");
  EXPECT_EQ(FunctionOf(*tree, 1).line, 10);
  EXPECT_EQ(tree->node(ir::CallNodeId(3)).parent, ir::CallNodeId(2));  // g under f
  EXPECT_EQ(tree->node(ir::CallNodeId(4)).parent, ir::CallNodeId(1));  // h under main
  EXPECT_EQ(tree->node(ir::CallNodeId(5)).parent, ir::CallNodeId(4));
  EXPECT_EQ(tree->node(ir::CallNodeId(5)).depth, 3);
  EXPECT_EQ(FunctionOf(*tree, 5).file, "");
  EXPECT_EQ(tree->node(ir::CallNodeId(1)).subtree_end, ir::CallNodeId(6));
  EXPECT_EQ(tree->node(ir::CallNodeId(4)).input_line, 4);
}

TEST(TextCallTree, AsciiMarkersAndHeaderLine) {
  absl::StatusOr<ir::CallTree> tree = ParseTree(
      "root, r.py:1\n"
      "|-- a, a.py:2\n"
      "|   `-- b, b.py:3\n"
      "`-- c, c.py:4\n");
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes.size(), 5u);
  EXPECT_EQ(tree->node(ir::CallNodeId(2)).parent, ir::CallNodeId(1));
  EXPECT_EQ(tree->node(ir::CallNodeId(3)).parent, ir::CallNodeId(2));
  EXPECT_EQ(tree->node(ir::CallNodeId(4)).parent, ir::CallNodeId(1));
}

TEST(TextCallTree, CommaInNameWithoutLocation) {
  absl::StatusOr<ir::CallTree> tree = ParseTree("\u2514\u2500\u2500 f(a, b)\n");
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(FunctionOf(*tree, 1).name, "f(a, b)");
  EXPECT_EQ(FunctionOf(*tree, 1).file, "");
}

TEST(TextCallTree, DeeperJumpAttachesAndWarns) {
  absl::StatusOr<ir::CallTree> tree = ParseTree(
      "\u2514\u2500\u2500 a\n"
      "            \u2514\u2500\u2500 b\n");
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->node(ir::CallNodeId(2)).parent, ir::CallNodeId(1));
  ASSERT_EQ(tree->diagnostics.warnings().size(), 1u);
  EXPECT_EQ(tree->diagnostics.warnings()[0].first_location, "t.txt:2:23");  // byte columns
}

TEST(TextCallTree, ErrorsAreLocated) {
  absl::StatusOr<ir::CallTree> empty = ParseTree("\n\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("t.txt:1:1: error: expected a call tree"),
            std::string::npos)
      << empty.status();
  absl::StatusOr<ir::CallTree> bare = ParseTree("\u2514\u2500\u2500 a\n    \u2514\u2500\u2500 \n");
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.status().message().find("t.txt:2:"), std::string::npos) << bare.status();
}

// Seed 000: depths counted independently (prefix characters / 4 + 1, by a
// Python one-liner over the seed): 1 line at depth 1, 77 at 2, 309 at 3,
// 1,008 at 4, 1,513 at 5, 3,148 at 6, 2,364 at 7, 760 at 8, 174 at 9, 9 at 10.
TEST(TextCallTree, Seed000) {
  absl::StatusOr<ir::CallTree> tree =
      parsers::LoadCallTree(test::SourcePath("samples/calltree/seed000_vescale_nanogpt_4d_calltree.txt.gz"));
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->CallCount(), 9363);
  std::vector<int64_t> per_depth(12, 0);
  for (const ir::CallNode& n : tree->nodes) {
    if (n.kind == CallNodeKind::kCall) ++per_depth[static_cast<size_t>(n.depth)];
  }
  EXPECT_EQ(per_depth, (std::vector<int64_t>{0, 1, 77, 309, 1008, 1513, 3148, 2364, 760, 174, 9, 0}));
  EXPECT_EQ(FunctionOf(*tree, 1).name, "main");
  EXPECT_EQ(FunctionOf(*tree, 1).line, 195);
  EXPECT_EQ(tree->node(ir::CallNodeId(1)).subtree_end.value(), 9364);
  EXPECT_EQ(tree->diagnostics.total(), 0);

  const analyzer::CallTreeSummary summary = analyzer::SummarizeCallTree(*tree);
  EXPECT_EQ(summary.calls, 9363);
  EXPECT_EQ(summary.max_depth, 10);
  // `grep -c ', /root/vescale_prj/veScale/vescale/dtensor/placement_types.py:2$'`
  // on the seed gives 429.
  ASSERT_FALSE(summary.by_function.empty());
  EXPECT_EQ(tree->function(summary.by_function[0].function).name, "__init__");
  EXPECT_EQ(summary.by_function[0].calls, 429);
}

TEST(JsonReader, DecimalScaled) {
  int64_t v = 0;
  EXPECT_TRUE(parsers::ParseDecimalScaled("11.627", 3, &v));
  EXPECT_EQ(v, 11627);
  EXPECT_TRUE(parsers::ParseDecimalScaled("11.627000000000001", 3, &v));
  EXPECT_EQ(v, 11627);
  EXPECT_TRUE(parsers::ParseDecimalScaled("1669783687464181", 3, &v));
  EXPECT_EQ(v, 1669783687464181000);
  EXPECT_TRUE(parsers::ParseDecimalScaled("9.9999999999999995e-07", 3, &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parsers::ParseDecimalScaled("-2.5e1", 0, &v));
  EXPECT_EQ(v, -25);
  EXPECT_TRUE(parsers::ParseDecimalScaled("0.0005", 3, &v));
  EXPECT_EQ(v, 1);  // rounds half away from zero
  EXPECT_FALSE(parsers::ParseDecimalScaled("1e30", 0, &v));
  EXPECT_FALSE(parsers::ParseDecimalScaled("12a", 0, &v));
  EXPECT_FALSE(parsers::ParseDecimalScaled("", 0, &v));
}

TEST(JsonReader, WalksAndSkips) {
  auto source = parsers::SourceText::FromString(
      "j.json", R"({"a": [1, {"b": [[], {}]}, "x\u00e9\n"], "c": "d\"e", "n": null})");
  parsers::JsonReader json(*source);
  ASSERT_TRUE(json.BeginObject().ok());
  std::string_view key;
  std::string storage;
  ASSERT_TRUE(*json.NextMember(&key, &storage));
  EXPECT_EQ(key, "a");
  ASSERT_TRUE(json.Skip().ok());
  ASSERT_TRUE(*json.NextMember(&key, &storage));
  EXPECT_EQ(key, "c");
  std::string value_storage;
  EXPECT_EQ(*json.ReadString(&value_storage), "d\"e");
  ASSERT_TRUE(*json.NextMember(&key, &storage));
  ASSERT_TRUE(json.ReadNull().ok());
  EXPECT_FALSE(*json.NextMember(&key, &storage));
  EXPECT_TRUE(json.AtEnd());
}

TEST(JsonReader, DeepNestingIsAnError) {
  const std::string deep(100000, '[');
  auto source = parsers::SourceText::FromString("deep.json", deep);
  parsers::JsonReader json(*source);
  absl::Status status = json.Skip();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("deep.json:1:257: error: expected JSON nested at most 256 deep"),
            std::string::npos)
      << status;
}

std::string Gzip(std::string_view text) {
  z_stream s{};
  deflateInit2(&s, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&s, text.size()) + 32, '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  s.avail_in = static_cast<uInt>(text.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  deflate(&s, Z_FINISH);
  out.resize(s.total_out);
  deflateEnd(&s);
  return out;
}

TEST(Gzip, RoundTripMembersAndTruncation) {
  const std::string a = Gzip("hello ");
  const std::string b = Gzip("world");
  ASSERT_TRUE(parsers::LooksGzipped(a));
  absl::StatusOr<std::string> both = parsers::Gunzip(a + b, "x.gz");
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(*both, "hello world");
  absl::StatusOr<std::string> cut = parsers::Gunzip(a.substr(0, a.size() - 5), "x.gz");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("x.gz: byte"), std::string::npos) << cut.status();
  absl::StatusOr<std::string> big = parsers::Gunzip(Gzip(std::string(100000, 'a')), "x.gz", 1000);
  EXPECT_FALSE(big.ok());
}

// Slices nest by time; B/E pair as a stack; metadata names tracks; counters
// and PyTorch memory events are kept.
constexpr std::string_view kSmallTrace = R"({"traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "trainer"}},
  {"ph": "M", "name": "thread_name", "pid": 7, "tid": 1, "args": {"name": "main"}},
  {"ph": "X", "name": "step", "pid": 7, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "name": "aten::mm", "cat": "cpu_op", "pid": 7, "tid": 1, "ts": 10, "dur": 20},
  {"ph": "B", "name": "opt", "pid": 7, "tid": 1, "ts": 50},
  {"ph": "X", "name": "$train.py:12 update", "pid": 7, "tid": 1, "ts": 60, "dur": 5},
  {"ph": "E", "pid": 7, "tid": 1, "ts": 90},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 1, "ts": 15,
   "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096, "Bytes": 1000, "Total Allocated": 5000, "Total Reserved": 8192}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 1, "ts": 61,
   "args": {"Device Type": 1, "Device Id": 0, "Addr": 8192, "Bytes": 3000, "Total Allocated": 8000, "Total Reserved": 16384}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 1, "ts": 95,
   "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096, "Bytes": -1000, "Total Allocated": 7000, "Total Reserved": 16384}},
  {"ph": "C", "name": "mem", "pid": 7, "ts": 5, "args": {"used": 1.5, "label": "x"}},
  {"ph": "X", "name": "other", "pid": 7, "tid": 2, "ts": 3, "dur": 1}
]})";

TEST(ChromeTrace, NestingMetadataCountersAndMemory) {
  absl::StatusOr<ir::CallTree> tree = ParseTrace(kSmallTrace);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->tracks.size(), 2u);
  EXPECT_EQ(tree->tracks[0].process_name, "trainer");
  EXPECT_EQ(tree->tracks[0].thread_name, "main");
  // root, track 1, step, mm, opt, update, track 2, other
  ASSERT_EQ(tree->nodes.size(), 8u);
  EXPECT_EQ(FunctionOf(*tree, 2).name, "step");
  EXPECT_EQ(tree->node(ir::CallNodeId(3)).parent, ir::CallNodeId(2));
  EXPECT_EQ(FunctionOf(*tree, 4).name, "opt");
  EXPECT_EQ(tree->node(ir::CallNodeId(4)).duration_ns, 40000);
  EXPECT_EQ(tree->node(ir::CallNodeId(5)).parent, ir::CallNodeId(4));
  EXPECT_EQ(FunctionOf(*tree, 5).name, "update");
  EXPECT_EQ(FunctionOf(*tree, 5).file, "train.py");
  EXPECT_EQ(FunctionOf(*tree, 5).line, 12);
  ASSERT_EQ(tree->counters.size(), 1u);
  EXPECT_EQ(tree->counters[0].series, "used");
  EXPECT_DOUBLE_EQ(tree->counters[0].samples[0].value, 1.5);
  ASSERT_EQ(tree->memory_events.size(), 3u);
  EXPECT_EQ(tree->memory_events[0].enclosing, ir::CallNodeId(3));  // inside aten::mm
  EXPECT_EQ(tree->memory_events[1].enclosing, ir::CallNodeId(5));  // inside update
  EXPECT_EQ(tree->memory_events[2].enclosing, ir::CallNodeId(2));  // after opt ended

  const analyzer::CallTreeSummary summary = analyzer::SummarizeCallTree(*tree);
  EXPECT_EQ(summary.self_ns[2], 100000 - 20000 - 40000);
  const analyzer::CallTreeMemory memory = analyzer::AnalyzeCallTreeMemory(*tree, summary);
  ASSERT_EQ(memory.devices.size(), 1u);
  const analyzer::DeviceMemory& d = memory.devices[0];
  EXPECT_TRUE(d.allocator_totals);
  EXPECT_EQ(d.peak_allocated, 8000);
  EXPECT_EQ(d.peak_event, 1u);
  EXPECT_EQ(d.peak_reserved, 16384);
  EXPECT_EQ(d.live_traced_bytes, 4000);
  EXPECT_EQ(d.live_untraced_bytes, 4000);
  ASSERT_EQ(d.live_at_peak.size(), 2u);
  EXPECT_EQ(d.live_at_peak[0].bytes, 3000);
  EXPECT_EQ(tree->function(summary.contexts[static_cast<size_t>(d.live_at_peak[0].context)].function).name,
            "update");
}

TEST(ChromeTrace, ArrayFormatMayBeUnclosed) {
  absl::StatusOr<ir::CallTree> tree =
      ParseTrace(R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2},)");
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->CallCount(), 1);
}

TEST(ChromeTrace, ErrorsNameTheEvent) {
  absl::StatusOr<ir::CallTree> no_ph = ParseTrace("{\"traceEvents\": [\n  {\"name\": \"a\"}]}");
  ASSERT_FALSE(no_ph.ok());
  EXPECT_NE(no_ph.status().message().find("t.json:2:3: error: expected a \"ph\" member"),
            std::string::npos)
      << no_ph.status();
  absl::StatusOr<ir::CallTree> no_ts = ParseTrace(R"({"traceEvents": [{"ph": "X", "name": "a"}]})");
  ASSERT_FALSE(no_ts.ok());
  EXPECT_NE(no_ts.status().message().find("expected a \"ts\" member"), std::string::npos);
  absl::StatusOr<ir::CallTree> no_bytes = ParseTrace(
      R"({"traceEvents": [{"ph": "i", "name": "[memory]", "ts": 1, "args": {"Bytes": "x"}}]})");
  ASSERT_FALSE(no_bytes.ok());
  absl::StatusOr<ir::CallTree> no_events = ParseTrace(R"({"schemaVersion": 1})");
  ASSERT_FALSE(no_events.ok());
  EXPECT_NE(no_events.status().message().find("expected a \"traceEvents\" member"), std::string::npos);
}

// A real Kineto trace (HolisticTraceAnalysis's test data, cut to 40 ms by
// scripts/cut_trace_excerpt.py). Figures from Python's json module over the
// same file: the largest "Total Allocated" on CUDA device 1 is 6,629,508,096
// bytes, set by a 98,566,144-byte allocation; 600 CUDA and 28 CPU events.
TEST(ChromeTrace, PyTorchMemoryExcerpt) {
  absl::StatusOr<ir::CallTree> tree =
      parsers::LoadCallTree(test::SourcePath("samples/traces/pytorch_v100_backward_memory.pt.trace.json.gz"));
  ASSERT_TRUE(tree.ok()) << tree.status();
  const analyzer::CallTreeSummary summary = analyzer::SummarizeCallTree(*tree);
  const analyzer::CallTreeMemory memory = analyzer::AnalyzeCallTreeMemory(*tree, summary);
  ASSERT_EQ(memory.devices.size(), 2u);
  EXPECT_EQ(memory.devices[0].device_type, 0);
  EXPECT_EQ(memory.devices[0].events, 28);
  const analyzer::DeviceMemory& cuda = memory.devices[1];
  EXPECT_EQ(cuda.device_type, 1);
  EXPECT_EQ(cuda.device_id, 1);
  EXPECT_EQ(cuda.events, 600);
  EXPECT_EQ(cuda.peak_allocated, 6629508096);
  EXPECT_EQ(tree->memory_events[cuda.peak_event].bytes, 98566144);
  // The allocation at the peak happens inside an op of the backward pass.
  const std::vector<ir::CallNodeId> stack = tree->PathTo(tree->memory_events[cuda.peak_event].enclosing);
  ASSERT_GE(stack.size(), 3u);
  EXPECT_EQ(tree->node(stack[0]).kind, CallNodeKind::kTrack);
  EXPECT_EQ(tree->function(tree->node(stack[1]).function).name,
            "autograd::engine::evaluate_function: CompiledFunctionBackward");
}

TEST(CallTreeAnalysis, RunsOfIdenticalSubtreesCollapse) {
  std::string text = "\u2514\u2500\u2500 model\n";
  for (int i = 0; i < 12; ++i) {
    text += StrCat("    ", i == 11 ? "\u2514" : "\u251c", "\u2500\u2500 layer, m.py:5\n");
    text += StrCat("    ", i == 11 ? " " : "\u2502", "   \u2514\u2500\u2500 matmul, m.py:9\n");
  }
  absl::StatusOr<ir::CallTree> tree = ParseTree(text);
  ASSERT_TRUE(tree.ok()) << tree.status();
  const analyzer::CallTreeSummary summary = analyzer::SummarizeCallTree(*tree);
  EXPECT_EQ(summary.run[2], 12);  // the first layer
  EXPECT_EQ(summary.run[4], 0);   // the second layer repeats it
  ASSERT_EQ(summary.repeated.size(), 1u);
  EXPECT_EQ(summary.repeated[0].occurrences, 12);
  EXPECT_EQ(summary.repeated[0].longest_run, 12);
  EXPECT_EQ(summary.repeated[0].nodes, 2);
  const analyzer::CallTreeMemory memory = analyzer::AnalyzeCallTreeMemory(*tree, summary);
  const viz::CallTreeReportInput input{*tree, summary, memory, 10};
  const std::string text_report = viz::RenderCallTreeText(input);
  EXPECT_NE(text_report.find("12 \u00d7 layer, m.py:5"), std::string::npos) << text_report;
  EXPECT_EQ(viz::RenderCallTreeFolded(input),
            "model 1\nmodel;layer (m.py:5) 12\nmodel;layer (m.py:5);matmul (m.py:9) 12\n");
  const std::string dot = viz::RenderCallTreeDot(input);
  EXPECT_NE(dot.find("\"f1\" -> \"f2\" [label=\"12\""), std::string::npos) << dot;
  const std::string json = viz::RenderCallTreeJson(input);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  ASSERT_TRUE(static_cast<bool>(parsed));
  EXPECT_EQ(*parsed->getAsObject()->getInteger("calls"), 25);
}

TEST(ChromeTrace, PythonFrameNames) {
  std::string_view fn, file;
  int64_t line = 0;
  EXPECT_TRUE(parsers::SplitPythonFrameName("$contextlib.py:132 __enter__", &fn, &file, &line));
  EXPECT_EQ(fn, "__enter__");
  EXPECT_EQ(file, "contextlib.py");
  EXPECT_EQ(line, 132);
  EXPECT_TRUE(parsers::SplitPythonFrameName("/x/train.py(45): forward", &fn, &file, &line));
  EXPECT_EQ(fn, "forward");
  EXPECT_EQ(file, "/x/train.py");
  EXPECT_FALSE(parsers::SplitPythonFrameName("aten::mm", &fn, &file, &line));
  EXPECT_FALSE(parsers::SplitPythonFrameName("f(1): g", &fn, &file, &line));
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// The built binary: exit codes, atomic -o, and the same bytes twice.
TEST(CalltreeCli, ReportsAndFailsCleanly) {
  test::TempDir dir;
  const std::string sample = test::SourcePath("samples/traces/pytorch_v100_backward_memory.pt.trace.json.gz");
  test::CommandResult text = test::RunCommand({MEMPLAN_BINARY, "calltree", sample}, dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("peak allocated: 6.17 GiB (6,629,508,096 B)"), std::string::npos) << text.out;
  test::CommandResult again = test::RunCommand({MEMPLAN_BINARY, "calltree", sample}, dir.path());
  EXPECT_EQ(text.out, again.out);
  for (const char* format : {"--format=json", "--format=dot", "--format=folded"}) {
    test::CommandResult r = test::RunCommand({MEMPLAN_BINARY, "calltree", sample, format}, dir.path());
    EXPECT_EQ(r.exit_code, 0) << format << r.err;
    EXPECT_FALSE(r.out.empty()) << format;
  }
  ASSERT_TRUE(test::WriteFile(dir.File("bad.json"), "{\"traceEvents\": [{\"ph\": \"X\"}]}"));
  test::CommandResult bad = test::RunCommand(
      {MEMPLAN_BINARY, "calltree", dir.File("bad.json"), "-o", dir.File("out.txt")}, dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.json:1:18: error: expected a \"ts\" member"), std::string::npos) << bad.err;
  EXPECT_FALSE(test::FileExists(dir.File("out.txt")));
}

}  // namespace
}  // namespace memplan
