// --jaxpr-rules: which of XLA's optional rules lower a jaxpr file
// (ir::JaxprProgramOptions; docs/jaxpr.md says what each does and when it
// holds).
#ifndef MEMPLAN_CLI_JAXPR_RULES_H_
#define MEMPLAN_CLI_JAXPR_RULES_H_

#include <string_view>

#include "ir/jaxpr_program.h"

namespace memplan::cli {

// Sets in `options` each rule a comma-separated `list` names: cpu-bf16
// (cpu_bf16_in_f32), fold-dot-transposes, copy-donated
// (copy_donated_parameters), share-outputs (share_output_operands). An
// empty list sets nothing. On an unknown name prints "memplan:
// --jaxpr-rules=...: expected ..." to stderr and returns false.
bool ApplyJaxprRules(std::string_view list, ir::JaxprProgramOptions* options);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_JAXPR_RULES_H_
