#include "cli/executor_commands.h"
#include "cli/executor_flags.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class ValidateSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    ValidateFlags flags;
    flags.common = common_.Get();
    flags.path = path_;
    flags.module = module_;
    flags.mode = mode_;
    if (max_peak_error_.getNumOccurrences() > 0) flags.max_peak_error_percent = max_peak_error_;
    flags.inject_failure = inject_failure_;
    return RunValidate(flags);
  }

 private:
  cl::SubCommand command_{"validate",
                          "Replay a plan (or a buffer assignment) on GPUs or the host and compare measured "
                          "with predicted"};
  cl::opt<std::string> path_{cl::Positional, cl::Required, cl::sub(command_),
                             cl::desc("<executor plan JSON, or a buffer assignment / dump directory>")};
  ExecutorOptions common_{command_};
  cl::opt<AllocationModeFlag> mode_{
      "mode", cl::sub(command_), cl::init(AllocationModeFlag::kDefault), cl::desc("How to allocate the plan's buffers"),
      cl::values(clEnumValN(AllocationModeFlag::kDefault, "default",
                            "arena when every buffer has an offset, else pool"),
                 clEnumValN(AllocationModeFlag::kArena, "arena", "one block, buffers at their offsets"),
                 clEnumValN(AllocationModeFlag::kPool, "pool",
                            "each buffer allocated over its live range (cudaMallocAsync pool)"))};
  cl::opt<double> max_peak_error_{"max-peak-error", cl::sub(command_), cl::value_desc("percent"),
                                  cl::desc("Exit 1 when a rank's measured peak is further than this from its "
                                           "planned peak")};
  cl::opt<std::string> module_{"module", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("Module of a dump directory (default: the largest)")};
  cl::opt<std::string> inject_failure_{"inject-failure", cl::sub(command_), cl::Hidden, cl::value_desc("rank:step"),
                                       cl::desc("Testing: make <rank> fail when it reaches <step>")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeValidateSubcommand() { return std::make_unique<ValidateSubcommand>(); }

}  // namespace memplan::cli
