// Output injection (issue 14): a dump whose module name, source path,
// function names and op_names hold markup, quotes, backslashes, "]]>", a
// comment opener, control characters (escape sequences too) and invalid
// UTF-8 goes through every view the memplan binary writes. Each output must
// be well-formed for its format, checked by parsers: JSON by llvm::json, XML
// (JUnit, SVG) by libxml2 and by fuzz/markup_check.h's strict XML check, DOT
// and HTML by markup_check.h, text views free of control characters (no
// terminal escapes). The hostile text must reach each output (else nothing
// was tested), and the HTML page must have exactly the <script> elements a
// page of harmless names has: nothing executable came in with the names.
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include <libxml/parser.h>

#include "fuzz/markup_check.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using test::CommandResult;

constexpr char kStem[] = "jit_mlp_train_step.cpu_after_optimizations";
constexpr const char* kSuffixes[] = {"-buffer-assignment.txt", "-buffer-assignment-values.txt",
                                     "-live-range.txt", ".txt"};
constexpr char kSampleDir[] = "samples/jax/mlp_train_step/";

// The hostile text, without '/' (it is also a file name) and newline.
constexpr char kHostileBytes[] =
    "<img src=x onerror=alert(1)> \" ' \\ ]]> &amp; <!-- -- ; \x01\x1b[31m\x7f \xff\xc0\xaf "
    "\xed\xa0\x80 caf\xc3\xa9 end";
const std::string kHostile(kHostileBytes, sizeof(kHostileBytes) - 1);

// `text` as an HLO string literal's body: quotes and backslashes escaped,
// bytes outside printable ASCII as \xHH.
std::string HloEscape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7F) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

void ReplaceAll(std::string& text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// Copies the sample dump into `dir` under module stem `stem`; when
// `hostile`, the module text's file, function and op names carry kHostile
// (op names with a newline too: a view may print one per line).
void WriteDump(const test::TempDir& dir, const std::string& stem, bool hostile) {
  for (const char* suffix : kSuffixes) {
    std::string text = test::ReadFileOrDie(test::SourcePath(std::string(kSampleDir) + kStem + suffix));
    if (hostile && std::string_view(suffix) == ".txt") {
      const std::string h = HloEscape(kHostile);
      ReplaceAll(text, "\"scripts/gen_jax_samples.py\"", "\"" + h + "/x.py\"");
      ReplaceAll(text, "\"main\"", "\"" + h + "\"");
      ReplaceAll(text, "op_name=\"jit(mlp_train_step)", "op_name=\"" + h + "\\n/jit(mlp_train_step)");
    }
    ASSERT_TRUE(test::WriteFile(dir.File(stem + suffix), text));
  }
}

CommandResult Memplan(std::vector<std::string> args) {
  args.insert(args.begin(), {"/usr/bin/timeout", "60", MEMPLAN_BINARY});
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

std::string Describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstderr: " + r.err.substr(0, 2000);
}

bool LibXmlParses(const std::string& xml) {
  xmlDocPtr doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "x.xml", nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == nullptr) return false;
  xmlFreeDoc(doc);
  return true;
}

size_t Count(std::string_view text, std::string_view needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// The names of the elements a page opens ("<name"), each once.
std::set<std::string> TagNames(std::string_view html) {
  std::set<std::string> names;
  for (size_t at = html.find('<'); at != std::string_view::npos; at = html.find('<', at + 1)) {
    size_t end = at + 1;
    while (end < html.size() && std::isalnum(static_cast<unsigned char>(html[end]))) ++end;
    if (end > at + 1) names.insert(std::string(html.substr(at + 1, end - at - 1)));
  }
  return names;
}

#define EXPECT_NO_PROBLEM(problem, output)                                  \
  do {                                                                      \
    const std::optional<std::string> p = (problem);                         \
    EXPECT_FALSE(p.has_value()) << *p << "\n" << (output).substr(0, 4000); \
  } while (0)

class OutputInjection : public ::testing::Test {
 protected:
  void SetUp() override {
    stem_ = "jit_" + kHostile + ".cpu_after_optimizations";
    WriteDump(dir_, stem_, true);
    WriteDump(benign_dir_, kStem, false);
  }
  std::string Dump() const { return dir_.File(stem_ + "-buffer-assignment.txt"); }

  test::TempDir dir_;
  test::TempDir benign_dir_;
  std::string stem_;
};

TEST_F(OutputInjection, TextViewsHaveNoControlCharacters) {
  for (const char* by : {"op", "source", "type"}) {
    SCOPED_TRACE(by);
    CommandResult r = Memplan({"analyze", Dump(), std::string("--by=") + by});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_NO_PROBLEM(fuzz::TextProblem(r.out), r.out);
    EXPECT_NE(r.out.find("onerror"), std::string::npos) << r.out;
  }
  // Folded stacks: one "frame;frame;... bytes" line per stack.
  CommandResult r = Memplan({"analyze", Dump(), "--format=folded"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NO_PROBLEM(fuzz::TextProblem(r.out), r.out);
  EXPECT_NE(r.out.find("onerror"), std::string::npos) << r.out;
  size_t start = 0;
  while (start < r.out.size()) {
    const size_t end = r.out.find('\n', start);
    ASSERT_NE(end, std::string::npos);
    const std::string line = r.out.substr(start, end - start);
    const size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    EXPECT_EQ(line.find_first_not_of("0123456789", space + 1), std::string::npos) << line;
    start = end + 1;
  }
}

TEST_F(OutputInjection, JsonAndChromeTraceParse) {
  for (const char* format : {"json", "chrome-trace"}) {
    SCOPED_TRACE(format);
    CommandResult r = Memplan({"analyze", Dump(), std::string("--format=") + format});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_NO_PROBLEM(fuzz::JsonProblem(r.out), r.out);
    EXPECT_NE(r.out.find("onerror"), std::string::npos);
  }
}

TEST_F(OutputInjection, DotAndSvgAreWellFormed) {
  CommandResult dot = Memplan({"analyze", Dump(), "--format=dot"});
  ASSERT_EQ(dot.exit_code, 0) << Describe(dot);
  EXPECT_NO_PROBLEM(fuzz::DotProblem(dot.out), dot.out);
  EXPECT_NE(dot.out.find("onerror"), std::string::npos);
  CommandResult svg = Memplan({"analyze", Dump(), "--format=svg"});
  ASSERT_EQ(svg.exit_code, 0) << Describe(svg);
  EXPECT_NO_PROBLEM(fuzz::XmlProblem(svg.out), svg.out);
  EXPECT_TRUE(LibXmlParses(svg.out)) << svg.out.substr(0, 4000);
  EXPECT_EQ(svg.out.find("<img"), std::string::npos);
  EXPECT_EQ(svg.out.find("<script"), std::string::npos);
  EXPECT_NE(svg.out.find("onerror"), std::string::npos);
}

TEST_F(OutputInjection, HtmlReportIsWellFormedAndRunsNothingNew) {
  for (const char* by : {"op", "source"}) {
    SCOPED_TRACE(by);
    const std::string page = dir_.File("page.html");
    CommandResult r = Memplan({"report", Dump(), std::string("--by=") + by, "-o", page});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    const std::string html = test::ReadFileOrDie(page);
    EXPECT_NO_PROBLEM(fuzz::HtmlProblem(html), html);
    EXPECT_NE(html.find("onerror"), std::string::npos);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    const std::string benign_page = benign_dir_.File("page.html");
    CommandResult b = Memplan({"report",
                               benign_dir_.File(std::string(kStem) + "-buffer-assignment.txt"),
                               std::string("--by=") + by, "-o", benign_page});
    ASSERT_EQ(b.exit_code, 0) << Describe(b);
    const std::string benign = test::ReadFileOrDie(benign_page);
    EXPECT_NO_PROBLEM(fuzz::HtmlProblem(benign), benign);
    EXPECT_EQ(Count(html, "<script"), Count(benign, "<script"));
    // The names may add rows and tree levels, never a kind of element.
    EXPECT_EQ(TagNames(html), TagNames(benign)) << "tags came in with the names";
  }
}

TEST_F(OutputInjection, CheckTextAndJUnitAreWellFormed) {
  ASSERT_TRUE(test::WriteFile(dir_.File("b.yaml"), "\"*\":\n  peak: 1000\n  temp: 1000\n"));
  const std::string junit_path = dir_.File("junit.xml");
  CommandResult r =
      Memplan({"check", Dump(), "--budget", dir_.File("b.yaml"), "--junit", junit_path});
  ASSERT_EQ(r.exit_code, 1) << Describe(r);  // the budgets fail, with messages
  EXPECT_NO_PROBLEM(fuzz::TextProblem(r.out), r.out);
  const std::string junit = test::ReadFileOrDie(junit_path);
  EXPECT_NO_PROBLEM(fuzz::XmlProblem(junit), junit);
  EXPECT_TRUE(LibXmlParses(junit)) << junit;
  EXPECT_NE(junit.find("onerror"), std::string::npos) << junit;
  EXPECT_EQ(junit.find("<img"), std::string::npos);
}

// The predictor's views: the single plan's text and JSON, and a sweep's
// table (the module's name, from the hostile stem, heads each).
TEST_F(OutputInjection, PredictViewsAreWellFormed) {
  const std::string plan = dir_.File("p.yaml");
  ASSERT_TRUE(test::WriteFile(plan, "mesh: {dp: 2}\narguments: {x: [dp, null]}\n"));
  CommandResult text = Memplan({"predict", Dump(), "--plan", plan});
  ASSERT_EQ(text.exit_code, 0) << Describe(text);
  EXPECT_NO_PROBLEM(fuzz::TextProblem(text.out), text.out);
  EXPECT_NE(text.out.find("onerror"), std::string::npos) << text.out;
  CommandResult json = Memplan({"predict", Dump(), "--plan", plan, "--format=json"});
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  EXPECT_NO_PROBLEM(fuzz::JsonProblem(json.out), json.out);
  CommandResult sweep = Memplan({"predict", Dump(), "--plans", plan, plan});
  ASSERT_EQ(sweep.exit_code, 0) << Describe(sweep);
  EXPECT_NO_PROBLEM(fuzz::TextProblem(sweep.out), sweep.out);
}

// Errors on stderr quote the input: here a plan's argument pattern (an
// escape sequence, from a JSON escape) and the program's argument names (the
// hostile op_names). Neither may reach the terminal as control characters or
// invalid UTF-8.
TEST_F(OutputInjection, ErrorMessagesHaveNoControlCharacters) {
  const std::string plan = dir_.File("p.json");
  ASSERT_TRUE(test::WriteFile(
      plan, "{\"mesh\": {\"dp\": 2}, \"arguments\": {\"\\u001b[31m<x>\\u0007\": [\"dp\", null]}}\n"));
  CommandResult r = Memplan({"predict", Dump(), "--plan", plan});
  ASSERT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("[31m<x>"), std::string::npos) << r.err;
  EXPECT_NO_PROBLEM(fuzz::TextProblem(r.err), r.err);
}

// The checker itself: each rule rejects what it should (else the tests
// above could pass on a checker that accepts anything).
TEST(MarkupCheck, RejectsMalformedDocuments) {
  EXPECT_FALSE(fuzz::TextProblem("caf\xc3\xa9\n\t"));
  EXPECT_TRUE(fuzz::TextProblem("a\x1b[31m"));
  EXPECT_TRUE(fuzz::TextProblem("\xc0\xaf"));
  EXPECT_TRUE(fuzz::TextProblem("\xed\xa0\x80"));
  EXPECT_FALSE(fuzz::XmlProblem("<?xml version=\"1.0\"?>\n<a b=\"&amp;&#x41;\"><c/>t</a>\n"));
  for (const char* bad : {"<a><b></a></b>", "<a b=\"<\"/>", "<a>&nbsp;</a>", "<a>]]></a>",
                          "<a b=\"1\" b=\"2\"/>", "<a/><b/>", "<a>&#1;</a>", "<a>\x01</a>",
                          "<a><!-- -- --></a>", "<a>", "text", "<a>&</a>"}) {
    EXPECT_TRUE(fuzz::XmlProblem(bad)) << bad;
  }
  EXPECT_FALSE(fuzz::HtmlProblem(
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><script>var a=\"<\\/b>\";</script>"
      "</head><body><p hidden>&lt;&nbsp;</p><svg><line x1=\"0\"/></svg></body></html>"));
  for (const char* bad : {"<html></html>", "<!DOCTYPE html><p onclick=\"x\"></p>",
                          "<!DOCTYPE html><a href=\" javascript:x\"></a>",
                          "<!DOCTYPE html><p>a < b</p>", "<!DOCTYPE html><p></div>",
                          "<!DOCTYPE html><script>\"</b>\"</script>",
                          "<!DOCTYPE html><script><!--</script>", "<!DOCTYPE html><p>\x7f</p>"}) {
    EXPECT_TRUE(fuzz::HtmlProblem(bad)) << bad;
  }
  EXPECT_FALSE(fuzz::DotProblem("digraph g {\n  \"a\\\"b\" -> c [label=\"x\"];\n}\n"));
  for (const char* bad : {"digraph g {", "digraph g { \"a }", "digraph g { a [label=<b>] }",
                          "digraph g { \"a\n\" }", "digraph g { ] }", "digraph g {} x",
                          "graph { /* c }", "digraph g { \"\xff\" }"}) {
    EXPECT_TRUE(fuzz::DotProblem(bad)) << bad;
  }
  EXPECT_FALSE(fuzz::JsonProblem("{\"a\": [1, \"\\u0001\"]}"));
  EXPECT_TRUE(fuzz::JsonProblem("{\"a\": }"));
}

}  // namespace
}  // namespace memplan
