#include "parsers/instruction_names.h"

#include "ir/opcode.h"

namespace memplan::parsers {

InstructionNames::InstructionNames(ir::Module& module) : module_(module) {
  by_name_.reserve(module.instruction_count());
  for (const ir::Instruction& instruction : module.instructions()) {
    by_name_.emplace(ToAbsl(instruction.name), instruction.id);
  }
}

ir::InstructionId InstructionNames::Resolve(std::string_view name) {
  if (name == last_name_ && last_id_.valid()) return last_id_;
  auto [it, inserted] = by_name_.try_emplace(ToAbsl(name));
  if (inserted) {
    ir::Instruction instruction;
    instruction.name = name;
    it->second = module_.AddInstruction(std::move(instruction));
    ++added_;
  }
  last_name_ = name;
  last_id_ = it->second;
  return it->second;
}

ir::InstructionId InstructionNames::Find(std::string_view name) const {
  auto it = by_name_.find(ToAbsl(name));
  return it == by_name_.end() ? ir::InstructionId() : it->second;
}

void InstructionNames::Describe(ir::InstructionId id, const InstructionFacts& facts) {
  ir::Instruction& instruction = module_.mutable_instruction(id);
  if (instruction.computation.valid()) return;
  if (instruction.opcode_text.empty() && !facts.opcode.empty()) {
    instruction.opcode_text = facts.opcode;
    instruction.opcode = ir::OpcodeFromName(facts.opcode);
  }
  if (instruction.metadata.empty()) instruction.metadata = facts.metadata;
  if (instruction.shape.dtype == ir::DType::kInvalid && facts.shape) {
    instruction.shape = *facts.shape;
  }
}

void MarkNamesOnlyGraph(ir::Module& module) {
  if (!module.computations().empty() || !module.gaps.empty()) return;
  module.gaps = {ir::GraphGap::kComputations, ir::GraphGap::kOperands, ir::GraphGap::kShapes,
                 ir::GraphGap::kAttributes};
}

}  // namespace memplan::parsers
