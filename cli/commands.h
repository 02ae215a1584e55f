// The subcommands behind `memplan`, as plain functions of their options so
// that main() only parses flags. Each returns the process exit code:
// 0 ok, 1 a check failed, 2 bad input or usage.
#ifndef MEMPLAN_CLI_COMMANDS_H_
#define MEMPLAN_CLI_COMMANDS_H_

#include <string>

namespace memplan::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;

enum class AnalyzeFormat { kText, kJson, kFolded };

struct AnalyzeFlags {
  std::string path;
  std::string module;
  AnalyzeFormat format = AnalyzeFormat::kText;
  std::string output = "-";
  int top = 10;
  std::string by = "op";  // attribution key: op, source, type
};

int RunAnalyze(const AnalyzeFlags& flags);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_COMMANDS_H_
