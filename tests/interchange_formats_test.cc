// `memplan analyze --format=dot|svg|chrome-trace` on every sample: the DOT
// parses (Graphviz's own parser through libgvc, and the `dot` program when it
// is installed), the SVG is SVG and well-formed XML, the Chrome trace is JSON
// whose live-bytes counters at the peak step sum to the live peak and whose
// slices cover what is live there; all deterministic.
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis.h"
#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "parsers/load_program.h"
#include "tests/test_util.h"
#include "viz/chrome_trace.h"
#include "viz/dot_report.h"
#include "viz/svg_render.h"

namespace memplan {
namespace {

struct Loaded {
  parsers::LoadedProgram loaded;
  analyzer::Analysis analysis;
  const ir::Program& program() const { return loaded.program; }
};

Loaded Load(const test::Sample& sample) {
  parsers::LoadOptions options;
  options.module = sample.module;
  absl::StatusOr<parsers::LoadedProgram> loaded =
      parsers::LoadProgram(test::SourcePath(sample.path), options);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  Loaded out{*std::move(loaded), {}};
  out.analysis = analyzer::Analysis::Run(out.loaded.program, {});
  return out;
}

size_t CountOf(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

bool WellFormedXml(const std::string& xml) {
  xmlDoc* doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "out.svg", nullptr,
                              XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == nullptr) return false;
  xmlFreeDoc(doc);
  return true;
}

class InterchangeFormats : public testing::TestWithParam<test::Sample> {};

TEST_P(InterchangeFormats, DotParsesAndIsCapped) {
  const Loaded l = Load(GetParam());
  viz::DotOptions options;
  options.max_values = 5;
  const std::string dot = viz::RenderDot(l.program(), l.analysis, options);
  EXPECT_TRUE(dot.starts_with("digraph memplan {\n")) << dot;
  EXPECT_TRUE(dot.ends_with("}\n"));
  EXPECT_EQ(dot, viz::RenderDot(l.program(), l.analysis, options));  // deterministic

  const size_t candidates = l.analysis.peak ? l.analysis.peak->values.size()
                                            : l.program().values.size();
  const size_t drawn = CountOf(dot, "[shape=ellipse");
  EXPECT_EQ(drawn, std::min<size_t>(candidates, 5));
  EXPECT_EQ(CountOf(dot, "\"left out\" [shape=note"), candidates > 5 ? 1u : 0u);
  if (l.analysis.peak && l.analysis.peak->instruction.valid() && drawn > 0) {
    EXPECT_NE(dot.find("at the peak, step " + std::to_string(l.analysis.peak->step)),
              std::string::npos);
  }

  // Graphviz's own parser and layout accept it.
  absl::StatusOr<std::string> svg = viz::RenderSvgFromDot(dot);
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_TRUE(svg->starts_with("<?xml") || svg->starts_with("<svg")) << svg->substr(0, 100);
  EXPECT_TRUE(WellFormedXml(*svg));
  EXPECT_EQ(*svg, *viz::RenderSvgFromDot(dot));  // deterministic
}

TEST_P(InterchangeFormats, ChromeTraceCountersSumToThePeak) {
  const Loaded l = Load(GetParam());
  viz::ChromeTraceOptions options;
  options.max_values = 10;
  const std::string trace = viz::RenderChromeTrace(l.program(), l.analysis, options);
  EXPECT_EQ(trace, viz::RenderChromeTrace(l.program(), l.analysis, options));
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(trace);
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  const llvm::json::Array* events = json->getAsObject()->getArray("traceEvents");
  ASSERT_NE(events, nullptr);

  std::vector<std::pair<int64_t, int64_t>> counters;  // (ts, sum of series)
  std::map<int64_t, std::string> thread_names;
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> slices;  // tid -> [ts, end)
  bool process_named = false;
  for (const llvm::json::Value& e : *events) {
    const llvm::json::Object* o = e.getAsObject();
    ASSERT_NE(o, nullptr);
    const llvm::StringRef ph = o->getString("ph").getValueOr("");
    const llvm::StringRef name = o->getString("name").getValueOr("");
    ASSERT_EQ(o->getInteger("pid"), int64_t{1});
    if (ph == "M" && name == "process_name") process_named = true;
    if (ph == "M" && name == "thread_name") {
      thread_names[*o->getInteger("tid")] =
          o->getObject("args")->getString("name").getValueOr("").str();
    }
    if (ph == "C") {
      ASSERT_EQ(name, "live bytes");
      int64_t sum = 0;
      for (const auto& [key, value] : *o->getObject("args")) sum += *value.getAsInteger();
      counters.emplace_back(*o->getInteger("ts"), sum);
    }
    if (ph == "X") {
      const int64_t ts = *o->getInteger("ts");
      const int64_t dur = *o->getInteger("dur");
      ASSERT_GE(dur, 1);
      slices[*o->getInteger("tid")].emplace_back(ts, ts + dur);
      if (*o->getInteger("tid") != 0) {
        const llvm::json::Object* args = o->getObject("args");
        ASSERT_NE(args, nullptr);
        for (const char* key : {"shape", "size", "op_name", "source"}) {
          EXPECT_NE(args->get(key), nullptr) << key;
        }
      }
    }
  }
  EXPECT_TRUE(process_named);
  for (const auto& [tid, ranges] : slices) {
    EXPECT_TRUE(thread_names.count(tid)) << "track " << tid << " has no name";
    std::vector<std::pair<int64_t, int64_t>> sorted = ranges;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 1; i < sorted.size(); ++i) {
      EXPECT_LE(sorted[i - 1].second, sorted[i].first) << "overlapping slices on track " << tid;
    }
  }

  if (!l.analysis.peak) {
    EXPECT_TRUE(counters.empty());
    return;
  }
  const analyzer::LivePeak& peak = *l.analysis.peak;
  // The counters at the peak step: the last change at or before it.
  ASSERT_FALSE(counters.empty());
  EXPECT_TRUE(std::is_sorted(counters.begin(), counters.end()));
  int64_t at_peak = -1;
  int64_t max_sum = 0;
  for (const auto& [ts, sum] : counters) {
    if (ts <= peak.step) at_peak = sum;
    max_sum = std::max(max_sum, sum);
  }
  EXPECT_EQ(at_peak, peak.bytes);
  EXPECT_EQ(max_sum, peak.bytes);
  // Every value live at the peak has a slice over the peak step.
  size_t live_slices = 0;
  for (const auto& [tid, ranges] : slices) {
    if (tid == 0) continue;
    for (const auto& [begin, end] : ranges) {
      if (begin <= peak.step && peak.step < end) ++live_slices;
    }
  }
  EXPECT_EQ(live_slices, peak.values.size());
}

INSTANTIATE_TEST_SUITE_P(Samples, InterchangeFormats, testing::ValuesIn(test::AllSamples()),
                         test::SampleName());

// ---------------------------------------------------------------------------
// Through the binary.

test::CommandResult Memplan(std::vector<std::string> args) {
  args.insert(args.begin(), MEMPLAN_BINARY);
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

constexpr const char* kSeed = "samples/xla/seed004_gpu_decode-buffer-assignment.txt";

// Inputs without live ranges (reports, OOM messages) have values without
// instruction names and no peak: no node may claim to be at the peak (this
// once read a peak that was not there).
TEST(InterchangeFormats, DotWithoutAPeakMarksNoPeak) {
  for (const char* path : {"samples/reports/seed004_gpu_decode-memory-usage-report.txt",
                           "samples/reports/gpt_train_step-oom-gpu.txt"}) {
    SCOPED_TRACE(path);
    const Loaded l = Load({path, path, "", false});
    ASSERT_FALSE(l.analysis.peak.has_value());
    const std::string dot = viz::RenderDot(l.program(), l.analysis, {});
    EXPECT_EQ(dot.find("at the peak"), std::string::npos) << dot;
    EXPECT_EQ(dot, viz::RenderDot(l.program(), l.analysis, {}));
  }
}

TEST(InterchangeCli, SvgIsSvgAndDeterministic) {
  test::TempDir dir;
  const test::CommandResult r = Memplan({"analyze", kSeed, "--format=svg", "-o", dir.File("a.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = test::ReadFileOrDie(dir.File("a.svg"));
  EXPECT_TRUE(svg.starts_with("<?xml") || svg.starts_with("<svg")) << svg.substr(0, 100);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_TRUE(WellFormedXml(svg));
  const test::CommandResult again = Memplan({"analyze", kSeed, "--format=svg"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, svg);
  EXPECT_EQ(dir.List(), std::vector<std::string>{"a.svg"});
}

TEST(InterchangeCli, TopCapsTheGraph) {
  const test::CommandResult r = Memplan({"analyze", kSeed, "--format=dot", "--top=3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountOf(r.out, "[shape=ellipse"), 3u);
  EXPECT_NE(r.out.find("more values live at the peak not shown"), std::string::npos);
}

TEST(InterchangeCli, DotProgramAcceptsTheDot) {
  std::string dot_program;
  for (const char* candidate : {"/usr/bin/dot", "/usr/local/bin/dot"}) {
    if (test::FileExists(candidate)) dot_program = candidate;
  }
  if (dot_program.empty()) GTEST_SKIP() << "the graphviz 'dot' program is not installed";
  test::TempDir dir;
  test::CommandResult r =
      Memplan({"analyze", kSeed, "--format=dot", "-o", dir.File("graph.dot")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::RunCommand({dot_program, "-Tsvg", dir.File("graph.dot"), "-o", dir.File("graph.svg")},
                       dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(test::ReadFileOrDie(dir.File("graph.svg")).find("</svg>"), std::string::npos);
}

TEST(InterchangeCli, ChromeTraceIsJsonAndFailuresLeaveNoFile) {
  test::TempDir dir;
  test::CommandResult r =
      Memplan({"analyze", kSeed, "--format=chrome-trace", "-o", dir.File("trace.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(test::ReadFileOrDie(dir.File("trace.json")));
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  EXPECT_NE(json->getAsObject()->getArray("traceEvents"), nullptr);

  for (const char* format : {"dot", "svg", "chrome-trace"}) {
    r = Memplan({"analyze", "no/such/file", std::string("--format=") + format, "-o",
                 dir.File("out")});
    EXPECT_EQ(r.exit_code, 2) << format;
  }
  EXPECT_EQ(dir.List(), std::vector<std::string>{"trace.json"});
}

}  // namespace
}  // namespace memplan
