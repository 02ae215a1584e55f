// One `memplan` subcommand's flags. Each subcommand lives in its own
// *_flags.cc file (compiled, like main.cc, without RTTI to match LLVM), which
// declares its llvm::cl options as members and forwards to a plain function
// in commands.h. main() builds them all, parses once and runs the chosen one.
#ifndef MEMPLAN_CLI_SUBCOMMAND_H_
#define MEMPLAN_CLI_SUBCOMMAND_H_

#include <memory>
#include <vector>

namespace memplan::cli {

class Subcommand {
 public:
  virtual ~Subcommand() = default;
  // True when the command line named this subcommand.
  virtual bool Selected() const = 0;
  // Runs it with the parsed flags; returns the exit code.
  virtual int Run() = 0;
};

std::unique_ptr<Subcommand> MakeAnalyzeSubcommand();
std::unique_ptr<Subcommand> MakeReportSubcommand();
std::unique_ptr<Subcommand> MakeCheckSubcommand();
std::unique_ptr<Subcommand> MakeDiffSubcommand();
// The simulator's: memplan hw, memplan calibrate.
std::unique_ptr<Subcommand> MakeHwSubcommand();
std::unique_ptr<Subcommand> MakeCalibrateSubcommand();
std::unique_ptr<Subcommand> MakeCostSubcommand();
std::unique_ptr<Subcommand> MakeModulesSubcommand();
std::unique_ptr<Subcommand> MakeCalltreeSubcommand();
std::unique_ptr<Subcommand> MakeShardSubcommand();
std::unique_ptr<Subcommand> MakePredictSubcommand();

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_SUBCOMMAND_H_
