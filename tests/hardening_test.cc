// Regression tests for the inputs of issue 14 ("found when tried as an
// attacker would"): each case below once crashed, hung, grew without bound,
// overflowed or was accepted without a word. Each must now end in a located
// "expected ..." error (exit 2) or a warning, quickly.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <libxml/parser.h>

#include "cli/device_memory.h"
#include "parsers/analyze_json_metrics.h"
#include "parsers/budget_file.h"
#include "cli/output_file.h"
#include "gtest/gtest.h"
#include "ir/strings.h"
#include "llvm/Support/raw_ostream.h"
#include "parsers/hlo_proto_parser.h"
#include "parsers/proto/hlo_subset.pb.h"
#include "parsers/source_text.h"
#include "parsers/utf8.h"
#include "tests/test_util.h"
#include "viz/dot_report.h"
#include "viz/format.h"
#include "viz/html_page.h"
#include "viz/junit.h"
#include "viz/svg_render.h"

namespace memplan {
namespace {

using test::CommandResult;

// The budget file reader with the CLI's device names.
absl::StatusOr<parsers::BudgetFile> ParseBudgets(std::string_view text, const std::string& name) {
  return parsers::ParseBudgets(text, name, cli::DeviceMemoryCatalog());
}

constexpr const char* kMlpDump =
    "samples/jax/mlp_train_step/"
    "jit_mlp_train_step.cpu_after_optimizations-buffer-assignment.txt";
constexpr const char* kMlpProto =
    "samples/jax/mlp_train_step/jit_mlp_train_step.cpu_after_optimizations.hlo.pb";

// The memplan binary under timeout(1): a hang shows as exit 124.
CommandResult Memplan(std::vector<std::string> args, int seconds = 30) {
  args.insert(args.begin(), {"/usr/bin/timeout", std::to_string(seconds), MEMPLAN_BINARY});
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

std::string Describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.signal) +
         "\nstdout: " + r.out.substr(0, 2000) + "\nstderr: " + r.err.substr(0, 2000);
}

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// A located error: "<file>:<line>:<col>: error: ... expected ..."; `file`
// is a prefix of it ("b.yaml:3:").
void ExpectLocatedError(const absl::Status& status, std::string_view file) {
  ASSERT_FALSE(status.ok());
  const std::string message(status.message());
  const std::string shown = message.substr(0, 300);  // not a whole 50,000-byte line
  EXPECT_TRUE(Contains(message, file)) << shown;
  EXPECT_TRUE(Contains(message, "error: ")) << shown;
  EXPECT_TRUE(Contains(message, "expected")) << shown;
}

// ---------------------------------------------------------------------------
// Budget files.

TEST(HardenedBudgets, DeepFlowNestingIsAnErrorNotAStackOverflow) {
  const std::string text = "\"*\": " + std::string(40000, '[');
  ExpectLocatedError(ParseBudgets(text, "b.yaml").status(), "b.yaml:1:");
  std::string braces = "\"*\": ";
  for (int i = 0; i < 50000; ++i) braces += "{a: ";
  ExpectLocatedError(ParseBudgets(braces, "b.yaml").status(), "b.yaml:1:");
}

TEST(HardenedBudgets, DeepBlockNestingIsAnErrorNotAStackOverflow) {
  std::string text;
  for (int i = 0; i < 50000; ++i) text += std::string(i, ' ') + "a:\n";
  ExpectLocatedError(ParseBudgets(text, "b.yaml").status(), "b.yaml:");
  std::string dashes;
  for (int i = 0; i < 50000; ++i) dashes += "- ";
  ExpectLocatedError(ParseBudgets(dashes + "x\n", "b.yaml").status(), "b.yaml:1:");
  // Quoted brackets do not hide nesting: each level opens one more.
  std::string quoted = "\"*\": ";
  for (int i = 0; i < 50000; ++i) quoted += "[\"]\", ";
  ExpectLocatedError(ParseBudgets(quoted, "b.yaml").status(), "b.yaml:1:");
}

TEST(HardenedBudgets, OrdinaryNestingStillReads) {
  const std::string text =
      "# comment with [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ brackets\n"
      "\"*\": {peak: 1GiB, regression: 5%}\n"
      "'jit_[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]':\n"
      "  temp: 2GiB\n";
  absl::StatusOr<parsers::BudgetFile> file = ParseBudgets(text, "b.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->modules.size(), 2u);
}

TEST(HardenedBudgets, ManyEntriesParseInLinearTime) {
  // 400,000 entries did not finish in 60 s with llvm::yaml::Input's checks.
  std::string text;
  for (int i = 0; i < 400000; ++i) text += "m" + std::to_string(i) + ": {peak: 1GiB}\n";
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<parsers::BudgetFile> file = ParseBudgets(text, "b.yaml");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->modules.size(), 400000u);
  EXPECT_EQ(file->modules.back().key, "m399999");  // file order
  EXPECT_LT(seconds, 20.0);  // about 1 s here; generous for sanitizers and load
}

TEST(HardenedBudgets, SecondDocumentIsAnError) {
  absl::Status status =
      ParseBudgets("\"*\": {peak: 1GiB}\n---\n\"*\": {peak: 2GiB}\n", "b.yaml").status();
  ExpectLocatedError(status, "b.yaml:3:");
}

TEST(HardenedBudgets, HugeFractionsOfTheDeviceAreErrors) {
  for (const char* text : {"\"*\": {device: H100, peak: 99999999999999999999999999 * device}\n",
                           "\"*\": {device: H100, peak: 1000000000 * device}\n",
                           "\"*\": {device_memory: 8000PiB, peak: 2 * device}\n",
                           "\"*\": {device: H100, peak: 0 * device}\n"}) {
    SCOPED_TRACE(text);
    ExpectLocatedError(ParseBudgets(text, "b.yaml").status(), "b.yaml:1:");
  }
  // And through the binary: exit 2, not -8 EiB.
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("b.yaml"),
                              "\"*\":\n  device: H100\n  peak: 1000000000 * device\n"));
  CommandResult r = Memplan({"check", kMlpDump, "--budget", dir.File("b.yaml")});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(Contains(r.err, "b.yaml:3:9: error: expected")) << Describe(r);
  EXPECT_FALSE(Contains(r.out + r.err, "-8")) << Describe(r);
}

TEST(HardenedBudgets, EveryErrorSaysWhatWasExpected) {
  const char* kBad[] = {
      "\"*\": [1, 2\n",          "\"*\": {peak: 1\n",        "\"*\": \"unterminated\n",
      "\"*\": 'x\n",             "- a\n- b\n",               "\"*\": 5\n",
      "\"*\": [peak]\n",         "\"*\":\n  peak: [1]\n",    "\"*\":\n  peak: {a: 1}\n",
      "\"*\":\n  peak:\n",       "\"*\":\n  ? [a]\n  : 1\n", "[a]: {peak: 1}\n",
      "\"*\": {peak: 1}\n\"*\": {peak: 2}\n",                 "\"*\": {peak: 1, peak: 2}\n",
      "\"*\": {pek: 1}\n",       "\"*\": {peak: -1}\n",      "\"*\": {peak: 1.5B}\n",
      "\"*\": {peak: 1e3}\n",    "\"*\": {peak: 12 bananas}\n",
      "\"*\": {peak: 99999999999999999999}\n",               "\"*\": {regression: 5}\n",
      "\"*\": {regression: x%}\n", "\"*\": {device: Z100}\n", "\"*\": {device_memory: 0}\n",
      "\"*\": {device: H100, device_memory: 1GiB}\n",         "\"*\": {peak: 0.5 * device}\n",
      "\"*\": {peak: \"\\q\"}\n", "\"*\": {peak: 1GiB, temp}\n",     "\"*\": {peak: 1}}\n",
      "\"*\": &a {peak: 1}\nb: *a\n", "\"*\": {peak: 5%}\n", "!!map\n",
      "\"*\": {regression: 5%%}\n", "\"*\": |\n  peak: 1\n", "...\n\"*\": {peak: 1}\n",
      "\"*\": {peak: 1}\n---\n", "\xff\xfe\"*\": 1\n", "\"*\": {peak: 1GiB}\n@x\n",
      "`\n", "\"*\": {device: H100, peak: device * 0.5}\n", "\"*\": {peak: 1GiB, regression: }\n",
      "\"*\": {peak: 1GiB\n  temp: 1}\n", "\"*\":\n peak: 1\n  temp: 2\n",
      "\"*\":\n  peak: 1\n temp: 2\n", "\"*\": {peak: 1GiB, device: [H100]}\n",
      "\"*\": {regression: [5%]}\n", "? \"*\"\n", "\"*\": {peak: 1.5.5GiB}\n",
      "\"*\": {peak: .GiB}\n", "\"*\": {peak: 1 * device * device, device: H100}\n",
      "",
  };
  int count = 0;
  for (const char* text : kBad) {
    SCOPED_TRACE(text);
    absl::StatusOr<parsers::BudgetFile> file = ParseBudgets(text, "b.yaml");
    if (file.ok()) {
      ADD_FAILURE() << "accepted";
      continue;
    }
    ++count;
    const std::string message(file.status().message());
    EXPECT_TRUE(Contains(message, "b.yaml")) << message;
    EXPECT_TRUE(Contains(message, "expected")) << message;
  }
  EXPECT_GE(count, 50);
}

// ---------------------------------------------------------------------------
// Baselines (`memplan check --baseline`, the JSON of `memplan analyze`).

std::string Baseline(std::string_view version, std::string_view temp_bytes) {
  return "{\n  \"schema_version\": " + std::string(version) +
         ",\n  \"module\": \"jit_mlp_train_step\",\n  \"temp_bytes\": " +
         std::string(temp_bytes) +
         ",\n  \"argument_bytes\": 1, \"output_bytes\": 2, \"total_allocation_bytes\": 10,\n"
         "  \"device_footprint_bytes\": 6, \"live_peak\": {\"bytes\": 5}\n}\n";
}

TEST(HardenedBaselines, BadValuesAreLocatedErrors) {
  struct Case {
    std::string text;
    const char* at;  // "line:col"
  } cases[] = {
      {Baseline("2", "-1"), "old.json:4:17:"},
      {Baseline("2", "9223372036854775808"), "old.json:4:17:"},
      {Baseline("2", "18446744073709551616"), "old.json:4:17:"},
      {Baseline("2", "1e30"), "old.json:4:17:"},
      {Baseline("2", "1.5"), "old.json:4:17:"},
      {Baseline("99", "3"), "old.json:2:21:"},
      {Baseline("0", "3"), "old.json:2:21:"},
      {"{\"schema_version\": 2, " + std::string(50000, '[') , "old.json:1:"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(0, 120));
    absl::StatusOr<ir::ModuleMetrics> m = parsers::MetricsFromAnalyzeJson(c.text, "old.json", 2);
    ExpectLocatedError(m.status(), c.at);
  }
  absl::StatusOr<ir::ModuleMetrics> good =
      parsers::MetricsFromAnalyzeJson(Baseline("2", "9223372036854775807"), "old.json", 2);
  ASSERT_TRUE(good.ok()) << good.status();
}

TEST(HardenedBaselines, DeepJsonThroughTheBinary) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("old.json"),
                              "{\"schema_version\": 2, \"x\": " + std::string(50000, '[')));
  ASSERT_TRUE(test::WriteFile(dir.File("b.yaml"), "\"*\": {regression: 5%}\n"));
  CommandResult r = Memplan(
      {"check", kMlpDump, "--budget", dir.File("b.yaml"), "--baseline", dir.File("old.json")});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(Contains(r.err, "old.json:1:")) << Describe(r);
}

// ---------------------------------------------------------------------------
// Unbounded inputs: devices, FIFOs.

TEST(HardenedInputs, EndlessDevicesEndInAnError) {
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    SCOPED_TRACE(device);
    CommandResult r = Memplan({"analyze", device}, 60);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(Contains(r.err, "not a regular file")) << Describe(r);
    EXPECT_TRUE(Contains(r.err, "expected")) << Describe(r);
  }
}

TEST(HardenedInputs, AFifoIsReadOnce) {
  std::signal(SIGPIPE, SIG_IGN);
  test::TempDir dir;
  const std::string fifo = dir.File("dump-buffer-assignment.txt");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string contents = test::ReadFileOrDie(test::SourcePath(kMlpDump));
  // The writer opens the FIFO once; a second open by the reader would block
  // forever (timeout exits 124).
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << contents;
  });
  CommandResult r = Memplan({"analyze", fifo}, 30);
  if (r.exit_code == 124) {
    // A writer still waiting for a reader: open and close the FIFO so that
    // its open returns and its write fails (EPIPE, SIGPIPE ignored).
    const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  writer.join();
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  // The same program as the regular file gives.
  CommandResult direct = Memplan({"analyze", kMlpDump});
  auto values_line = [](const std::string& out) {
    const size_t at = out.find("\nValues: ");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at + 1) - at);
  };
  EXPECT_FALSE(values_line(direct.out).empty()) << Describe(direct);
  EXPECT_EQ(values_line(r.out), values_line(direct.out)) << Describe(r);
}

// Writes `contents` into the FIFO `fifo` from a thread, while `run` reads it;
// unblocks the writer when the reader never opened the FIFO.
CommandResult RunWithFifo(const std::string& fifo, const std::string& contents,
                          const std::function<CommandResult()>& run) {
  std::signal(SIGPIPE, SIG_IGN);
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << contents;
  });
  CommandResult r = run();
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // a writer still waiting
  if (fd >= 0) ::close(fd);
  writer.join();
  return r;
}

std::string AfterFirstLine(const std::string& text) {
  const size_t newline = text.find('\n');
  return newline == std::string::npos ? std::string() : text.substr(newline + 1);
}

// A jaxpr or an Alpa profile on a FIFO is sniffed from the one read the
// parser then uses: the same report as the regular file, no second open.
TEST(HardenedInputs, AFifoIsSniffedFromItsOneRead) {
  for (const char* sample :
       {"samples/jaxpr/mlp_grad.jaxpr", "samples/alpa/seed003_alpa_stage_profile_jaxpr.txt"}) {
    SCOPED_TRACE(sample);
    test::TempDir dir;
    const std::string fifo = dir.File("input");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string contents = test::ReadFileOrDie(test::SourcePath(sample));
    CommandResult r = RunWithFifo(fifo, contents, [&] { return Memplan({"analyze", fifo}, 30); });
    ASSERT_EQ(r.exit_code, 0) << Describe(r);  // 124: the FIFO was opened twice
    CommandResult direct = Memplan({"analyze", sample});
    ASSERT_EQ(direct.exit_code, 0) << Describe(direct);
    EXPECT_EQ(AfterFirstLine(r.out), AfterFirstLine(direct.out));  // the first names the file
  }
}

// Standard input ("-") likewise: read once, sniffed, parsed.
TEST(HardenedInputs, StandardInputIsSniffedFromItsOneRead) {
  const std::string sample = "samples/jaxpr/mlp_grad.jaxpr";
  CommandResult r = test::RunCommand(
      {"/bin/sh", "-c",
       std::string("/usr/bin/timeout 30 ") + MEMPLAN_BINARY + " analyze - < " + sample},
      MEMPLAN_SOURCE_DIR);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  CommandResult direct = Memplan({"analyze", sample});
  ASSERT_EQ(direct.exit_code, 0) << Describe(direct);
  EXPECT_TRUE(r.out.starts_with("Jaxpr <stdin>:")) << r.out;
  EXPECT_EQ(AfterFirstLine(r.out), AfterFirstLine(direct.out));
}

// A FIFO longer than the stream bound ends in the bound's error, read once.
TEST(HardenedInputs, AnEndlessFifoEndsInAnError) {
  test::TempDir dir;
  const std::string fifo = dir.File("endless");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::signal(SIGPIPE, SIG_IGN);
  std::atomic<bool> stop = false;
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    if (fd < 0) return;
    const std::string block(1 << 16, 'x');
    while (!stop && ::write(fd, block.data(), block.size()) > 0) {
    }
    ::close(fd);
  });
  CommandResult r = Memplan({"analyze", fifo}, 60);
  stop = true;
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  if (fd >= 0) ::close(fd);
  writer.join();
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(Contains(r.err, "not a regular file")) << Describe(r);
}

TEST(HardenedInputs, EmptyProgramIsAWarning) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("header-buffer-assignment.txt"), "BufferAssignment:\n"));
  ASSERT_TRUE(test::WriteFile(dir.File("cr.txt"), "BufferAssignment:\r\r\r"));
  for (const char* name : {"header-buffer-assignment.txt", "cr.txt"}) {
    CommandResult r = Memplan({"analyze", dir.File(name)});
    if (r.exit_code == 2) {
      EXPECT_TRUE(Contains(r.err, "expected")) << Describe(r);
    } else {
      EXPECT_EQ(r.exit_code, 0) << Describe(r);
      EXPECT_TRUE(Contains(r.err, "warning")) << Describe(r);
    }
  }
}

// An HLO module alone parses to its graph and no values: the warning says
// the buffer assignment is missing rather than that nothing was recognised.
TEST(HardenedInputs, ModuleWithoutBufferAssignmentSaysSo) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("m.txt"),
                              "HloModule m, is_scheduled=true\n\n"
                              "ENTRY %main (p: f32[4]) -> f32[4] {\n"
                              "  %p = f32[4]{0} parameter(0)\n"
                              "  ROOT %n = f32[4]{0} negate(f32[4]{0} %p)\n"
                              "}\n"));
  CommandResult r = Memplan({"analyze", dir.File("m.txt")});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Contains(r.err, "warning")) << Describe(r);
  EXPECT_TRUE(Contains(r.err, "without its buffer assignment")) << Describe(r);
  EXPECT_FALSE(Contains(r.err, "no allocations or values found")) << Describe(r);
}

// ---------------------------------------------------------------------------
// Shapes.

TEST(HardenedShapes, HugeDimensionAndBadLayoutAreErrors) {
  test::TempDir dir;
  for (const char* header : {
           "allocation 0: size 4, parameter 0, shape |f32[99999999999999999999]| at ShapeIndex {}:",
           "allocation 0: size 4, parameter 0, shape |f32[1]{-1}| at ShapeIndex {}:",
           "allocation 0: size 4, parameter 0, shape |f32[1,2]{0,0}| at ShapeIndex {}:",
           "allocation 0: size 4, output shape is |f32[1]{1}|, maybe-live-out:",
       }) {
    SCOPED_TRACE(header);
    ASSERT_TRUE(test::WriteFile(dir.File("x-buffer-assignment.txt"),
                                StrCat("BufferAssignment:\n", header, "\n")));
    CommandResult r = Memplan({"analyze", dir.File("x-buffer-assignment.txt")});
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(Contains(r.err, "x-buffer-assignment.txt:2:")) << Describe(r);
    EXPECT_TRUE(Contains(r.err, "expected a shape")) << Describe(r);
  }
  // The HLO text parser checks layouts too.
  ASSERT_TRUE(test::WriteFile(dir.File("m.txt"),
                              "HloModule m\n\nENTRY e {\n  ROOT p = f32[4]{-1} parameter(0)\n}\n"));
  CommandResult r = Memplan({"analyze", dir.File("m.txt")});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(Contains(r.err, "m.txt:4:")) << Describe(r);
}

// ---------------------------------------------------------------------------
// The HloProto's allocation ids.

absl::StatusOr<ir::Program> ParseProto(const xla_subset::HloProto& proto) {
  std::string bytes;
  proto.SerializeToString(&bytes);
  return parsers::ParseHloProto({parsers::SourceText::FromString("x.hlo.pb", bytes)},
                                ir::Program::Named("x"));
}

TEST(HardenedHloProto, UnsortedIdsAreSortedDuplicatesRejected) {
  xla_subset::HloProto proto;
  ASSERT_TRUE(proto.ParseFromString(test::ReadFileOrDie(test::SourcePath(kMlpProto))));
  auto* allocations = proto.mutable_buffer_assignment()->mutable_buffer_allocations();
  ASSERT_GE(allocations->size(), 2);
  allocations->SwapElements(0, allocations->size() - 1);
  absl::StatusOr<ir::Program> unsorted = ParseProto(proto);
  ASSERT_TRUE(unsorted.ok()) << unsorted.status();
  for (size_t i = 1; i < unsorted->allocations.size(); ++i) {
    EXPECT_LT(unsorted->allocations[i - 1].id, unsorted->allocations[i].id);
  }
  *allocations->Add() = allocations->Get(0);
  absl::StatusOr<ir::Program> duplicate = ParseProto(proto);
  ExpectLocatedError(duplicate.status(), "x.hlo.pb:1:1");
  EXPECT_TRUE(Contains(std::string(duplicate.status().message()), "listed twice"));
}

// ---------------------------------------------------------------------------
// Output: atomic -o under signals; markup from hostile names.

TEST(HardenedOutput, SigtermDuringWriteLeavesNoTemporaryFile) {
  test::TempDir dir;
  const std::string target = dir.File("out.json");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    absl::Status s = cli::WriteOutputWith(target, [](llvm::raw_ostream& os) {
      os << std::string(1 << 20, 'x');
      os.flush();
      ::raise(SIGTERM);  // as `kill` would, half-way through the write
      os << "never";
    });
    ::_exit(s.ok() ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(dir.List(), std::vector<std::string>{});
}

// Hostile text: markup, quotes, backslashes, CDATA end, control characters,
// invalid UTF-8 (a lone continuation byte, a truncated sequence, an overlong
// form, a surrogate) and a valid multi-byte character.
constexpr char kHostileBytes[] =
    "<script>alert(1)</script> \" ' \\ ]]> &amp; \x01\x02\x1b\x7f \x80 \xe2\x82 \xc0\xaf "
    "\xed\xa0\x80 \xff caf\xc3\xa9 \x00 end";
const std::string kHostile(kHostileBytes, sizeof(kHostileBytes) - 1);

bool WellFormedXml(const std::string& xml) {
  xmlDocPtr doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "x.xml", nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == nullptr) return false;
  xmlFreeDoc(doc);
  return true;
}

TEST(HardenedOutput, MarkupIsWellFormedWithHostileNames) {
  ASSERT_EQ(kHostile.back(), 'd');
  const std::string safe = viz::MarkupSafeText(kHostile);
  EXPECT_EQ(parsers::FirstInvalidUtf8(safe), safe.size());
  EXPECT_TRUE(Contains(safe, "caf\xc3\xa9"));
  EXPECT_EQ(safe.find('\x01'), std::string::npos);
  EXPECT_EQ(safe.find('\0'), std::string::npos);
  // JUnit.
  viz::JUnitSuite suite;
  suite.name = kHostile;
  suite.properties.emplace_back(kHostile, kHostile);
  viz::JUnitCase c;
  c.name = kHostile;
  c.classname = kHostile;
  c.outcome = viz::JUnitCase::Outcome::kFailure;
  c.message = kHostile;
  c.details = kHostile;
  suite.cases.push_back(c);
  const std::string junit = viz::RenderJUnit(kHostile, {suite});
  EXPECT_TRUE(WellFormedXml(junit)) << junit;
  // HTML text and attributes: nothing executable, valid UTF-8, no controls.
  const std::string html = viz::HtmlEscape(kHostile);
  EXPECT_FALSE(Contains(html, "<script"));
  EXPECT_EQ(parsers::FirstInvalidUtf8(html), html.size());
  EXPECT_TRUE(WellFormedXml("<p a=\"" + html + "\">" + html + "</p>"));
  const std::string script = viz::JsonStringForScript(kHostile);
  EXPECT_FALSE(Contains(script, "</script"));
  EXPECT_EQ(parsers::FirstInvalidUtf8(script), script.size());
  // DOT, then SVG through Graphviz, twice in one process (a second render
  // once read freed memory inside libgvc's plugins).
  const std::string dot = "digraph g {\n  a [label=" + viz::DotQuote(kHostile) +
                          ", tooltip=" + viz::DotQuote(kHostile) + "];\n  a -> b;\n}\n";
  EXPECT_EQ(parsers::FirstInvalidUtf8(dot), dot.size());
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::string> svg = viz::RenderSvgFromDot(dot);
    ASSERT_TRUE(svg.ok()) << svg.status();
    EXPECT_TRUE(WellFormedXml(*svg)) << *svg;
    EXPECT_FALSE(Contains(*svg, "<script"));
  }
}

}  // namespace
}  // namespace memplan
