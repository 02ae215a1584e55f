// The `memplan` binary as a user runs it: exit codes (0 ok, 2 bad input or
// usage), error messages naming file:line:col, atomic -o, deterministic
// output, and which module of a dump directory it analyzed.
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using test::CommandResult;

constexpr const char* kAppended =
    "samples/xla/module_0042.jit_train_step.sm_8.0_gpu_after_optimizations-buffer-assignment.txt";
constexpr const char* kNoLiveRange =
    "samples/xla/module_0105.jit_serve_step.tpu_after_optimizations-buffer-assignment.txt";

CommandResult Memplan(std::vector<std::string> args, const std::string& cwd = MEMPLAN_SOURCE_DIR) {
  args.insert(args.begin(), MEMPLAN_BINARY);
  return test::RunCommand(args, cwd);
}

// JSON fields as std::optional (LLVM 14 returns llvm::Optional).
std::optional<int64_t> Int(const llvm::json::Object& o, llvm::StringRef key) {
  const auto v = o.getInteger(key);
  return v.hasValue() ? std::optional<int64_t>(*v) : std::nullopt;
}
std::optional<std::string> Str(const llvm::json::Object& o, llvm::StringRef key) {
  const auto v = o.getString(key);
  return v.hasValue() ? std::optional<std::string>(v->str()) : std::nullopt;
}

std::string Describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.signal) +
         "\nstderr: " + r.err;
}

// The text report with its wrapped sentences joined again: each line break
// and the indentation after it read as one space.
std::string Unwrapped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == ' ') {
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
      out += ' ';
    } else {
      out += text[i];
    }
  }
  return out;
}

TEST(Cli, AnalyzesASample) {
  const CommandResult r = Memplan({"analyze", kAppended});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_TRUE(r.out.starts_with("Module: jit_train_step\n")) << r.out;
}

TEST(Cli, JsonStatesTheDumpsNumbers) {
  const CommandResult r = Memplan({"analyze", "--format=json", kAppended});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(r.out);
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  const llvm::json::Object* o = json->getAsObject();
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(Int(*o, "schema_version").has_value());
  EXPECT_EQ(Str(*o, "module"), "jit_train_step");
  // "Total bytes used: 13633576" and the peak list at step 6 (13633544 bytes).
  EXPECT_EQ(Int(*o, "total_allocation_bytes"), 13633576);
  EXPECT_EQ(Int(*o, "stated_total_bytes"), 13633576);
  const llvm::json::Object* peak = o->getObject("live_peak");
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(Int(*peak, "bytes"), 13633544);
  EXPECT_EQ(Int(*peak, "step"), 6);
}

// The JSON timeline's largest point is the live peak, and the peak's
// category split is that point's, on every sample with live ranges.
TEST(Cli, JsonTimelinePeaksAtTheLivePeak) {
  for (const test::Sample& sample : test::AllSamples()) {
    if (!sample.has_live_ranges) continue;
    SCOPED_TRACE(sample.name);
    std::vector<std::string> args = {"analyze", "--format=json", sample.path};
    if (!sample.module.empty()) args.push_back("--module=" + sample.module);
    const CommandResult r = Memplan(args);
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    llvm::Expected<llvm::json::Value> json = llvm::json::parse(r.out);
    ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
    const llvm::json::Object* o = json->getAsObject();
    const llvm::json::Object* peak = o->getObject("live_peak");
    const llvm::json::Object* timeline = o->getObject("timeline");
    ASSERT_NE(peak, nullptr);
    ASSERT_NE(timeline, nullptr);
    int64_t most = -1;
    int64_t most_step = -1;
    for (const llvm::json::Value& point : *timeline->getArray("points")) {
      const llvm::json::Array& p = *point.getAsArray();
      int64_t sum = 0;
      for (size_t i = 1; i < p.size(); ++i) sum += *p[i].getAsInteger();
      if (sum > most) {
        most = sum;
        most_step = *p[0].getAsInteger();
      }
    }
    EXPECT_EQ(most, Int(*peak, "bytes"));
    EXPECT_EQ(most_step, Int(*peak, "step"));
  }
}

TEST(Cli, WithoutLiveRangesThePeakIsUnavailable) {
  const CommandResult text = Memplan({"analyze", kNoLiveRange});
  ASSERT_EQ(text.exit_code, 0) << Describe(text);
  EXPECT_NE(text.out.find("Peak:       not available: the input has no live ranges"),
            std::string::npos)
      << text.out;
  const CommandResult json = Memplan({"analyze", "--format=json", kNoLiveRange});
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json.out);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Value* peak = parsed->getAsObject()->get("live_peak");
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->kind(), llvm::json::Value::Null);
  const llvm::json::Value* occupied = parsed->getAsObject()->get("occupied_peak");
  ASSERT_NE(occupied, nullptr);
  EXPECT_EQ(occupied->kind(), llvm::json::Value::Null);
}

TEST(Cli, UnknownAttributesAndLinesAreWarningsNotErrors) {
  const CommandResult r = Memplan({"analyze", kNoLiveRange});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(Unwrapped(r.out).find("unknown allocation attribute 'cross-program-prefetch' (first at " +
                                  std::string(kNoLiveRange) + ":13:44)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(Unwrapped(r.out).find("6 x unrecognized line (skipped) (first at " +
                                  std::string(kNoLiveRange) + ":37:1)"),
            std::string::npos)
      << r.out;
}

TEST(Cli, MalformedInputExitsTwoNamingFileLineAndColumn) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("bad.txt"), "BufferAssignment:\nallocation 0: size abc:\n"));
  const CommandResult r = Memplan({"analyze", "bad.txt"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(r.err.starts_with("memplan: bad.txt:2:20: error: expected the allocation size in bytes"))
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Cli, MissingInputExitsTwo) {
  test::TempDir dir;
  const CommandResult r = Memplan({"analyze", "no_such_dump.txt"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("no_such_dump.txt"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, BadUsageExitsTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"frobnicate"},
      {"analyze"},
      {"analyze", "--format=xml", kAppended},
      {"analyze", "--top=many", kAppended},
      {"analyze", "--no-such-flag", kAppended},
  };
  for (const std::vector<std::string>& args : cases) {
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    const CommandResult r = Memplan(args);
    EXPECT_EQ(r.exit_code, 2) << "memplan " << joined << "\n" << Describe(r);
    EXPECT_FALSE(r.err.empty()) << "memplan " << joined;
  }
}

TEST(Cli, HelpAndVersion) {
  const CommandResult version = Memplan({"--version"});
  EXPECT_EQ(version.exit_code, 0) << Describe(version);
  EXPECT_NE(version.out.find("memplan"), std::string::npos);
  const CommandResult help = Memplan({"--help"});
  EXPECT_EQ(help.exit_code, 0) << Describe(help);
  EXPECT_NE(help.out.find("analyze"), std::string::npos);
}

// A misspelled subcommand gets the nearest one; a subcommand's --help shows
// its own options (not another subcommand's) and lists --by's values.
TEST(Cli, MisspelledSubcommandsAndSubcommandHelp) {
  const CommandResult typo = Memplan({"analyse", kAppended});
  EXPECT_EQ(typo.exit_code, 2) << Describe(typo);
  EXPECT_NE(typo.err.find("'analyse' is not a subcommand; did you mean 'analyze'?"),
            std::string::npos)
      << typo.err;
  const CommandResult far = Memplan({"frobnicate"});
  EXPECT_EQ(far.exit_code, 2) << Describe(far);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;

  const CommandResult help = Memplan({"diff", "--help"});
  EXPECT_EQ(help.exit_code, 0) << Describe(help);
  EXPECT_NE(help.out.find("--top"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("=json"), std::string::npos) << help.out;   // --format's values
  EXPECT_EQ(help.out.find("--budget"), std::string::npos) << help.out;  // check's
  EXPECT_EQ(help.out.find("--by"), std::string::npos) << help.out;      // analyze's
  EXPECT_EQ(help.out.find("memplan calibrate"), std::string::npos) << help.out;
  const CommandResult analyze = Memplan({"analyze", "--help"});
  EXPECT_NE(analyze.out.find("--by=<op|source|type>"), std::string::npos) << analyze.out;
  EXPECT_NE(analyze.out.find("=chrome-trace"), std::string::npos) << analyze.out;
}

// The newest memory-usage report prints no allocation kinds: only its total
// is known. JSON says null for the rest, the text "not stated", never 0.
TEST(Cli, UnstatedCategoriesAreNullNotZero) {
  const std::string report =
      "samples/jax/mlp_train_step/jit_mlp_train_step.cpu_after_optimizations-memory-usage-report.txt";
  const CommandResult json = Memplan({"analyze", "--format=json", report});
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json.out);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object* root = parsed->getAsObject();
  for (const char* key : {"argument_bytes", "output_bytes", "alias_bytes", "temp_bytes",
                          "constant_bytes", "thread_local_bytes", "device_footprint_bytes"}) {
    const llvm::json::Value* v = root->get(key);
    ASSERT_NE(v, nullptr) << key;
    EXPECT_EQ(v->kind(), llvm::json::Value::Null) << key;
  }
  // The total is stated (truth: the dump's "Total bytes used").
  const auto total = root->getInteger("total_allocation_bytes");
  ASSERT_TRUE(total.hasValue());
  EXPECT_EQ(*total, 4203636);
  const CommandResult text = Memplan({"analyze", report});
  ASSERT_EQ(text.exit_code, 0) << Describe(text);
  EXPECT_NE(text.out.find("temp              not stated"), std::string::npos) << text.out;
}

TEST(Cli, OutputFileOnBadInputLeavesNoFileBehind) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("bad.txt"), "BufferAssignment:\nallocation 0: size -4:\n"));
  for (const char* format : {"--format=json", "--format=text"}) {
    const CommandResult r = Memplan({"analyze", format, "-o", "out.json", "bad.txt"}, dir.path());
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_EQ(dir.List(), std::vector<std::string>{"bad.txt"});  // no out.json, no temp file
  }
}

TEST(Cli, OutputFileHoldsExactlyWhatStdoutWouldAndNothingElse) {
  test::TempDir dir;
  const std::string input = test::SourcePath(kAppended);
  const CommandResult to_stdout = Memplan({"analyze", "--format=json", input}, dir.path());
  ASSERT_EQ(to_stdout.exit_code, 0) << Describe(to_stdout);
  const CommandResult to_file =
      Memplan({"analyze", "--format=json", "-o", "out.json", input}, dir.path());
  ASSERT_EQ(to_file.exit_code, 0) << Describe(to_file);
  EXPECT_TRUE(to_file.out.empty());
  EXPECT_EQ(dir.List(), std::vector<std::string>{"out.json"});
  EXPECT_EQ(test::ReadFileOrDie(dir.File("out.json")), to_stdout.out);

  // Overwriting an existing file replaces it whole.
  ASSERT_TRUE(test::WriteFile(dir.File("out.json"), std::string(100000, 'x')));
  ASSERT_EQ(Memplan({"analyze", "--format=json", "-o", "out.json", input}, dir.path()).exit_code, 0);
  EXPECT_EQ(test::ReadFileOrDie(dir.File("out.json")), to_stdout.out);
  EXPECT_EQ(dir.List(), std::vector<std::string>{"out.json"});
}

TEST(Cli, UnwritableOutputExitsTwo) {
  test::TempDir dir;
  const CommandResult r =
      Memplan({"analyze", "-o", "missing_dir/out.txt", test::SourcePath(kAppended)}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("missing_dir/out.txt"), std::string::npos) << r.err;
  EXPECT_TRUE(dir.List().empty());
}

TEST(Cli, SameInputGivesIdenticalBytes) {
  for (const char* input : {kAppended, "samples/xla/split_dump", "samples/jax/scan_loop"}) {
    for (const char* format : {"--format=text", "--format=json"}) {
      const CommandResult a = Memplan({"analyze", format, input});
      const CommandResult b = Memplan({"analyze", format, input});
      ASSERT_EQ(a.exit_code, 0) << input << " " << Describe(a);
      ASSERT_EQ(b.exit_code, 0) << input << " " << Describe(b);
      EXPECT_FALSE(a.out.empty());
      EXPECT_EQ(a.out, b.out) << input << " " << format;
    }
  }
}

TEST(Cli, ADirectoryNamesTheModuleItChose) {
  const CommandResult r = Memplan({"analyze", "samples/xla/two_modules"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(r.out.starts_with("Module: jit_train_step\n")) << r.out;
  // The counts are the instruction lines of each module's text.
  EXPECT_NE(Unwrapped(r.out).find("reading module jit_train_step (module 2), the program with the most HLO "
                       "instructions (15 instructions) of 2 in the dump; the others: "
                       "jit_init_params (module 1): 12 instructions"),
            std::string::npos)
      << r.out;

  const CommandResult json = Memplan({"analyze", "--format=json", "samples/xla/two_modules"});
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json.out);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const std::optional<std::string> choice = Str(*parsed->getAsObject(), "module_choice");
  ASSERT_TRUE(choice.has_value());
  EXPECT_NE(choice->find("jit_train_step"), std::string::npos);
}

TEST(Cli, WithOutputFileTheChoiceGoesToStderr) {
  test::TempDir dir;
  const CommandResult r = Memplan(
      {"analyze", "-o", "report.txt", test::SourcePath("samples/xla/two_modules")}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.err.find("reading module jit_train_step"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(--module picks another)"), std::string::npos) << r.err;
  EXPECT_EQ(dir.List(), std::vector<std::string>{"report.txt"});
}

TEST(Cli, ModuleFlagPicksAModule) {
  const CommandResult init =
      Memplan({"analyze", "--module=jit_init_params", "samples/xla/two_modules"});
  ASSERT_EQ(init.exit_code, 0) << Describe(init);
  EXPECT_TRUE(init.out.starts_with("Module: jit_init_params\n")) << init.out;
  EXPECT_NE(init.out.find("reading module jit_init_params (module 1), as named"),
            std::string::npos)
      << init.out;

  const CommandResult ambiguous = Memplan({"analyze", "--module=jit", "samples/xla/two_modules"});
  EXPECT_EQ(ambiguous.exit_code, 2) << Describe(ambiguous);
  EXPECT_NE(ambiguous.err.find("matches several modules"), std::string::npos) << ambiguous.err;

  const CommandResult unknown = Memplan({"analyze", "--module=jit_eval", "samples/xla/two_modules"});
  EXPECT_EQ(unknown.exit_code, 2) << Describe(unknown);
  EXPECT_NE(unknown.err.find("module_0001.jit_init_params.cpu_after_optimizations, "
                             "module_0002.jit_train_step.cpu_after_optimizations"),
            std::string::npos)
      << unknown.err;
}

}  // namespace
TEST(Cli, ModulesListsEveryModuleAndMarksTheDefault) {
  const CommandResult r = Memplan({"modules", "samples/xla/two_modules"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  // One row per module, by stem; the default is the one with more instructions.
  const size_t init = r.out.find("1  jit_init_params            12  514.02 KiB  513.01 KiB");
  const size_t train = r.out.find("*  2  jit_train_step             15   80.00 MiB           -");
  EXPECT_NE(init, std::string::npos) << r.out;
  EXPECT_NE(train, std::string::npos) << r.out;
  EXPECT_LT(init, train);

  const CommandResult json = Memplan({"modules", "--format=json", "samples/xla/two_modules"});
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json.out);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Array* rows = parsed->getAsArray();
  ASSERT_NE(rows, nullptr);
  ASSERT_EQ(rows->size(), 2u);
  const llvm::json::Object* train_row = (*rows)[1].getAsObject();
  EXPECT_EQ(train_row->getInteger("total_allocation_bytes").getValueOr(-1), 83886088);
  EXPECT_TRUE(train_row->getBoolean("default").getValueOr(false));
  EXPECT_EQ(train_row->getInteger("instructions").getValueOr(-1), 15);
  EXPECT_EQ((*rows)[0].getAsObject()->getInteger("live_peak_bytes").getValueOr(-1), 525320);

  const CommandResult file =
      Memplan({"modules", "samples/xla/seed004_gpu_decode-buffer-assignment.txt"});
  EXPECT_EQ(file.exit_code, 2) << Describe(file);
}

}  // namespace memplan
