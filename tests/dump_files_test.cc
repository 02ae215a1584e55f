// Finding modules in an --xla_dump_to directory and choosing one: by name,
// or the largest by "Total bytes used" (never silently the first).
#include "parsers/dump_files.h"

#include <filesystem>

#include "gtest/gtest.h"
#include "parsers/load_program.h"
#include "tests/test_util.h"

namespace memplan::parsers {
namespace {

TEST(ModuleNameFromFileName, DropsPrefixPhaseAndSuffix) {
  EXPECT_EQ(ModuleNameFromFileName(
                "module_0005.jit_train_step.cpu_after_optimizations-buffer-assignment.txt"),
            "jit_train_step");
  EXPECT_EQ(ModuleNameFromFileName(
                "module_0005.jit_train_step.cpu_after_optimizations-buffer-assignment-values.txt"),
            "jit_train_step");
  EXPECT_EQ(ModuleNameFromFileName("module_0005.jit_train_step.cpu_after_optimizations-live-range.txt"),
            "jit_train_step");
  EXPECT_EQ(ModuleNameFromFileName(
                "module_0042.jit_train_step.sm_8.0_gpu_after_optimizations-buffer-assignment.txt"),
            "jit_train_step");
  EXPECT_EQ(ModuleNameFromFileName(
                "module_0105.jit_serve_step.tpu_after_optimizations-buffer-assignment.txt"),
            "jit_serve_step");
  // The JAX samples drop XLA's "module_NNNN." prefix.
  EXPECT_EQ(ModuleNameFromFileName("jit_donated_args.cpu_after_optimizations-buffer-assignment.txt"),
            "jit_donated_args");
  EXPECT_EQ(ModuleNameFromFileName("dump.txt"), "dump");
}

TEST(FindDumpModules, GroupsTheSplitFilesOfOneModule) {
  absl::StatusOr<std::vector<DumpModule>> modules =
      FindDumpModules(test::SourcePath("samples/xla/split_dump"));
  ASSERT_TRUE(modules.ok()) << modules.status();
  ASSERT_EQ(modules->size(), 1u);
  const DumpModule& m = modules->front();
  EXPECT_EQ(m.name, "jit_step");
  EXPECT_EQ(m.stem, "module_0001.jit_step.cpu_after_optimizations");
  ASSERT_EQ(m.files.size(), 3u);
  EXPECT_TRUE(m.files[0].ends_with("-buffer-assignment.txt"));
  EXPECT_TRUE(m.files[1].ends_with("-buffer-assignment-values.txt"));
  EXPECT_TRUE(m.files[2].ends_with("-live-range.txt"));
  // The values file states "Total bytes used: 458876".
  EXPECT_TRUE(m.size_hint_is_total_bytes);
  EXPECT_EQ(m.size_hint, 458876);
}

TEST(FindDumpModules, SizesModulesByTheirStatedTotal) {
  absl::StatusOr<std::vector<DumpModule>> modules =
      FindDumpModules(test::SourcePath("samples/xla/two_modules"));
  ASSERT_TRUE(modules.ok()) << modules.status();
  ASSERT_EQ(modules->size(), 2u);
  EXPECT_EQ((*modules)[0].name, "jit_init_params");  // sorted by stem
  EXPECT_EQ((*modules)[0].size_hint, 526360);         // its "Total bytes used"
  EXPECT_EQ((*modules)[1].name, "jit_train_step");
  EXPECT_EQ((*modules)[1].size_hint, 83886088);
  EXPECT_TRUE((*modules)[1].size_hint_is_total_bytes);
}

TEST(FindDumpModules, NoDumpIsNotFound) {
  test::TempDir dir;
  test::WriteFile(dir.File("notes.txt"), "hello\n");
  absl::StatusOr<std::vector<DumpModule>> modules = FindDumpModules(dir.path());
  ASSERT_FALSE(modules.ok());
  EXPECT_EQ(modules.status().code(), absl::StatusCode::kNotFound);
}

std::vector<DumpModule> TwoModules() {
  absl::StatusOr<std::vector<DumpModule>> modules =
      FindDumpModules(test::SourcePath("samples/xla/two_modules"));
  EXPECT_TRUE(modules.ok());
  return modules.ok() ? *modules : std::vector<DumpModule>{};
}

TEST(ChooseModule, DefaultIsTheProgramWithTheMostInstructionsNotTheMostBytes) {
  const std::vector<DumpModule> modules = TwoModules();
  ASSERT_EQ(modules.size(), 2u);
  // Counted in each module's text: the helper jit has fewer instructions
  // (and its buffer-assignment file is the larger one).
  EXPECT_EQ(modules[0].instruction_count_basis, InstructionCountBasis::kModuleText);
  EXPECT_EQ(modules[0].instruction_count, 12);
  EXPECT_EQ(modules[1].instruction_count, 15);
  absl::StatusOr<ModuleChoice> chosen = ChooseModule(modules, "");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(modules[chosen->index].name, "jit_train_step");
  EXPECT_EQ(chosen->reason, ModuleChoiceReason::kMostInstructions);
}

TEST(ChooseModule, ByNameStemOrUniqueSubstring) {
  const std::vector<DumpModule> modules = TwoModules();
  for (std::string_view wanted :
       {"jit_init_params", "module_0001.jit_init_params.cpu_after_optimizations", "init"}) {
    absl::StatusOr<ModuleChoice> chosen = ChooseModule(modules, wanted);
    ASSERT_TRUE(chosen.ok()) << wanted << ": " << chosen.status();
    EXPECT_EQ(modules[chosen->index].name, "jit_init_params") << wanted;
    EXPECT_EQ(chosen->reason, ModuleChoiceReason::kNamed);
  }
}

TEST(ChooseModule, AmbiguousOrUnknownNamesListTheCandidates) {
  const std::vector<DumpModule> modules = TwoModules();
  absl::StatusOr<ModuleChoice> ambiguous = ChooseModule(modules, "jit");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(ambiguous.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ambiguous.status().message().find("several"), std::string::npos);
  EXPECT_NE(ambiguous.status().message().find(
                "module_0001.jit_init_params.cpu_after_optimizations, "
                "module_0002.jit_train_step.cpu_after_optimizations"),
            std::string::npos)
      << ambiguous.status();
  absl::StatusOr<ModuleChoice> unknown = ChooseModule(modules, "jit_eval");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("matches no module"), std::string::npos);
}

TEST(ChooseModule, TwoModulesOfOneNameAreAmbiguousByName) {
  std::vector<DumpModule> modules(2);
  modules[0].name = modules[1].name = "jit_step";
  modules[0].stem = "module_0003.jit_step.cpu_after_optimizations";
  modules[1].stem = "module_0007.jit_step.cpu_after_optimizations";
  absl::StatusOr<ModuleChoice> by_name = ChooseModule(modules, "jit_step");
  ASSERT_FALSE(by_name.ok());
  EXPECT_NE(by_name.status().message().find("module_0003"), std::string::npos);
  EXPECT_NE(by_name.status().message().find("module_0007"), std::string::npos);
  absl::StatusOr<ModuleChoice> by_stem = ChooseModule(modules, modules[1].stem);
  ASSERT_TRUE(by_stem.ok());
  EXPECT_EQ(by_stem->index, 1u);
}

TEST(ChooseModule, TiesGoToMostBytesThenTheFirstStem) {
  std::vector<DumpModule> modules(3);
  modules[0].name = "a";
  modules[0].stem = "module_0003.a";
  modules[0].size_hint = 10;
  modules[1].name = "b";
  modules[1].stem = "module_0001.b";
  modules[1].size_hint = 10;
  modules[2].name = "c";
  modules[2].stem = "module_0002.c";
  modules[2].size_hint = 9;
  for (DumpModule& m : modules) m.instruction_count = 4;
  absl::StatusOr<ModuleChoice> chosen = ChooseModule(modules, "");
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(modules[chosen->index].name, "b");
  modules[2].instruction_count = 5;  // more instructions beat more bytes
  chosen = ChooseModule(modules, "");
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(modules[chosen->index].name, "c");
  EXPECT_FALSE(ChooseModule({}, "").ok());
}

TEST(FindDumpModules, ReadsDirectoriesOfProtosOrReportsAndPrefersTheBufferAssignment) {
  test::TempDir dir;
  namespace fs = std::filesystem;
  const fs::path jax = test::SourcePath("samples/jax/mlp_train_step");
  const std::string stem = "jit_mlp_train_step.cpu_after_optimizations";
  fs::copy_file(jax / (stem + ".hlo.pb"), dir.File("module_0004." + stem + ".hlo.pb"));
  // XLA's dump of the module before optimizations has no buffer assignment.
  test::WriteFile(dir.File("module_0004.jit_mlp_train_step.before_optimizations.hlo.pb"), "x");
  test::WriteFile(dir.File("module_0002.jit_helper.cpu_after_optimizations-memory-usage-report.txt"),
                  test::ReadFileOrDie(jax / (stem + "-memory-usage-report.txt")));
  absl::StatusOr<std::vector<DumpModule>> modules = FindDumpModules(dir.path());
  ASSERT_TRUE(modules.ok()) << modules.status();
  ASSERT_EQ(modules->size(), 2u);
  EXPECT_TRUE((*modules)[0].files[0].ends_with("-memory-usage-report.txt"));
  EXPECT_TRUE((*modules)[1].files[0].ends_with(".hlo.pb"));
  EXPECT_EQ((*modules)[1].number, 4);
  absl::StatusOr<LoadedProgram> loaded = LoadProgram(dir.path(), {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();

  // With the text dump beside it, the buffer assignment is read instead.
  for (std::string_view suffix : {"-buffer-assignment.txt", "-buffer-assignment-values.txt",
                                  "-live-range.txt", ".txt"}) {
    fs::copy_file(jax / (stem + std::string(suffix)),
                  dir.File("module_0004." + stem + std::string(suffix)));
  }
  modules = FindDumpModules(dir.path());
  ASSERT_TRUE(modules.ok()) << modules.status();
  ASSERT_EQ(modules->size(), 2u);
  EXPECT_TRUE((*modules)[1].files[0].ends_with("-buffer-assignment.txt"));
  EXPECT_EQ((*modules)[1].instruction_count_basis, InstructionCountBasis::kModuleText);
  EXPECT_GT((*modules)[1].instruction_count, 100);
}

TEST(LoadProgram, ADirectorySaysWhichModuleAndWhy) {
  absl::StatusOr<LoadedProgram> loaded =
      LoadProgram(test::SourcePath("samples/xla/two_modules"), {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->program.module_name, "jit_train_step");
  EXPECT_EQ(loaded->modules.size(), 2u);
  ASSERT_TRUE(loaded->choice.has_value());
  EXPECT_EQ(loaded->choice->reason, ModuleChoiceReason::kMostInstructions);

  LoadOptions named;
  named.module = "jit_init_params";
  absl::StatusOr<LoadedProgram> init =
      LoadProgram(test::SourcePath("samples/xla/two_modules"), named);
  ASSERT_TRUE(init.ok()) << init.status();
  EXPECT_EQ(init->program.module_name, "jit_init_params");
  EXPECT_EQ(init->choice->reason, ModuleChoiceReason::kNamed);
}

TEST(LoadProgram, ASingleFileNeedsNoChoice) {
  absl::StatusOr<LoadedProgram> loaded = LoadProgram(
      test::SourcePath("samples/xla/module_0042.jit_train_step.sm_8.0_gpu_after_optimizations-"
                       "buffer-assignment.txt"),
      {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->program.module_name, "jit_train_step");
  EXPECT_FALSE(loaded->choice.has_value());
  EXPECT_EQ(loaded->program.source_files.size(), 1u);
}

TEST(LoadProgram, MissingPathIsNotFound) {
  absl::StatusOr<LoadedProgram> loaded = LoadProgram(test::SourcePath("samples/no/such/file"), {});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(loaded.status().message().find("samples/no/such/file"), std::string::npos);
}

}  // namespace
}  // namespace memplan::parsers
