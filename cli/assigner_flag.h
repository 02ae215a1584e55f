// The --assigner flag of `memplan predict`, `memplan rank` and `memplan
// report --plan`, one definition for all. Included only by *_flags.cc files
// (built without RTTI, like LLVM).
#ifndef MEMPLAN_CLI_ASSIGNER_FLAG_H_
#define MEMPLAN_CLI_ASSIGNER_FLAG_H_

#include <string>

#include "cli/commands.h"
#include "cli/errors.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {

class AssignerOption {
 public:
  explicit AssignerOption(llvm::cl::SubCommand& command)
      : assigner_("assigner", llvm::cl::sub(command), llvm::cl::init("rerun"),
                  llvm::cl::value_desc("rerun|keep"),
                  llvm::cl::desc("How the predicted per-device buffers are placed in "
                                 "allocations: rerun (XLA's buffer assigner re-run on them; "
                                 "the default) or keep (each stays in its single-device "
                                 "allocation while its shard fits); docs/accuracy.md")) {}

  // The value given, set in `assigner`; false after printing the error
  // when it is neither rerun nor keep.
  bool Apply(Assigner* assigner) const {
    if (assigner_ == "rerun") {
      *assigner = Assigner::kRerun;
    } else if (assigner_ == "keep") {
      *assigner = Assigner::kKeep;
    } else {
      PrintError("--assigner=" + assigner_ + ": expected rerun or keep");
      return false;
    }
    return true;
  }

 private:
  llvm::cl::opt<std::string> assigner_;
};

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_ASSIGNER_FLAG_H_
