// The HTML report in a real browser, one test per section (issue 8) and the
// hostile-name check (issue 14). Each test renders a page, adds a test-only
// check script before </body>, loads it in headless Chromium
// (--screenshot and --dump-dom in one run) and reads the script's findings
// back from the dumped DOM:
//   - every expected section is there;
//   - nothing is wider than the 1280-pixel viewport: no element's box passes
//     its right edge, and no element with its own scroll bar overflows;
//   - no two text labels of one SVG overlap (getBBox rectangles), in both
//     views of the timeline (its zoom toggle is switched on for the second
//     look);
//   - nothing in the input executed: markers that an injected onerror or
//     <script> would set are absent, and the page holds only its own
//     scripts.
// Screenshots land in the build directory (html_shots/), never in git.
// Without chromium (scripts/install-deps.sh installs it) the tests skip,
// unless MEMPLAN_REQUIRE_CHROMIUM is set (scripts/test.sh, which CI runs,
// sets it), when they fail.
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "gtest/gtest.h"
#include "ir/program.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "parsers/load_program.h"
#include "viz/describe.h"
#include "viz/html_page.h"
#include "viz/html_report.h"
#include "viz/html_sections.h"

namespace memplan::viz {
namespace {

namespace fs = std::filesystem;

std::string Source(std::string_view relative) {
  return StrCat(MEMPLAN_SOURCE_DIR, "/", relative);
}

std::string FindChromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const char* path_env = std::getenv("PATH");
    std::stringstream dirs(path_env ? path_env : "/usr/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      const fs::path candidate = fs::path(dir) / name;
      std::error_code error;
      if (fs::is_regular_file(candidate, error)) return candidate.string();
    }
  }
  return "";
}

// Measures the page once loaded and writes JSON into <pre id="memplan-check">.
constexpr const char* kCheckScript = R"js(
<script>
(function () {
  'use strict';
  var vw = document.documentElement.clientWidth;
  var result = {viewport: vw, scroll_width: document.documentElement.scrollWidth,
                sections: [], overflow: [], overlaps: [], labels: 0,
                scripts: document.scripts.length, images: document.images.length,
                injected: [], title: document.title};
  function describe(el) {
    return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
        (el.className && typeof el.className === 'string' ? '.' + el.className : '') +
        ' "' + (el.textContent || '').slice(0, 40) + '"';
  }
  var sections = document.querySelectorAll('main > section');
  for (var i = 0; i < sections.length; ++i) result.sections.push(sections[i].id);
  function overflow() {
    var all = document.body.querySelectorAll('*');
    for (var i = 0; i < all.length; ++i) {
      var el = all[i];
      var box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > vw + 0.5) {
        result.overflow.push(describe(el) + ' right=' + box.right.toFixed(1));
      }
      var style = getComputedStyle(el);
      if (style.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1 &&
          el.id !== 'tip') {
        result.overflow.push(describe(el) + ' scrolls ' + el.scrollWidth + '>' + el.clientWidth);
      }
    }
  }
  function overlaps() {
    var svgs = document.querySelectorAll('svg');
    for (var s = 0; s < svgs.length; ++s) {
      var boxes = [];
      var texts = svgs[s].querySelectorAll('text');
      for (var t = 0; t < texts.length; ++t) {
        var b = texts[t].getBBox();
        if (b.width <= 0 || texts[t].getClientRects().length === 0) continue;
        boxes.push({b: b, text: texts[t].textContent});
      }
      result.labels += boxes.length;
      for (var i = 0; i < boxes.length; ++i) {
        for (var j = i + 1; j < boxes.length; ++j) {
          var a = boxes[i].b, c = boxes[j].b;
          var w = Math.min(a.x + a.width, c.x + c.width) - Math.max(a.x, c.x);
          var h = Math.min(a.y + a.height, c.y + c.height) - Math.max(a.y, c.y);
          if (w > 0.5 && h > 0.5) {
            result.overlaps.push('"' + boxes[i].text + '" / "' + boxes[j].text + '"');
          }
        }
      }
    }
  }
  overflow();
  overlaps();
  var toggles = document.querySelectorAll('input.zoom-toggle');
  for (var k = 0; k < toggles.length; ++k) toggles[k].checked = true;
  if (toggles.length) { overflow(); overlaps(); }
  if (window.__memplanInjected) result.injected.push('window.__memplanInjected');
  if (document.body.hasAttribute('data-injected')) result.injected.push('body[data-injected]');
  if (/INJECTED/.test(document.title)) result.injected.push('title');
  var pre = document.createElement('pre');
  pre.id = 'memplan-check';
  pre.hidden = true;
  pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
})();
</script>
)js";

struct BrowserResult {
  bool ran = false;
  std::vector<std::string> sections;
  std::vector<std::string> overflow;
  std::vector<std::string> overlaps;
  std::vector<std::string> injected;
  int64_t labels = 0;
  int64_t scripts = 0;
  int64_t images = 0;
  int64_t viewport = 0;
  int64_t scroll_width = 0;
};

std::string Unescape(std::string text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    static const std::pair<std::string_view, char> kEntities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
    bool matched = false;
    for (const auto& [entity, c] : kEntities) {
      if (std::string_view(text).substr(i, entity.size()) == entity) {
        out += c;
        i += entity.size() - 1;
        matched = true;
        break;
      }
    }
    if (!matched) out += '&';
  }
  return out;
}

std::vector<std::string> Strings(const llvm::json::Object& object, llvm::StringRef key) {
  std::vector<std::string> out;
  if (const llvm::json::Array* array = object.getArray(key)) {
    for (const llvm::json::Value& v : *array) {
      if (auto s = v.getAsString()) out.push_back(s->str());
    }
  }
  return out;
}

// Loads `html` (the check script added) in Chromium; screenshot to
// html_shots/NAME.png in the build directory.
BrowserResult LoadInChromium(const std::string& chromium, const std::string& name,
                             std::string html) {
  BrowserResult result;
  const fs::path dir = fs::path(MEMPLAN_BINARY_DIR) / "html_shots";
  fs::create_directories(dir);
  const size_t body_end = html.rfind("</body>");
  EXPECT_NE(body_end, std::string::npos);
  if (body_end == std::string::npos) return result;
  html.insert(body_end, kCheckScript);
  const fs::path page = dir / (name + ".html");
  const fs::path shot = dir / (name + ".png");
  const fs::path dom = dir / (name + ".dom.html");
  const fs::path profile = dir / (name + ".profile");
  std::ofstream(page, std::ios::binary) << html;
  fs::remove(shot);
  const std::string command =
      StrCat("timeout 90 '", chromium,
             "' --headless --no-sandbox --disable-gpu --disable-background-networking "
             "--hide-scrollbars --user-data-dir='",
             profile.string(), "' --window-size=1280,900 --screenshot='", shot.string(),
             "' --dump-dom 'file://", page.string(), "' >'", dom.string(), "' 2>/dev/null");
  const int status = std::system(command.c_str());
  fs::remove_all(profile);
  EXPECT_EQ(status, 0) << command;
  std::ifstream in(dom, std::ios::binary);
  const std::string dumped((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string open = "<pre id=\"memplan-check\" hidden=\"\">";
  const size_t begin = dumped.find(open);
  const size_t end = dumped.find("</pre>", begin);
  EXPECT_NE(begin, std::string::npos) << "the check script left no result in " << dom;
  if (begin == std::string::npos || end == std::string::npos) return result;
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse(Unescape(dumped.substr(begin + open.size(), end - begin - open.size())));
  EXPECT_TRUE(static_cast<bool>(parsed));
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return result;
  }
  const llvm::json::Object& o = *parsed->getAsObject();
  result.ran = true;
  result.sections = Strings(o, "sections");
  result.overflow = Strings(o, "overflow");
  result.overlaps = Strings(o, "overlaps");
  result.injected = Strings(o, "injected");
  result.labels = o.getInteger("labels").getValueOr(-1);
  result.scripts = o.getInteger("scripts").getValueOr(-1);
  result.images = o.getInteger("images").getValueOr(-1);
  result.viewport = o.getInteger("viewport").getValueOr(-1);
  result.scroll_width = o.getInteger("scroll_width").getValueOr(-1);
  EXPECT_TRUE(fs::file_size(shot) > 1000) << "no screenshot at " << shot;
  return result;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) StrAppend(&out, "\n  ", line);
  return out;
}

// What every page must satisfy in the browser.
void ExpectFitsAndReadable(const BrowserResult& r) {
  ASSERT_TRUE(r.ran);
  EXPECT_EQ(r.viewport, 1280);
  EXPECT_LE(r.scroll_width, r.viewport);
  EXPECT_TRUE(r.overflow.empty()) << "wider than the viewport:" << Joined(r.overflow);
  EXPECT_TRUE(r.overlaps.empty()) << "overlapping SVG labels:" << Joined(r.overlaps);
  EXPECT_TRUE(r.injected.empty()) << "executed:" << Joined(r.injected);
  EXPECT_EQ(r.images, 0);
}

struct Sample {
  parsers::LoadedProgram loaded;
  analyzer::Analysis analysis;
};

const Sample& LoadSample(const std::string& relative) {
  static std::map<std::string, Sample>* cache = new std::map<std::string, Sample>();
  auto it = cache->find(relative);
  if (it != cache->end()) return it->second;
  absl::StatusOr<parsers::LoadedProgram> loaded =
      parsers::LoadProgram(Source(relative), parsers::LoadOptions{});
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  Sample sample{std::move(*loaded), {}};
  analyzer::Analysis::Options options;
  options.top_n = HtmlReportLimits{}.table_rows;
  sample.analysis = analyzer::Analysis::Run(sample.loaded.program, options);
  return cache->emplace(relative, std::move(sample)).first->second;
}

class HtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = FindChromium();
    if (chromium_.empty() && std::getenv("MEMPLAN_REQUIRE_CHROMIUM") != nullptr) {
      FAIL() << "chromium is not installed and MEMPLAN_REQUIRE_CHROMIUM is set (CI): "
                "scripts/install-deps.sh installs it";
    }
    if (chromium_.empty()) {
      GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it; CI "
                      "must have it)";
    }
  }
  std::string chromium_;
};

constexpr const char* kSeed004 = "samples/xla/seed004_gpu_decode-buffer-assignment.txt";
// A JAX training step whose XLA live peak counts shared bytes twice (the
// timeline then carries two peak labels and the line).
constexpr const char* kJaxTrain = "samples/jax/mlp_train_step";
constexpr const char* kJaxTransformer = "samples/jax/transformer_block_f32";

// One section of the report on a page of its own.
BrowserResult RenderOneSection(const std::string& chromium, const std::string& sample,
                               const std::string& id, const std::string& title,
                               std::string (*render)(const ReportContext&)) {
  const Sample& s = LoadSample(sample);
  const HtmlReportLimits limits;
  const std::string choice;
  const ReportContext context{s.loaded.program, s.analysis, choice, limits};
  HtmlPage page;
  page.title = StrCat("section ", id);
  const std::string body = render(context);
  EXPECT_FALSE(body.empty()) << id << " has nothing to show for " << sample;
  page.sections.push_back({id, title, body});
  std::string name = StrCat(id, "-", fs::path(sample).stem().string());
  return LoadInChromium(chromium, name, RenderHtmlPage(page));
}

#define SECTION_TEST(NAME, SAMPLE, ID, TITLE, RENDER)                          \
  TEST_F(HtmlBrowser, NAME) {                                                  \
    const BrowserResult r = RenderOneSection(chromium_, SAMPLE, ID, TITLE, RENDER); \
    ExpectFitsAndReadable(r);                                                  \
    EXPECT_EQ(r.sections, std::vector<std::string>{ID});                      \
  }

SECTION_TEST(Summary, kSeed004, "summary", "Summary", RenderSummarySection)
SECTION_TEST(AllocationMap, kSeed004, "allocation-map", "Allocation map",
             RenderAllocationMapSection)
SECTION_TEST(PeakValues, kSeed004, "peak-values", "Largest values", RenderPeakValuesSection)
SECTION_TEST(Attribution, kSeed004, "attribution", "Attribution", RenderAttributionSection)
SECTION_TEST(TempArena, kJaxTrain, "temp-arena", "Temp arena simulation",
             RenderTempArenaSection)
SECTION_TEST(Allocations, kSeed004, "allocations", "Largest allocations",
             RenderAllocationsSection)
SECTION_TEST(Notes, kSeed004, "notes", "Notes and input problems", RenderNotesSection)

TEST_F(HtmlBrowser, Timeline) {
  const BrowserResult r =
      RenderOneSection(chromium_, kSeed004, "timeline", "Memory timeline", RenderTimelineSection);
  ExpectFitsAndReadable(r);
  // Axis ticks, the axis title and the peak label, in both views.
  EXPECT_GE(r.labels, 2 * 10);
}

// XLA's figure above ours: two peak labels and the line; in the
// transformer, three markers (steps 53, 55 and the dump's list at 54) a few
// pixels apart whose labels must not overlap.
TEST_F(HtmlBrowser, TimelineWithThreePeakMarkers) {
  for (const char* sample : {kJaxTrain, kJaxTransformer}) {
    const Sample& s = LoadSample(sample);
    ASSERT_TRUE(s.analysis.peak && s.analysis.occupied_peak);
    // The samples must keep what this test is about.
    ASSERT_GT(s.analysis.peak->bytes, s.analysis.occupied_peak->bytes) << sample;
    const BrowserResult r =
        RenderOneSection(chromium_, sample, "timeline", "Memory timeline", RenderTimelineSection);
    ExpectFitsAndReadable(r);
  }
}

// The whole report of a sample: every section, in one page that fits.
TEST_F(HtmlBrowser, WholeReport) {
  const Sample& s = LoadSample(kSeed004);
  const std::string html =
      RenderHtmlReport({s.loaded.program, s.analysis, DescribeModuleChoice(s.loaded), {}});
  const BrowserResult r = LoadInChromium(chromium_, "whole-seed004", html);
  ExpectFitsAndReadable(r);
  EXPECT_EQ(r.sections,
            (std::vector<std::string>{"summary", "timeline", "allocation-map", "peak-values",
                                      "attribution", "temp-arena", "allocations", "notes"}));
  // The page's script, the timeline's data and the check script: no other.
  EXPECT_EQ(r.scripts, 3);
}

// Names, op_names, op_types and source paths holding markup (issue 14). An
// injection would set window.__memplanInjected, body[data-injected] or the
// title, or add an <img> or a <script>.
constexpr std::string_view kHostile[] = {
    "<script>window.__memplanInjected=1;document.body.setAttribute('data-injected','1')"
    "</script>",
    "\"><img src=x onerror=\"window.__memplanInjected=1;document.title='INJECTED'\">",
    "'><svg onload=window.__memplanInjected=1>",
    "]]></script><script>window.__memplanInjected=1</script><!--",
    "quote\" apostrophe' backslash\\ \\u003c/script> --> </pre>",
    "control \x01\x07\x1b[31m\r\n\t\x7f end",
    "invalid UTF-8 \xff\xfe \xc3 \xe2\x82 end",
};

// A small program every section has something to say about, with a hostile
// string in every name the report prints.
ir::Program HostileProgram() {
  ir::Program program;
  const size_t n = std::size(kHostile);
  program.module_name = program.Intern(StrCat("module ", kHostile[0]));
  program.input_format = "buffer-assignment";
  program.source_files = {std::string(kHostile[1])};
  const int64_t steps = static_cast<int64_t>(n) + 2;
  for (int64_t s = 0; s < steps; ++s) {
    const std::string_view hostile = kHostile[s % n];
    ir::Instruction instruction;
    instruction.name = program.Intern(StrCat("fusion.", s, hostile));
    instruction.opcode = ir::Opcode::kFusion;
    instruction.opcode_text = "fusion";
    ir::OpMetadata metadata;
    metadata.op_type = program.Intern(StrCat("op ", kHostile[(s + 1) % n]));
    metadata.op_name = program.Intern(StrCat("jit(f)/", kHostile[(s + 2) % n]));
    metadata.source_file = program.Intern(StrCat("/src/", kHostile[(s + 3) % n]));
    metadata.source_line = s + 1;
    instruction.metadata = program.module.StoreMetadata(metadata);
    program.schedule.instructions.push_back(program.module.AddInstruction(instruction));
  }
  program.schedule.max_time = steps - 1;
  program.has_live_ranges = true;
  ir::Allocation param;
  param.id = ir::AllocationId(0);
  param.size = 1 << 20;
  param.parameter_number = 0;
  param.parameter_shape_text = program.Intern(std::string(kHostile[2]));
  ir::Allocation temp;
  temp.id = ir::AllocationId(1);
  temp.size = 64 << 10;
  temp.is_preallocated_temp = true;
  auto add = [&](ir::Allocation& a, int64_t step, int64_t size, int64_t offset,
                 ir::LiveRange range) {
    ir::Value v;
    v.id = ir::ValueId(static_cast<int64_t>(program.values.size()));
    v.instruction = program.schedule.instructions[step];
    v.size = size;
    v.offset = offset;
    v.allocation = a.id;
    v.live_range = range;
    v.shape_text = program.Intern(StrCat("f32[", kHostile[step % n], "]"));
    a.values.push_back(v.id);
    program.values.push_back(std::move(v));
  };
  add(param, 0, param.size, 0, {0, steps - 1});
  for (int64_t s = 1; s + 1 < steps; ++s) {
    add(temp, s, 16 << 10, ((s - 1) % 4) * (16 << 10), {s, s + 1});
  }
  program.allocations = {param, temp};
  return program;
}

TEST_F(HtmlBrowser, HostileNamesExecuteNothing) {
  const ir::Program program = HostileProgram();
  const analyzer::Analysis analysis = analyzer::Analysis::Run(program, {});
  const std::string html = RenderHtmlReport({program, analysis, std::string(kHostile[3]), {}});
  // Shown as text, not markup.
  EXPECT_NE(html.find("&lt;script&gt;window.__memplanInjected"), std::string::npos);
  const BrowserResult r = LoadInChromium(chromium_, "hostile", html);
  ExpectFitsAndReadable(r);
  EXPECT_EQ(r.scripts, 3);  // the page's, the timeline's data, the check script
  // The page parsed into its sections (a stray </section> or </script>
  // would lose some).
  EXPECT_EQ(r.sections,
            (std::vector<std::string>{"summary", "timeline", "allocation-map", "peak-values",
                                      "attribution", "temp-arena", "allocations", "notes"}));
}

// The `memplan` binary: `args` run from the source root, the page written to
// html_shots/NAME.out.html and returned; the exit status in *status.
std::string RunMemplan(const std::string& name, const std::string& args, int* status) {
  const fs::path dir = fs::path(MEMPLAN_BINARY_DIR) / "html_shots";
  fs::create_directories(dir);
  const fs::path out = dir / (name + ".out.html");
  fs::remove(out);
  const std::string command = StrCat("cd '", MEMPLAN_SOURCE_DIR, "' && '", MEMPLAN_BINARY, "' ",
                                     args, " -o '", out.string(), "' 2>/dev/null");
  const int raw = std::system(command.c_str());
  *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream in(out, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// `memplan report --plan`: the prediction section, with the exact per-device
// bytes of the 8-device compile (candidates/fsdp8.truth.json,
// memory_analysis(): argument 2,248,704 and output 2,103,372 bytes).
TEST_F(HtmlBrowser, ReportWithPlan) {
  int status = 0;
  const std::string html = RunMemplan(
      "report-plan",
      "report samples/sharded/mlp_train_step --plan "
      "samples/sharded/mlp_train_step/candidates/fsdp8.plan.yaml",
      &status);
  ASSERT_EQ(status, 0);
  EXPECT_NE(html.find("title=\"2,248,704 bytes\""), std::string::npos);
  EXPECT_NE(html.find("title=\"2,103,372 bytes\""), std::string::npos);
  // What is live at the predicted peak, as a table.
  EXPECT_NE(html.find("<h3>Live at the peak (step "), std::string::npos);
  EXPECT_NE(html.find("all-gather over fsdp"), std::string::npos);  // a gathered input
  const BrowserResult r = LoadInChromium(chromium_, "report-plan", html);
  ExpectFitsAndReadable(r);
  ASSERT_GE(r.sections.size(), 2u);
  EXPECT_EQ(r.sections[0], "summary");
  EXPECT_EQ(r.sections[1], "prediction");
}

// `memplan rank --format=html` under a budget some candidates exceed.
TEST_F(HtmlBrowser, RankPage) {
  int status = 0;
  const std::string html = RunMemplan(
      "rank",
      "rank samples/sharded/mlp_train_step --devices 8 --family-inputs "
      "samples/sharded/mlp_train_step/families.yaml --budget 12MiB --format=html",
      &status);
  ASSERT_EQ(status, 0);
  EXPECT_NE(html.find("Within the budget"), std::string::npos);
  EXPECT_NE(html.find("Over the budget"), std::string::npos);
  const BrowserResult r = LoadInChromium(chromium_, "rank", html);
  ExpectFitsAndReadable(r);
  EXPECT_EQ(r.sections, std::vector<std::string>{"rank"});
}

// `memplan calltree --format=html` on a PyTorch trace with memory events,
// and on seed 000's text tree (long paths).
TEST_F(HtmlBrowser, CallTreePages) {
  for (const auto& [name, input] : std::vector<std::pair<std::string, std::string>>{
           {"calltree-trace", "samples/traces/pytorch_v100_backward_memory.pt.trace.json.gz"},
           {"calltree-text", "samples/calltree/seed000_vescale_nanogpt_4d_calltree.txt.gz"}}) {
    int status = 0;
    const std::string html = RunMemplan(name, StrCat("calltree ", input, " --format=html"), &status);
    ASSERT_EQ(status, 0) << input;
    const BrowserResult r = LoadInChromium(chromium_, name, html);
    ExpectFitsAndReadable(r);
    EXPECT_EQ(r.sections, std::vector<std::string>{"calltree"});
    if (name == "calltree-trace") {
      EXPECT_NE(html.find("<svg class=\"memory\""), std::string::npos);
      EXPECT_GT(r.labels, 5);
    }
  }
}

// A call tree whose function names and paths hold markup: the calltree page
// executes nothing and keeps its section.
TEST_F(HtmlBrowser, HostileCallTreeExecutesNothing) {
  const fs::path dir = fs::path(MEMPLAN_BINARY_DIR) / "html_shots";
  fs::create_directories(dir);
  const fs::path input = dir / "hostile_tree.txt";
  std::ofstream(input, std::ios::binary)
      << "main, /src/" << kHostile[0] << ".py:1\n"
      << "\xE2\x94\x9C\xE2\x94\x80\xE2\x94\x80 " << kHostile[1] << ", /a/b.py:2\n"
      << "\xE2\x94\x82   \xE2\x94\x94\xE2\x94\x80\xE2\x94\x80 " << kHostile[3] << ", /a/"
      << kHostile[6] << ".py:3\n"
      << "\xE2\x94\x94\xE2\x94\x80\xE2\x94\x80 " << kHostile[2] << ", /a/c.py:4\n";
  int status = 0;
  const std::string html =
      RunMemplan("hostile-calltree", StrCat("calltree '", input.string(), "' --format=html"), &status);
  ASSERT_EQ(status, 0);
  const BrowserResult r = LoadInChromium(chromium_, "hostile-calltree", html);
  ExpectFitsAndReadable(r);
  EXPECT_EQ(r.scripts, 2);  // the page's and the check script
  EXPECT_EQ(r.sections, std::vector<std::string>{"calltree"});
}

// Without a browser: a bad plan is exit 2 with no page written; the new
// pages are the same bytes run after run.
TEST(HtmlCli, BadPlanWritesNothingAndPagesAreDeterministic) {
  const fs::path dir = fs::path(MEMPLAN_BINARY_DIR) / "html_shots";
  fs::create_directories(dir);
  const fs::path plan = dir / "bad.plan.yaml";
  std::ofstream(plan) << "mesh: {dp: 2}\narguments:\n  no_such_argument: [dp]\n";
  int status = 0;
  RunMemplan("bad-plan", StrCat("report samples/sharded/mlp_train_step --plan '", plan.string(), "'"),
             &status);
  EXPECT_EQ(status, 2);
  EXPECT_FALSE(fs::exists(dir / "bad-plan.out.html"));
  for (const std::string& args :
       {std::string("calltree samples/traces/pytorch_v100_backward_memory.pt.trace.json.gz "
                    "--format=html"),
        std::string("rank samples/sharded/mlp_train_step --devices 8 --family-inputs "
                    "samples/sharded/mlp_train_step/families.yaml --format=html"),
        std::string("report samples/sharded/mlp_train_step --plan "
                    "samples/sharded/mlp_train_step/candidates/tp8.plan.yaml")}) {
    int first_status = 0, second_status = 0;
    const std::string first = RunMemplan("again-1", args, &first_status);
    const std::string second = RunMemplan("again-2", args, &second_status);
    EXPECT_EQ(first_status, 0) << args;
    EXPECT_EQ(second_status, 0) << args;
    EXPECT_GT(first.size(), 1000u) << args;
    EXPECT_EQ(first, second) << args;
  }
}

}  // namespace
}  // namespace memplan::viz
