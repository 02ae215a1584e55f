#include "ir/parameter_readers.h"

#include <cstddef>
#include <string>
#include <utility>

namespace memplan::ir {

InstructionId AddReaderOf(Module* module, ComputationId computation, InstructionId operand,
                          Opcode opcode, std::string_view opcode_text, std::string_view suffix,
                          const Shape& shape) {
  Instruction reader;
  reader.computation = computation;
  reader.name = module->Intern(std::string(module->instruction(operand).name) + std::string(suffix));
  reader.opcode = opcode;
  reader.opcode_text = opcode_text;
  reader.shape = module->InternShape(shape);
  reader.operands = {operand};
  return module->AddInstruction(std::move(reader));
}

void ScheduleAfterParameters(Module* module, ComputationId computation,
                             const std::vector<InstructionId>& added) {
  Computation& c = module->mutable_computation(computation);
  size_t after = 0;
  for (size_t k = 0; k < c.instructions.size(); ++k) {
    if (module->instruction(c.instructions[k]).opcode == Opcode::kParameter) after = k + 1;
  }
  c.instructions.insert(c.instructions.begin() + static_cast<std::ptrdiff_t>(after), added.begin(),
                        added.end());
}

}  // namespace memplan::ir
