// The command-line flags shared by `memplan plan`, `predict` and `rank`, one
// definition each: the inputs a sharding family needs (--family-inputs FILE,
// --data, --tp-plan, --ep, --min-fsdp-elements) and the plan files of a
// sweep (`PROGRAM --plans A.yaml B.yaml ...`). Included only by *_flags.cc
// files (built without RTTI, like LLVM).
#ifndef MEMPLAN_CLI_FAMILY_INPUT_FLAGS_H_
#define MEMPLAN_CLI_FAMILY_INPUT_FLAGS_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/family_inputs.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {

// The family-input flags of one subcommand.
class FamilyInputOptions {
 public:
  explicit FamilyInputOptions(llvm::cl::SubCommand& command)
      : file_("family-inputs", llvm::cl::sub(command), llvm::cl::value_desc("file"),
              llvm::cl::desc("Family inputs (families.yaml: data, min_fsdp_elements, tp, ep)")),
        data_("data", llvm::cl::sub(command), llvm::cl::value_desc("names"),
              llvm::cl::desc("Data arguments (top-level names), sharded on their leading "
                             "dimension by dp, fsdp and ep: x,y")),
        tp_plan_("tp-plan", llvm::cl::sub(command), llvm::cl::value_desc("file"),
                 llvm::cl::desc("Tensor-parallel plan: a YAML/JSON mapping glob -> colwise | "
                                "rowwise | sequence")),
        ep_("ep", llvm::cl::sub(command), llvm::cl::value_desc("globs"),
            llvm::cl::desc("Expert parameters (globs), sharded on dimension 0 over ep")),
        min_fsdp_elements_("min-fsdp-elements", llvm::cl::sub(command),
                           llvm::cl::value_desc("N"),
                           llvm::cl::desc("fsdp shards parameters of at least N elements "
                                          "(default 262144)")) {}

  // What the command line gave; flags not given stay unset.
  FamilyInputFlags Flags() const {
    FamilyInputFlags flags;
    flags.families_file = file_;
    if (data_.getNumOccurrences() > 0) flags.data = data_;
    if (ep_.getNumOccurrences() > 0) flags.ep = ep_;
    flags.tp_plan = tp_plan_;
    if (min_fsdp_elements_.getNumOccurrences() > 0) flags.min_fsdp_elements = min_fsdp_elements_;
    return flags;
  }

 private:
  llvm::cl::opt<std::string> file_;
  llvm::cl::opt<std::string> data_;
  llvm::cl::opt<std::string> tp_plan_;
  llvm::cl::opt<std::string> ep_;
  llvm::cl::opt<int64_t> min_fsdp_elements_;
};

// The plan files of `memplan COMMAND PROGRAM --plans A.yaml B.yaml ...`:
// llvm::cl gives --plans the first file and the positionals the rest, so
// the files are `plans` followed by `positionals` after the PROGRAM. A second
// positional without --plans is a usage error, printed on stderr: nullopt.
inline std::optional<std::vector<std::string>> PlanFilesOf(
    const char* command, const llvm::cl::list<std::string>& positionals,
    const llvm::cl::list<std::string>& plans) {
  std::vector<std::string> files(plans.begin(), plans.end());
  if (positionals.size() > 1) {
    if (plans.empty()) {
      std::fprintf(stderr, "memplan %s: unexpected argument '%s'; expected one PROGRAM (plan "
                           "files follow --plans)\n", command, positionals[1].c_str());
      return std::nullopt;
    }
    files.insert(files.end(), positionals.begin() + 1, positionals.end());
  }
  return files;
}

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_FAMILY_INPUT_FLAGS_H_
