#include "tests/test_util.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "gtest/gtest.h"
#include "parsers/buffer_assignment_parser.h"
#include "parsers/hlo_text_parser.h"
#include "parsers/source_text.h"

namespace memplan::test {

namespace fs = std::filesystem;

std::string SourcePath(std::string_view relative) {
  return std::string(MEMPLAN_SOURCE_DIR) + "/" + std::string(relative);
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

bool FileExists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

bool WriteFile(const std::string& path, std::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  return static_cast<bool>(out);
}

absl::StatusOr<ir::Program> ParseTexts(
    const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::shared_ptr<const parsers::SourceText>> sources;
  for (const auto& [name, contents] : files) {
    sources.push_back(parsers::SourceText::FromString(name, contents));
  }
  return parsers::ParseBufferAssignment(sources, ir::Program::Named("test_module"));
}

const ir::Instruction& ParsedHloModule::Named(std::string_view name) const {
  for (const ir::Instruction& i : module.instructions()) {
    if (i.name == name) return i;
  }
  ADD_FAILURE() << "no instruction " << name;
  return module.instructions().front();
}

std::unique_ptr<ParsedHloModule> ParseHloModule(std::string_view file_name, std::string_view text) {
  auto p = std::make_unique<ParsedHloModule>();
  p->source = parsers::SourceText::FromString(std::string(file_name), std::string(text));
  ir::Diagnostics diagnostics;
  p->status = parsers::ParseHloModuleText(*p->source, &p->module, &diagnostics);
  return p;
}

absl::StatusOr<ir::Program> ParseText(std::string_view text, std::string name) {
  return ParseTexts({{std::move(name), std::string(text)}});
}

void PrintTo(const Sample& sample, std::ostream* os) {
  *os << sample.name << " (" << sample.path;
  if (!sample.module.empty()) *os << " --module=" << sample.module;
  *os << ")";
}

std::vector<Sample> JaxSamples() {
  std::vector<Sample> samples;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(SourcePath("samples/jax"), ec)) {
    if (!entry.is_directory(ec)) continue;
    const std::string name = entry.path().filename().string();
    samples.push_back({"jax_" + name, "samples/jax/" + name, "", true});
  }
  std::sort(samples.begin(), samples.end(),
            [](const Sample& a, const Sample& b) { return a.name < b.name; });
  return samples;
}

std::vector<Sample> ShardedSamples() {
  std::vector<Sample> samples;
  std::error_code ec;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(SourcePath("samples/sharded"), ec)) {
    if (!entry.is_directory(ec) || !fs::exists(entry.path() / "truth.json", ec)) continue;
    const std::string name = entry.path().filename().string();
    samples.push_back({"sharded_" + name, "samples/sharded/" + name, "", true});
  }
  std::sort(samples.begin(), samples.end(),
            [](const Sample& a, const Sample& b) { return a.name < b.name; });
  return samples;
}

std::vector<Sample> TruthSamples() {
  std::vector<Sample> samples = JaxSamples();
  for (Sample& s : ShardedSamples()) samples.push_back(std::move(s));
  return samples;
}

std::vector<Sample> AllSamples() {
  std::vector<Sample> samples = {
      {"seed004", "samples/xla/seed004_gpu_decode-buffer-assignment.txt", "", true},
      {"appended_gpu",
       "samples/xla/module_0042.jit_train_step.sm_8.0_gpu_after_optimizations-buffer-assignment.txt",
       "", true},
      {"no_live_range_tpu",
       "samples/xla/module_0105.jit_serve_step.tpu_after_optimizations-buffer-assignment.txt", "",
       false},
      {"split_dump", "samples/xla/split_dump", "", true},
      {"two_modules", "samples/xla/two_modules", "", false},
      {"two_modules_init", "samples/xla/two_modules", "jit_init_params", true},
  };
  for (Sample& s : JaxSamples()) samples.push_back(std::move(s));
  return samples;
}

TempDir::TempDir() {
  std::string pattern = ::testing::TempDir() + "memplan_test.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp failed for " << pattern;
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::vector<std::string> TempDir::List() const {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(path_, ec)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& cwd) {
  CommandResult result;
  TempDir capture;
  const std::string out_path = capture.File("stdout");
  const std::string err_path = capture.File("stderr");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork failed";
    return result;
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0 ||
        ::chdir(cwd.c_str()) != 0) {
      ::_exit(127);
    }
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      ADD_FAILURE() << "waitpid failed";
      return result;
    }
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = ReadFileOrDie(out_path);
  result.err = ReadFileOrDie(err_path);
  return result;
}

}  // namespace memplan::test
