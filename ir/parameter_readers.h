// Inserting one-operand instructions that read an entry computation's
// parameters (a copy, a convert) the way XLA's passes place them: right
// after the last parameter. Shared by the jaxpr lowering's XLA rules
// (ir/jaxpr_copies.h, ir/jaxpr_cpu_bf16.h).
#ifndef MEMPLAN_IR_PARAMETER_READERS_H_
#define MEMPLAN_IR_PARAMETER_READERS_H_

#include <string_view>
#include <vector>

#include "ir/module.h"

namespace memplan::ir {

// Adds to `module` an instruction of `computation` that computes `opcode`
// (printed `opcode_text`, which must outlive the module: a literal) of
// `operand` into `shape`, named operand's name
// followed by `suffix`. It is not scheduled yet (ScheduleAfterParameters).
InstructionId AddReaderOf(Module* module, ComputationId computation, InstructionId operand,
                          Opcode opcode, std::string_view opcode_text, std::string_view suffix,
                          const Shape& shape);

// Inserts `added`, in order, into `computation`'s schedule right after its
// last parameter instruction (at the front when it has none).
void ScheduleAfterParameters(Module* module, ComputationId computation,
                             const std::vector<InstructionId>& added);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_PARAMETER_READERS_H_
