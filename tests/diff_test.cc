// `memplan diff`: a dump against itself has no change; a grown temporary is
// found as one value that grew, with the categories' deltas; renamed values
// vanish and appear; the text and JSON views and the CLI's atomic -o.
#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/diff.h"
#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "parsers/load_program.h"
#include "tests/ci_test_util.h"
#include "tests/test_util.h"
#include "viz/diff_report.h"

namespace memplan {
namespace {

using analyzer::CategoryDelta;
using analyzer::ProgramDiff;
using analyzer::ValueChangeKind;

struct Loaded {
  parsers::LoadedProgram loaded;
  analyzer::Analysis analysis;
};

Loaded Load(const std::string& path) {
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(path, {});
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  Loaded out{*std::move(loaded), {}};
  out.analysis = analyzer::Analysis::Run(out.loaded.program, {});
  return out;
}

ProgramDiff Diff(const Loaded& a, const Loaded& b, int top_n = 20) {
  return analyzer::DiffPrograms(a.loaded.program, a.analysis, b.loaded.program, b.analysis,
                                {top_n});
}

const CategoryDelta& Category(const ProgramDiff& diff, const std::string& name) {
  for (const CategoryDelta& c : diff.categories) {
    if (c.name == name) return c;
  }
  ADD_FAILURE() << "no category " << name;
  static const CategoryDelta kNone;
  return kNone;
}

class DiffAgainstItself : public testing::TestWithParam<test::Sample> {};

TEST_P(DiffAgainstItself, ReportsNoChange) {
  const Loaded a = Load(test::SourcePath(GetParam().path));
  const Loaded b = Load(test::SourcePath(GetParam().path));
  const ProgramDiff diff = Diff(a, b);
  EXPECT_TRUE(diff.Empty());
  EXPECT_EQ(diff.changed_values, 0);
  EXPECT_TRUE(diff.changes.empty());
  EXPECT_EQ(diff.unchanged_values, static_cast<int64_t>(a.loaded.program.values.size()));
  for (const CategoryDelta& c : diff.categories) {
    if (c.delta()) {
      EXPECT_EQ(*c.delta(), 0) << c.name;
    }
  }
  const std::string text = viz::RenderDiffText({diff, "a", "b"});
  EXPECT_NE(text.find("No change"), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(Samples, DiffAgainstItself, testing::ValuesIn(test::JaxSamples()),
                         test::SampleName());

TEST(Diff, FindsTheValueThatGrew) {
  test::TempDir dir;
  const std::string grown = test::GrownMlpCopy(dir.File("grown"));
  ASSERT_FALSE(grown.empty());
  const Loaded before = Load(test::SourcePath("samples/jax/mlp_train_step"));
  const Loaded after = Load(grown);
  const ProgramDiff diff = Diff(before, after);
  EXPECT_FALSE(diff.Empty());

  EXPECT_EQ(Category(diff, "temp").old_bytes, 425984);
  EXPECT_EQ(Category(diff, "temp").new_bytes, 557056);
  EXPECT_EQ(Category(diff, "temp").delta(), 131072);
  EXPECT_NEAR(*Category(diff, "temp").percent(), 30.769, 0.001);
  EXPECT_EQ(Category(diff, "total allocation").delta(), 131072);
  EXPECT_EQ(Category(diff, "argument").delta(), 0);

  ASSERT_EQ(diff.changed_values, 1);
  ASSERT_EQ(diff.changes.size(), 1u);
  const analyzer::ValueChange& c = diff.changes[0];
  EXPECT_EQ(c.kind, ValueChangeKind::kGrew);
  EXPECT_EQ(c.name, "broadcast_maximum_fusion");
  EXPECT_EQ(c.old_bytes, 131072);
  EXPECT_EQ(c.new_bytes, 262144);
  EXPECT_EQ(c.old_shape, "f32[64,512]{1,0}");
  EXPECT_EQ(c.new_shape, "f32[128,512]{1,0}");
  EXPECT_EQ(diff.summary[static_cast<int>(ValueChangeKind::kGrew)].bytes, 131072);

  const std::string text = viz::RenderDiffText({diff, "old", "new"});
  EXPECT_NE(text.find("f32[64,512]{1,0} -> f32[128,512]{1,0}"), std::string::npos) << text;
  EXPECT_NE(text.find("+128.00 KiB"), std::string::npos) << text;

  // Reversed, it shrank.
  const ProgramDiff reverse = Diff(after, before);
  ASSERT_EQ(reverse.changes.size(), 1u);
  EXPECT_EQ(reverse.changes[0].kind, ValueChangeKind::kShrank);
  EXPECT_EQ(reverse.changes[0].delta(), -131072);
}

TEST(Diff, RenamedValuesVanishAndAppear) {
  test::TempDir dir;
  const std::string copy = test::GrownMlpCopy(dir.File("renamed"));
  ASSERT_FALSE(copy.empty());
  const std::string file =
      copy + "/jit_mlp_train_step.cpu_after_optimizations-buffer-assignment.txt";
  std::string text = test::ReadFileOrDie(file);
  test::ReplaceOnce(text, "<139 compare_select_fusion @0>", "<139 compare_select_fusion.9 @0>");
  ASSERT_TRUE(test::WriteFile(file, text));

  const ProgramDiff diff = Diff(Load(test::SourcePath("samples/jax/mlp_train_step")),
                                Load(copy), /*top_n=*/0);
  EXPECT_EQ(diff.summary[static_cast<int>(ValueChangeKind::kVanished)].count, 1);
  EXPECT_EQ(diff.summary[static_cast<int>(ValueChangeKind::kVanished)].bytes, -131072);
  EXPECT_EQ(diff.summary[static_cast<int>(ValueChangeKind::kAppeared)].count, 1);
  EXPECT_EQ(diff.summary[static_cast<int>(ValueChangeKind::kGrew)].count, 1);
  ASSERT_EQ(diff.changes.size(), 3u);
  // Largest change first (all three are 128 KiB here), then by name.
  EXPECT_EQ(diff.changes[0].kind, ValueChangeKind::kGrew);
  EXPECT_EQ(diff.changes[0].name, "broadcast_maximum_fusion");
  EXPECT_EQ(diff.changes[1].kind, ValueChangeKind::kVanished);
  EXPECT_EQ(diff.changes[1].name, "compare_select_fusion");
  EXPECT_EQ(diff.changes[1].new_bytes, 0);
  EXPECT_EQ(diff.changes[2].kind, ValueChangeKind::kAppeared);
  EXPECT_EQ(diff.changes[2].name, "compare_select_fusion.9");
  EXPECT_EQ(diff.changes[2].old_bytes, 0);

  // --top caps the list, not the counts.
  const ProgramDiff capped = Diff(Load(test::SourcePath("samples/jax/mlp_train_step")),
                                  Load(copy), /*top_n=*/1);
  EXPECT_EQ(capped.changes.size(), 1u);
  EXPECT_EQ(capped.changed_values, 3);
}

// The same program read from its text dump and from its HloProto: every
// value is the same value, so no value changes.
TEST(Diff, TwoFormatsOfOneProgramHaveNoValueChanges) {
  for (const test::Sample& sample : test::TruthSamples()) {
    SCOPED_TRACE(sample.name);
    const Loaded text = Load(test::SourcePath(sample.path));
    const std::string proto = test::SourcePath(
        sample.path + "/" + text.loaded.program.module_name + ".cpu_after_optimizations.hlo.pb");
    ASSERT_TRUE(test::FileExists(proto)) << proto;
    const Loaded binary = Load(proto);
    ASSERT_EQ(text.loaded.program.values.size(), binary.loaded.program.values.size());
    const ProgramDiff diff = Diff(text, binary, /*top_n=*/0);
    EXPECT_EQ(diff.changed_values, 0);
    EXPECT_EQ(diff.unchanged_values, static_cast<int64_t>(text.loaded.program.values.size()));
    for (const auto& c : diff.changes) ADD_FAILURE() << c.name;
  }
}

// The entry parameter numbered `number`, or nullptr.
const ir::Instruction* EntryParameterOf(const ir::Program& program, const ir::Value& v) {
  if (!program.module.contains(v.instruction)) return nullptr;
  const ir::Instruction& i = program.module.instruction(v.instruction);
  if (i.opcode != ir::Opcode::kParameter || i.computation != program.module.entry) return nullptr;
  return &i;
}

// The same transformer block in f32 and in bf16 (samples/jax, same Python
// code, truth.json says every input is f32 in one and bf16 in the other): a
// dtype change is one change per value. Every argument is the same
// parameter on both sides and shrank to half; none vanished or appeared.
TEST(Diff, ADtypeChangeIsOneChangePerValue) {
  const Loaded f32 = Load(test::SourcePath("samples/jax/transformer_block_f32"));
  const Loaded bf16 = Load(test::SourcePath("samples/jax/transformer_block_bf16"));
  const ProgramDiff diff = Diff(f32, bf16, /*top_n=*/0);
  int parameters = 0;
  for (const auto& c : diff.changes) {
    const ir::Value* old_value = c.old_id.valid() ? f32.loaded.program.FindValue(c.old_id) : nullptr;
    const ir::Value* new_value =
        c.new_id.valid() ? bf16.loaded.program.FindValue(c.new_id) : nullptr;
    const ir::Instruction* old_param =
        old_value ? EntryParameterOf(f32.loaded.program, *old_value) : nullptr;
    const ir::Instruction* new_param =
        new_value ? EntryParameterOf(bf16.loaded.program, *new_value) : nullptr;
    if (old_param == nullptr && new_param == nullptr) continue;
    SCOPED_TRACE(c.name);
    ++parameters;
    ASSERT_NE(old_param, nullptr);
    ASSERT_NE(new_param, nullptr);
    EXPECT_EQ(f32.loaded.program.module.attributes(*old_param).parameter_number,
              bf16.loaded.program.module.attributes(*new_param).parameter_number);
    EXPECT_EQ(c.kind, ValueChangeKind::kShrank);
    EXPECT_EQ(c.new_bytes * 2, c.old_bytes);
  }
  int entry_parameters = 0;
  for (const ir::Value& v : f32.loaded.program.values) {
    entry_parameters += EntryParameterOf(f32.loaded.program, v) != nullptr && v.index.empty();
  }
  EXPECT_GT(parameters, 0);
  EXPECT_EQ(parameters, entry_parameters);
}

// One value changes dtype (f32 -> bf16) and its instruction is renumbered,
// as a recompile does: matched by what it is (same opcode, same operands),
// it reads as one value that shrank, not as one that vanished and another
// that appeared (what matching by name or shape text gives).
TEST(Diff, ARenumberedValueWithANewDtypeIsOneChange) {
  namespace fs = std::filesystem;
  test::TempDir dir;
  const std::string copy = dir.File("bf16");
  std::error_code ec;
  fs::copy(test::SourcePath("samples/jax/mlp_train_step"), copy, fs::copy_options::recursive, ec);
  ASSERT_FALSE(ec) << ec.message();
  const std::string stem = copy + "/jit_mlp_train_step.cpu_after_optimizations";
  fs::remove(stem + ".hlo.pb");
  fs::remove(stem + "-memory-usage-report.txt");
  const std::regex name(R"(broadcast_maximum_fusion(?![.\w]))");
  for (const char* suffix : {"-buffer-assignment.txt", "-buffer-assignment-values.txt",
                             "-live-range.txt", ".txt"}) {
    const std::string file = stem + suffix;
    const std::string text =
        std::regex_replace(test::ReadFileOrDie(file), name, "broadcast_maximum_fusion.17");
    ASSERT_TRUE(test::WriteFile(file, text));
  }
  std::string text = test::ReadFileOrDie(stem + "-buffer-assignment.txt");
  test::ReplaceOnce(
      text, "<126 broadcast_maximum_fusion.17 @0> (size=131072,offset=0): f32[64,512]{1,0}",
      "<126 broadcast_maximum_fusion.17 @0> (size=65536,offset=0): bf16[64,512]{1,0}");
  ASSERT_TRUE(test::WriteFile(stem + "-buffer-assignment.txt", text));

  const ProgramDiff diff =
      Diff(Load(test::SourcePath("samples/jax/mlp_train_step")), Load(copy), /*top_n=*/0);
  ASSERT_EQ(diff.changes.size(), 1u);
  EXPECT_EQ(diff.changes[0].kind, ValueChangeKind::kShrank);
  EXPECT_EQ(diff.changes[0].name, "broadcast_maximum_fusion.17");
  EXPECT_EQ(diff.changes[0].old_shape, "f32[64,512]{1,0}");
  EXPECT_EQ(diff.changes[0].new_shape, "bf16[64,512]{1,0}");
  EXPECT_EQ(diff.changes[0].delta(), -65536);
  EXPECT_EQ(diff.summary[static_cast<int>(ValueChangeKind::kVanished)].count, 0);
  EXPECT_EQ(diff.summary[static_cast<int>(ValueChangeKind::kAppeared)].count, 0);
}

test::CommandResult Memplan(std::vector<std::string> args) {
  args.insert(args.begin(), MEMPLAN_BINARY);
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

TEST(DiffCli, JsonOfADumpAgainstItselfSaysUnchanged) {
  const test::CommandResult r = Memplan(
      {"diff", "samples/jax/scan_loop", "samples/jax/scan_loop", "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(r.out);
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  const llvm::json::Object* o = json->getAsObject();
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->getBoolean("changed"), false);
  EXPECT_EQ(o->getInteger("schema_version"), int64_t{1});
  const llvm::json::Array* changes = o->getArray("changes");
  ASSERT_NE(changes, nullptr);
  EXPECT_TRUE(changes->empty());
}

TEST(DiffCli, WritesAtomicallyAndFailsCleanly) {
  test::TempDir dir;
  const std::string grown = test::GrownMlpCopy(dir.File("grown"));
  ASSERT_FALSE(grown.empty());
  test::CommandResult r = Memplan({"diff", "samples/jax/mlp_train_step", grown, "--format=json",
                                   "-o", dir.File("diff.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(test::ReadFileOrDie(dir.File("diff.json")));
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  const llvm::json::Array* changes = json->getAsObject()->getArray("changes");
  ASSERT_NE(changes, nullptr);
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].getAsObject()->getString("change"), llvm::StringRef("grew"));
  EXPECT_EQ((*changes)[0].getAsObject()->getInteger("delta_bytes"), int64_t{131072});

  r = Memplan({"diff", "samples/jax/mlp_train_step", "no/such/dump", "-o", dir.File("x.txt")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no/such/dump"), std::string::npos) << r.err;
  EXPECT_EQ(dir.List(), (std::vector<std::string>{"diff.json", "grown"}));
}

}  // namespace
}  // namespace memplan
