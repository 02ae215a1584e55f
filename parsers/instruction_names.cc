#include "parsers/instruction_names.h"

#include <algorithm>
#include <cstring>

#include "ir/opcode.h"

namespace memplan::parsers {

InstructionNames::InstructionNames(ir::Module& module) : module_(module) {
  by_name_.reserve(module.instruction_count());
  for (const ir::Instruction& instruction : module.instructions()) {
    if (!by_name_.contains(ToAbsl(instruction.name))) {
      by_name_.emplace(ToAbsl(Keep(instruction.name)), instruction.id);
    }
  }
}

std::string_view InstructionNames::Keep(std::string_view name) {
  constexpr size_t kBlock = 256 * 1024;
  if (name.size() > names_left_) {
    const size_t size = std::max(kBlock, name.size());
    names_.push_back(std::make_unique<char[]>(size));
    names_free_ = names_.back().get();
    names_left_ = size;
  }
  if (!name.empty()) std::memcpy(names_free_, name.data(), name.size());
  const std::string_view kept(names_free_, name.size());
  names_free_ += name.size();
  names_left_ -= name.size();
  return kept;
}

ir::InstructionId InstructionNames::Resolve(std::string_view name) {
  if (name == last_name_ && last_id_.valid()) return last_id_;
  ir::InstructionId id;
  if (auto it = by_name_.find(ToAbsl(name)); it != by_name_.end()) {
    id = it->second;
  } else {
    ir::Instruction instruction;
    instruction.name = name;
    id = module_.AddInstruction(std::move(instruction));
    by_name_.emplace(ToAbsl(Keep(name)), id);
    ++added_;
  }
  last_name_ = name;
  last_id_ = id;
  return id;
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
