// A program's peak hung on a call tree (analyzer/call_tree_peak.h), on a
// program small enough to work out by hand: a jaxpr whose equations carry
// source lines, lowered into a Program (ir/jaxpr_program.h), and a text call
// tree of the functions those lines are in.
#include <string>

#include "analyzer/analysis.h"
#include "analyzer/call_tree_peak.h"
#include "gtest/gtest.h"
#include "ir/jaxpr_program.h"
#include "parsers/call_tree_text_parser.h"
#include "parsers/jaxpr_parser.h"
#include "parsers/source_text.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

// Steps (the lowered schedule): a 0, w 1, b 2, c 3, e 4, f 5, d 6 (no
// instruction here is one XLA fuses). Live ranges: a and w throughout
// (arguments), b [2,4] (read by e), c [3,4], e [4,5], f [5,6], d [6,6].
// At step 4: a 4096 + w 1024 + b, c, e 4096 each = 17,408 bytes, the most
// at any step (steps 3 and 5 hold 13,312). No temporary fits in the
// output d (128 bytes).
constexpr char kJaxpr[] = R"({ lambda ; a:f32[32,32] w:f32[16,16]. let
    b:f32[32,32] = transpose[permutation=(1, 0)] a  # /src/model.py:12:4 (layer)
    c:f32[32,32] = dot_general[dimension_numbers=(([1], [0]), ([], []))] b b  # /src/model.py:20:4 (head)
    e:f32[32,32] = dot_general[dimension_numbers=(([1], [0]), ([], []))] c b  # /opt/lib/other.py:7:2 (helper)
    f:f32[32,32] = transpose[permutation=(1, 0)] e
    d:f32[32] = reduce_sum[axes=(0,)] f  # /src/model.py:21:4 (head)
  in (d,) }
)";

// layer's lines start at 10, head's at 18 (a relative path: the same file).
// layer is called twice: its bytes go to its first node (2).
constexpr char kTree[] = R"(└── main, /src/train.py:1
    ├── layer, /src/model.py:10
    ├── head, src/model.py:18
    └── layer, /src/model.py:10
)";

TEST(CallTreePeak, HangsTheBytesLiveAtThePeakOnTheFunctionsHoldingTheirLines) {
  auto jaxpr_source = parsers::SourceText::FromString("small.jaxpr", kJaxpr);
  absl::StatusOr<ir::JaxprModule> jaxpr = parsers::ParseJaxpr(*jaxpr_source);
  ASSERT_TRUE(jaxpr.ok()) << jaxpr.status();
  absl::StatusOr<ir::Program> program = ir::BuildJaxprProgram(*jaxpr);
  ASSERT_TRUE(program.ok()) << program.status();
  auto tree_source = parsers::SourceText::FromString("tree.txt", kTree);
  absl::StatusOr<ir::CallTree> tree = parsers::ParseTextCallTree(*tree_source);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes.size(), 5u);  // root, main, layer, head, layer

  const analyzer::Analysis analysis = analyzer::Analysis::Run(*program, {});
  ASSERT_TRUE(analysis.peak.has_value());
  EXPECT_EQ(analysis.peak->bytes, 17408);
  const analyzer::CallTreePeak peak =
      analyzer::HangPeakOnCallTree(*program, *analysis.peak, analysis.origins, *tree);
  EXPECT_EQ(peak.peak_bytes, 17408);
  EXPECT_EQ(peak.values.size(), 5u);
  EXPECT_EQ(peak.placed_bytes, 8192);  // b (layer), c (head)
  EXPECT_EQ(peak.placed_values, 2);
  EXPECT_EQ(peak.unmatched_bytes, 4096);  // e: other.py is in no function of the tree
  EXPECT_EQ(peak.unmatched_values, 1);
  EXPECT_EQ(peak.no_source_bytes, 5120);  // the arguments a and w
  EXPECT_EQ(peak.no_source_values, 2);

  ASSERT_EQ(peak.nodes.size(), 4u);  // root, main, layer (first), head
  EXPECT_EQ(peak.nodes[0].node, tree->root());
  EXPECT_EQ(peak.nodes[0].subtree_bytes, 8192);
  EXPECT_EQ(peak.nodes[1].node, ir::CallNodeId(1));
  EXPECT_EQ(peak.nodes[1].subtree_bytes, 8192);
  EXPECT_EQ(peak.nodes[1].self_bytes, 0);
  EXPECT_EQ(peak.nodes[2].node, ir::CallNodeId(2));
  EXPECT_EQ(peak.nodes[2].self_bytes, 4096);
  EXPECT_EQ(peak.nodes[2].self_values, 1);
  EXPECT_EQ(peak.nodes[2].function_nodes, 2);
  EXPECT_EQ(peak.nodes[3].node, ir::CallNodeId(3));
  EXPECT_EQ(peak.nodes[3].self_bytes, 4096);
  EXPECT_EQ(peak.nodes[3].function_nodes, 1);
  for (const analyzer::CallTreePeakValue& v : peak.values) {
    if (v.file == "/opt/lib/other.py") {
      EXPECT_EQ(v.line, 7);
      EXPECT_FALSE(v.node.valid());
    }
  }
}

TEST(CallTreePeak, SameSourceFileMatchesWholePathComponents) {
  EXPECT_TRUE(analyzer::SameSourceFile("/src/model.py", "src/model.py"));
  EXPECT_TRUE(analyzer::SameSourceFile("model.py", "/a/b/model.py"));
  EXPECT_TRUE(analyzer::SameSourceFile("/x.py", "/x.py"));
  EXPECT_FALSE(analyzer::SameSourceFile("/src/mymodel.py", "model.py"));
  EXPECT_FALSE(analyzer::SameSourceFile("", "model.py"));
}

TEST(CallTreePeak, TheCliHangsAProgramOnATree) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("small.jaxpr"), kJaxpr));
  ASSERT_TRUE(test::WriteFile(dir.File("tree.txt"), kTree));
  const std::string tree = dir.File("tree.txt"), jaxpr = dir.File("small.jaxpr");
  const test::CommandResult text = test::RunCommand({MEMPLAN_BINARY, "calltree", tree, "--program", jaxpr}, dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Peak of "), std::string::npos) << text.out;
  const test::CommandResult json = test::RunCommand(
      {MEMPLAN_BINARY, "calltree", tree, "--program", jaxpr, "--format=json", "-o", dir.File("peak.json")}, dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::string written = test::ReadFileOrDie(dir.File("peak.json"));
  EXPECT_NE(written.find("\"program_peak\""), std::string::npos);
  EXPECT_NE(written.find("\"placed_bytes\": 8192"), std::string::npos) << written;
  EXPECT_EQ(test::RunCommand({MEMPLAN_BINARY, "calltree", tree, "--program", jaxpr, "--format=dot"}, dir.path()).exit_code,
            2);
  EXPECT_EQ(test::RunCommand({MEMPLAN_BINARY, "calltree", tree, "--program", dir.File("absent")}, dir.path()).exit_code,
            2);
}

}  // namespace
}  // namespace memplan
