#include "cli/commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class CheckSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    CheckFlags flags;
    flags.path = path_;
    flags.budget = budget_;
    flags.baseline = baseline_;
    flags.junit = junit_;
    flags.module = module_;
    flags.strict = strict_;
    flags.allow_truncated = allow_truncated_;
    return RunCheck(flags);
  }

 private:
  cl::SubCommand command_{"check",
                          "Check memory against budgets and a baseline, for CI (docs/ci.md)"};
  cl::opt<std::string> path_{cl::Positional, cl::Required, cl::sub(command_),
                             cl::desc("<buffer-assignment file or dump directory>")};
  cl::opt<std::string> budget_{"budget", cl::Required, cl::sub(command_), cl::value_desc("yaml"),
                               cl::desc("Budget file: limits per module (docs/ci.md)")};
  cl::opt<std::string> baseline_{
      "baseline", cl::sub(command_), cl::value_desc("path"),
      cl::desc("Fail on growth beyond the budget's 'regression' against this dump, or "
               "against JSON from 'memplan analyze --format=json'")};
  cl::opt<std::string> junit_{"junit", cl::sub(command_), cl::value_desc("file"),
                              cl::desc("Write JUnit XML results to <file> (atomically)")};
  cl::opt<std::string> module_{"module", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("Check only this module of a dump directory "
                                        "(default: every module)")};
  cl::opt<bool> strict_{"strict", cl::sub(command_),
                        cl::desc("Fail a budget that this input cannot check (a peak without "
                                 "live ranges, a category the input does not state) instead "
                                 "of reporting it as not checkable")};
  cl::opt<bool> allow_truncated_{
      "allow-truncated", cl::sub(command_),
      cl::desc("Check the budgets of an input that stops early (a cut paste) instead of "
               "failing them")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeCheckSubcommand() { return std::make_unique<CheckSubcommand>(); }

}  // namespace memplan::cli
