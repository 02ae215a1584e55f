// The --jaxpr-rules flag of `memplan predict` and `memplan rank`, one
// definition for both. Included only by *_flags.cc files (built without
// RTTI, like LLVM).
#ifndef MEMPLAN_CLI_JAXPR_RULES_FLAG_H_
#define MEMPLAN_CLI_JAXPR_RULES_FLAG_H_

#include <string>

#include "cli/jaxpr_rules.h"
#include "ir/jaxpr_program.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {

class JaxprRulesOption {
 public:
  explicit JaxprRulesOption(llvm::cl::SubCommand& command)
      : rules_("jaxpr-rules", llvm::cl::sub(command), llvm::cl::value_desc("list"),
               llvm::cl::desc("Jaxpr PROGRAM: XLA rules to lower it with, comma-separated: "
                              "cpu-bf16 (XLA's CPU backend computes bf16 in f32), "
                              "fold-dot-transposes, copy-donated, share-outputs "
                              "(docs/jaxpr.md); default none")) {}

  // The rules given, set in `options` (ApplyJaxprRules); false after
  // printing the error when one is unknown.
  bool Apply(ir::JaxprProgramOptions* options) const { return ApplyJaxprRules(rules_, options); }

 private:
  llvm::cl::opt<std::string> rules_;
};

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_JAXPR_RULES_FLAG_H_
