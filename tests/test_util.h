// Helpers shared by memplan's tests: repository paths, inline parsing, the
// list of samples every invariant test runs over, temporary directories, and
// running the built `memplan` binary.
#ifndef MEMPLAN_TESTS_TEST_UTIL_H_
#define MEMPLAN_TESTS_TEST_UTIL_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/program.h"
#include "parsers/source_text.h"

namespace memplan::test {

// `relative` (e.g. "samples/xla/split_dump") under the source tree.
std::string SourcePath(std::string_view relative);

// The whole file; an empty string (and a test failure) when it cannot be read.
std::string ReadFileOrDie(const std::string& path);
bool FileExists(const std::string& path);
bool WriteFile(const std::string& path, std::string_view contents);

// Parses buffer-assignment text given inline. Each pair is (name, contents);
// the names stand for file names in messages.
absl::StatusOr<ir::Program> ParseTexts(
    const std::vector<std::pair<std::string, std::string>>& files);
absl::StatusOr<ir::Program> ParseText(std::string_view text, std::string name = "t.txt");

// An HLO module text parsed by parsers::ParseHloModuleText, with its source
// (the module's names point into it) and the parse's status.
struct ParsedHloModule {
  std::shared_ptr<const parsers::SourceText> source;
  ir::Module module;
  absl::Status status;
  // The first instruction named `name`; a test failure (and the module's
  // first instruction) when there is none. Requires a non-empty module.
  const ir::Instruction& Named(std::string_view name) const;
};
std::unique_ptr<ParsedHloModule> ParseHloModule(std::string_view file_name, std::string_view text);

// The name of instruction `id` ("" for an invalid id): tests compare names
// where a reader knows them.
inline std::string_view NameOf(const ir::Program& program, ir::InstructionId id) {
  return program.InstructionName(id);
}
// The instruction defining `value` (requires a valid instruction id).
inline const ir::Instruction& Defining(const ir::Program& program, const ir::Value& value) {
  return program.DefiningInstruction(value);
}

// One input `memplan analyze` is run on in the invariant and golden tests.
struct Sample {
  std::string name;    // test and golden-file name: "seed004", "jax_scan_loop"
  std::string path;    // relative to the source tree
  std::string module;  // --module for a dump directory; empty: the default
  bool has_live_ranges = true;
};

// gtest prints a parameter by its name.
void PrintTo(const Sample& sample, std::ostream* os);

// The hand-written samples/xla/ inputs, then every samples/jax/* case.
std::vector<Sample> AllSamples();
// Only the samples/jax/* cases (each has a truth.json).
std::vector<Sample> JaxSamples();

// The single-device compiles of samples/sharded/* (each has a truth.json),
// named "sharded_<program>".
std::vector<Sample> ShardedSamples();
// Every dump with XLA's memory_analysis() beside it: JaxSamples(), then
// ShardedSamples().
std::vector<Sample> TruthSamples();

// gtest parameter names: the sample's name.
struct SampleName {
  std::string operator()(const auto& info) const { return info.param.name; }
};

// A fresh directory under the test temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(std::string_view name) const { return path_ + "/" + std::string(name); }
  // Names of the entries in the directory, sorted.
  std::vector<std::string> List() const;

 private:
  std::string path_;
};

struct CommandResult {
  int exit_code = -1;  // -1 when the process did not exit normally
  int signal = 0;      // the signal that ended it, if one did
  std::string out;
  std::string err;
};

// Runs argv[0] (a path, not searched in PATH) with `argv` in directory `cwd`.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& cwd);

}  // namespace memplan::test

#endif  // MEMPLAN_TESTS_TEST_UTIL_H_
