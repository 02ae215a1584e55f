#include "analyzer/call_graph.h"

namespace memplan::analyzer {

CallGraph::CallGraph(const ir::Module& module)
    : users_(module.instruction_count()), callers_(module.computations().size()) {
  for (const ir::Instruction& instruction : module.instructions()) {
    for (ir::InstructionId operand : instruction.operands) {
      if (!module.contains(operand)) continue;
      std::vector<ir::InstructionId>& users = users_[operand.value()];
      if (users.empty() || users.back() != instruction.id) users.push_back(instruction.id);
    }
    for (const ir::CalledComputation& call : instruction.calls) {
      if (!module.contains(call.computation)) continue;
      std::vector<ir::InstructionId>& callers = callers_[call.computation.value()];
      if (callers.empty() || callers.back() != instruction.id) callers.push_back(instruction.id);
    }
  }
}

}  // namespace memplan::analyzer
