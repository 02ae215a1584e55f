// The HTML report (viz/html_report.h): escaping, the sections on real
// samples, determinism, nothing fetched from the network, and scale: a
// generated program of 1,000,000 values gives a bounded page that says what
// it sampled. (tests/html_report_test.sh renders the samples in headless
// Chromium.)
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "gtest/gtest.h"
#include "ir/program.h"
#include "ir/strings.h"
#include "parsers/load_program.h"
#include "viz/html_page.h"
#include "viz/describe.h"
#include "viz/html_report.h"
#include "viz/svg.h"

namespace memplan::viz {
namespace {

std::string Source(std::string_view relative) {
  return StrCat(MEMPLAN_SOURCE_DIR, "/", relative);
}

size_t CountOf(const std::string& haystack, std::string_view needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// Nothing on the page may point anywhere: no URLs, no src=, no url(...).
void ExpectSelfContained(const std::string& html) {
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<iframe"), std::string::npos);
}

// Every opened element of these kinds is closed.
void ExpectBalanced(const std::string& html) {
  for (std::string_view tag : {"section", "svg", "table", "details", "script", "tr", "g"}) {
    EXPECT_EQ(CountOf(html, StrCat("<", tag, ">")) + CountOf(html, StrCat("<", tag, " ")),
              CountOf(html, StrCat("</", tag, ">")))
        << tag;
  }
}

// With MEMPLAN_HTML_KEEP=DIR set, writes `html` to DIR/NAME.html to look at.
void MaybeKeep(std::string_view name, const std::string& html) {
  const char* dir = std::getenv("MEMPLAN_HTML_KEEP");
  if (dir == nullptr) return;
  const std::string path = StrCat(dir, "/", name, ".html");
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(html.data(), 1, html.size(), f);
    std::fclose(f);
  }
}

struct Rendered {
  parsers::LoadedProgram loaded;
  std::string html;
};

Rendered RenderSample(const std::string& relative, const HtmlReportLimits& limits = {}) {
  absl::StatusOr<parsers::LoadedProgram> loaded =
      parsers::LoadProgram(Source(relative), parsers::LoadOptions{});
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return {};
  analyzer::Analysis::Options options;
  options.top_n = limits.table_rows;
  const analyzer::Analysis analysis = analyzer::Analysis::Run(loaded->program, options);
  std::string html = RenderHtmlReport({loaded->program, analysis, viz::DescribeModuleChoice(*loaded), limits});
  return {std::move(*loaded), std::move(html)};
}

TEST(HtmlPage, EscapesText) {
  EXPECT_EQ(HtmlEscape("a<b>&\"c\"'d'\ne"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;&#10;e");
  EXPECT_EQ(JsonStringForScript("</script>\"\\\n"),
            "\"\\u003c/script\\u003e\\\"\\\\\\n\"");
  // Controls as \u escapes, DEL too (JSON allows it raw; HTML does not).
  EXPECT_EQ(JsonStringForScript("a\x01\x1b\x7f"), "\"a\\u0001\\u001b\\u007f\"");
}

TEST(HtmlPage, ListsSectionsInOrder) {
  HtmlPage page;
  page.title = "t <1>";
  page.sections.push_back({"one", "First", "<p>1</p>"});
  page.sections.push_back({"two", "Second", "<p>2</p>"});
  const std::string html = RenderHtmlPage(page);
  EXPECT_NE(html.find("<title>t &lt;1&gt;</title>"), std::string::npos);
  EXPECT_LT(html.find("<section id=\"one\">"), html.find("<section id=\"two\">"));
  EXPECT_NE(html.find("<a href=\"#two\">Second</a>"), std::string::npos);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  ExpectSelfContained(html);
}

TEST(Svg, NumbersAndTicks) {
  EXPECT_EQ(SvgNumber(12.0), "12");
  EXPECT_EQ(SvgNumber(12.04), "12");
  EXPECT_EQ(SvgNumber(12.06), "12.1");
  EXPECT_EQ(SvgNumber(-0.01), "0");
  EXPECT_EQ(NiceTicks(166, 10), (std::vector<int64_t>{0, 20, 40, 60, 80, 100, 120, 140, 160}));
  EXPECT_EQ(NiceByteTicks(3 << 20, 3),
            (std::vector<int64_t>{0, 1 << 20, 2 << 20, 3 << 20}));
  EXPECT_EQ(AxisBytes(0), "0");
  EXPECT_EQ(AxisBytes(512), "512 B");
  EXPECT_EQ(AxisBytes(1536), "1.5 KiB");
  EXPECT_EQ(AxisBytes(256 << 20), "256 MiB");
  EXPECT_EQ(PaletteColor("fusion.1"), PaletteColor("fusion.1"));
}

TEST(HtmlPage, ElidesInTheMiddle) {
  EXPECT_EQ(HtmlElideMiddle("short", 10), "short");
  EXPECT_EQ(HtmlElideMiddle("abcdefghijklmnop", 9), "abcd\xE2\x80\xA6mnop");
  // Counted in code points: a multi-byte character is never cut.
  EXPECT_EQ(HtmlElideMiddle("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3),
            "\xC3\xA9\xE2\x80\xA6\xC3\xA9");
  EXPECT_EQ(ElidedHtml("a<b>cdefghij", 5), "<span title=\"a&lt;b&gt;cdefghij\">a&lt;\xE2\x80\xA6ij</span>");
  EXPECT_EQ(ElidedHtml("a<b", 5), "a&lt;b");
}

TEST(Svg, TicksInRangeAndPlacedLabels) {
  // 1 GiB to 1.5 GiB: NiceByteTicks' step for 512 MiB in 5 (200 MiB), from
  // its first multiple in the range.
  const int64_t mib = 1 << 20;
  EXPECT_EQ(NiceByteTicks(512 * mib, 5), (std::vector<int64_t>{0, 200 * mib, 400 * mib}));
  EXPECT_EQ(NiceByteTicksInRange(1024 * mib, 1536 * mib, 5),
            (std::vector<int64_t>{1200 * mib, 1400 * mib}));
  EXPECT_TRUE(NiceByteTicksInRange(5, 5, 5).empty());
  // Three labels at nearly the same x go to three rows; a fourth finds none.
  std::string out;
  const std::vector<size_t> unplaced = AppendPlacedLabels(
      out, {{100, "first label", ""}, {102, "second label", ""}, {104, "third", ""}, {106, "x", ""}},
      {10, 20, 30}, 0, 1000);
  EXPECT_EQ(unplaced, std::vector<size_t>{3});
  EXPECT_NE(out.find("y=\"10\""), std::string::npos);
  EXPECT_NE(out.find("y=\"20\""), std::string::npos);
  EXPECT_NE(out.find("y=\"30\""), std::string::npos);
  // Near the right edge a label ends at its marker instead.
  out.clear();
  AppendPlacedLabels(out, {{990, "late", ""}}, {10}, 0, 1000);
  EXPECT_NE(out.find("x=\"" + SvgNumber(990 - 6 - EstimatedTextWidth("late")) + "\""),
            std::string::npos);
}

TEST(HtmlReport, TimelineShowsBothPeaksAndTheBaselineToggle) {
  const Rendered r = RenderSample("samples/jax/mlp_train_step");
  const std::string& html = r.html;
  // XLA's live peak as the dump's own peak list states it: step 29,
  // 4,430,856 bytes (4.23 MiB).
  EXPECT_NE(html.find("XLA&#39;s live peak 4.23 MiB at step 29 (sizes added)"), std::string::npos);
  // The headline: the occupied peak, which the dump's total allocation
  // (4,203,636 bytes) bounds.
  EXPECT_NE(html.find("peak 3.73 MiB at step 32"), std::string::npos);
  EXPECT_NE(html.find("class=\"added\""), std::string::npos);
  EXPECT_NE(html.find("id=\"timeline-zoom\""), std::string::npos);
  EXPECT_NE(html.find("class=\"timeline zoomed\""), std::string::npos);
  ExpectBalanced(html);
}

TEST(HtmlReport, AllocationMapAxisCoversTheAllocationsLife) {
  const Rendered r = RenderSample("samples/xla/seed004_gpu_decode-buffer-assignment.txt");
  const ir::Program& program = r.loaded.program;
  const ir::Allocation* arena = program.FindAllocation(ir::AllocationId(53));
  ASSERT_NE(arena, nullptr);
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (ir::ValueId id : arena->values) {
    const ir::Value* v = program.FindValue(id);
    if (v == nullptr || !v->live_range) continue;
    first = std::min<int64_t>(first, v->live_range->start);
    last = std::max<int64_t>(last, v->live_range->end);
  }
  ASSERT_LT(first, last);
  EXPECT_NE(r.html.find(StrCat("Live from step ", first, " to step ", last, " (the x axis)")),
            std::string::npos);
  // A legend over every map.
  EXPECT_EQ(CountOf(r.html, "<svg class=\"allocation-map\""),
            CountOf(r.html, "fill: what defined each value"));
}

TEST(HtmlReport, Seed004HasEverySection) {
  const Rendered r = RenderSample("samples/xla/seed004_gpu_decode-buffer-assignment.txt");
  const std::string& html = r.html;
  for (std::string_view id : {"summary", "timeline", "allocation-map", "peak-values",
                              "attribution", "temp-arena", "allocations", "notes"}) {
    EXPECT_NE(html.find(StrCat("<section id=\"", id, "\">")), std::string::npos) << id;
  }
  // Summary numbers, as `memplan analyze` prints them.
  EXPECT_NE(html.find("1,093,622,736"), std::string::npos);          // total allocation
  EXPECT_NE(html.find("1,092,637,220"), std::string::npos);          // live peak
  EXPECT_NE(html.find("equals the dump&#39;s &#39;Total bytes used&#39;"), std::string::npos);
  EXPECT_NE(html.find("the same peak"), std::string::npos);
  EXPECT_NE(html.find("exactly that list"), std::string::npos);
  EXPECT_NE(html.find("peak 1.02 GiB at step 158 (tuple)"), std::string::npos);
  // The timeline's tooltip data: every schedule step's name.
  EXPECT_NE(html.find("\"bucketed\":false"), std::string::npos);
  // Allocation maps: the temp arena (53) and the two output allocations
  // holding several values.
  EXPECT_NE(html.find("Allocation 53 (temp arena)"), std::string::npos);
  EXPECT_NE(html.find("Allocation 3 (output)"), std::string::npos);
  EXPECT_NE(html.find("p5.32.0"), std::string::npos);
  EXPECT_NE(html.find("bf16[151936,1024]{1,0}"), std::string::npos);
  EXPECT_NE(html.find("<details open>"), std::string::npos);
  // Nothing small was sampled.
  EXPECT_EQ(html.find("class=\"notice\""), std::string::npos);
  ExpectSelfContained(html);
  ExpectBalanced(html);
}

TEST(HtmlReport, JaxSampleSaysWhyThePeakStepsDiffer) {
  const Rendered r = RenderSample("samples/jax/transformer_block_f32");
  EXPECT_NE(r.html.find("another step"), std::string::npos);
  EXPECT_NE(r.html.find("the dump&#39;s peak list: step 54"), std::string::npos);
  ExpectSelfContained(r.html);
  ExpectBalanced(r.html);
}

TEST(HtmlReport, SameInputSameBytes) {
  const std::string path = "samples/jax/scan_loop";
  EXPECT_EQ(RenderSample(path).html, RenderSample(path).html);
}

TEST(HtmlReport, SmallLimitsSaySoOnThePage) {
  HtmlReportLimits limits;
  limits.map_rects = 10;
  limits.map_panels = 1;
  limits.table_rows = 5;
  limits.timeline_columns = 20;
  limits.schedule_names = 10;
  limits.attribution_children = 1;
  const Rendered r = RenderSample("samples/xla/seed004_gpu_decode-buffer-assignment.txt", limits);
  const std::string& html = r.html;
  MaybeKeep("small_limits", html);
  EXPECT_NE(html.find("showing the 10 largest of 52 values as rectangles; the other 42"),
            std::string::npos);
  EXPECT_NE(html.find("showing 1 of 5 allocations that hold several values: temp arenas first"),
            std::string::npos);
  EXPECT_NE(html.find("showing the 5 largest of 50 values"), std::string::npos);
  EXPECT_NE(html.find("showing the 5 largest of 54 allocations"), std::string::npos);
  EXPECT_NE(html.find("drawn as 19 columns of up to 9 steps"), std::string::npos);
  EXPECT_NE(html.find("\"bucketed\":true"), std::string::npos);
  EXPECT_NE(html.find("\"names_per_row\":true"), std::string::npos);
  EXPECT_NE(html.find("showing at most 1 child per node"), std::string::npos);
  // The peak survives the bucketing.
  EXPECT_NE(html.find("peak 1.02 GiB at step 158"), std::string::npos);
  ExpectBalanced(html);
}

TEST(HtmlReport, WithoutLiveRanges) {
  ir::Program program;
  program.module_name = "no_ranges";
  program.input_format = "buffer-assignment";
  ir::Allocation a;
  a.id = ir::AllocationId(0);
  a.size = 1024;
  a.is_preallocated_temp = true;
  for (int i = 0; i < 3; ++i) {
    ir::Value v;
    v.id = ir::ValueId(i);
    ir::Instruction instruction;
    instruction.name = program.Intern(StrCat("fusion.", i, "<&>"));
    v.instruction = program.module.AddInstruction(instruction);
    v.size = 256;
    v.offset = 256 * i;
    v.allocation = a.id;
    a.values.push_back(v.id);
    program.values.push_back(v);
  }
  program.allocations.push_back(a);
  const analyzer::Analysis analysis = analyzer::Analysis::Run(program, {});
  const std::string html = RenderHtmlReport({program, analysis, "", {}});
  EXPECT_NE(html.find("Not available: the input has no live ranges"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("fusion.0&lt;&amp;&gt;"), std::string::npos);
  EXPECT_EQ(html.find("fusion.0<&>"), std::string::npos);
  ExpectBalanced(html);
}

// A synthetic program of `n` values: a parameter and an output live
// throughout, and n temporaries in one temp arena, four defined per step
// (as elements of one tuple), each live for up to 96 steps.
ir::Program MillionValueProgram(int64_t n) {
  ir::Program program;
  program.module_name = "synthetic_million";
  program.input_format = "buffer-assignment";
  program.source_files = {"generated"};
  const int64_t steps = n / 4 + 2;
  std::vector<std::string_view> op_names, op_types = {program.Intern("dot"),
                                                      program.Intern("add"),
                                                      program.Intern("reduce")};
  for (int layer = 0; layer < 48; ++layer) {
    for (int op = 0; op < 12; ++op) {
      op_names.push_back(program.Intern(StrCat("jit(train)/layer_", layer, "/op_", op)));
    }
  }
  const std::string_view source = program.Intern("model.py");
  program.schedule.instructions.reserve(steps);
  for (int64_t s = 0; s < steps; ++s) {
    ir::Instruction instruction;
    instruction.name = program.Intern(StrCat("fusion.", s));
    instruction.opcode = ir::Opcode::kFusion;
    instruction.opcode_text = "fusion";
    ir::OpMetadata metadata;
    metadata.op_type = op_types[s % op_types.size()];
    metadata.op_name = op_names[s % op_names.size()];
    metadata.source_file = source;
    metadata.source_line = static_cast<int64_t>(s % 2000) + 1;
    instruction.metadata = program.module.StoreMetadata(metadata);
    program.schedule.instructions.push_back(program.module.AddInstruction(instruction));
  }
  program.schedule.max_time = steps - 1;
  program.has_live_ranges = true;

  ir::Allocation param;
  param.id = ir::AllocationId(0);
  param.size = 64 << 20;
  param.parameter_number = 0;
  ir::Allocation temp;
  temp.id = ir::AllocationId(1);
  temp.size = int64_t{1024} * 65536;
  temp.is_preallocated_temp = true;
  ir::Allocation output;
  output.id = ir::AllocationId(2);
  output.size = 1 << 20;
  output.maybe_live_out = true;

  program.values.reserve(n + 2);
  auto add = [&](ir::Allocation& a, ir::InstructionId instruction, ir::ShapeIndex index,
                 int64_t size, int64_t offset, ir::LiveRange range) {
    ir::Value v;
    v.id = ir::ValueId(static_cast<int64_t>(program.values.size()));
    v.instruction = instruction;
    v.index = std::move(index);
    v.size = size;
    v.offset = offset;
    v.allocation = a.id;
    v.live_range = range;
    v.shape_text = "f32[...]";
    a.values.push_back(v.id);
    program.values.push_back(std::move(v));
  };
  add(param, program.schedule.instructions[0], {}, param.size, 0, {0, steps - 1});
  uint64_t x = 88172645463325252ULL;  // xorshift: the same program every run
  for (int64_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int64_t start = i / 4;
    const int64_t size = 256 * (1 + static_cast<int64_t>(x % 256));
    add(temp, program.schedule.instructions[start], {i % 4}, size, (i % 1024) * 65536,
        {start, std::min(steps - 2, start + static_cast<int64_t>((x >> 20) % 64))});
  }
  add(output, program.schedule.instructions[steps - 1], {}, output.size, 0,
      {steps - 1, steps - 1});
  program.allocations = {param, temp, output};
  return program;
}

TEST(HtmlReport, MillionValuesStayBounded) {
  constexpr int64_t kValues = 1000000;
  const ir::Program program = MillionValueProgram(kValues);
  ASSERT_EQ(program.values.size(), static_cast<size_t>(kValues + 2));
  const auto t0 = std::chrono::steady_clock::now();
  analyzer::Analysis::Options options;
  options.top_n = 100;
  const analyzer::Analysis analysis = analyzer::Analysis::Run(program, options);
  const auto t1 = std::chrono::steady_clock::now();
  const std::string html = RenderHtmlReport({program, analysis, "", {}});
  const auto t2 = std::chrono::steady_clock::now();
  std::fprintf(stderr, "analysis %.2f s, render %.2f s, page %zu bytes\n",
               std::chrono::duration<double>(t1 - t0).count(),
               std::chrono::duration<double>(t2 - t1).count(), html.size());

  MaybeKeep("million", html);
  EXPECT_LT(html.size(), size_t{5} << 20);
  EXPECT_NE(html.find("showing the 2,000 largest of 1,000,000 values as rectangles; the other "
                      "998,000"),
            std::string::npos);
  EXPECT_NE(html.find("drawn as 1,197 columns of up to 209 steps"), std::string::npos);
  EXPECT_NE(html.find("the schedule has 250,002 instructions"), std::string::npos);
  EXPECT_NE(html.find("showing the 100 largest of"), std::string::npos);  // peak table
  EXPECT_NE(html.find("density grid"), std::string::npos);
  // Bounded drawing: rectangles, table rows and tree nodes.
  EXPECT_LT(CountOf(html, "<rect"), size_t{8000});
  EXPECT_LT(CountOf(html, "<tr"), size_t{400});
  EXPECT_LT(CountOf(html, "<details"), size_t{1600});
  ExpectSelfContained(html);
  ExpectBalanced(html);
  // Deterministic at scale too.
  EXPECT_EQ(html, RenderHtmlReport({program, analysis, "", {}}));
}

}  // namespace
}  // namespace memplan::viz
