#include "parsers/instruction_names.h"

#include "ir/opcode.h"

namespace memplan::parsers {

InstructionNames::InstructionNames(ir::Module& module) : module_(module) {
  by_name_.Reserve(module.instruction_count());
  for (const ir::Instruction& instruction : module.instructions()) {
    by_name_.Insert(instruction.name, instruction.id.value());  // the first of a name wins
  }
}

ir::InstructionId InstructionNames::Resolve(std::string_view name) {
  if (name == last_name_ && last_id_.valid()) return last_id_;
  ir::InstructionId id;
  if (const int64_t found = by_name_.Find(name); found >= 0) {
    id = ir::InstructionId(found);
  } else {
    ir::Instruction instruction;
    instruction.name = arena_ != nullptr ? arena_->Copy(name) : name;
    id = module_.AddInstruction(std::move(instruction));
    by_name_.Insert(name, id.value());
    ++added_;
  }
  last_name_ = name;
  last_id_ = id;
  return id;
}

ir::InstructionId InstructionNames::Find(std::string_view name) const {
  const int64_t found = by_name_.Find(name);
  return found >= 0 ? ir::InstructionId(found) : ir::InstructionId();
}

namespace {

// The layout details of `shape` and of every shape in it, interned.
void InternLayoutDetails(TextInterner& interner, ir::Shape& shape) {
  if (shape.layout) shape.layout->details = interner.Intern(shape.layout->details);
  for (ir::Shape& element : shape.tuple_elements) InternLayoutDetails(interner, element);
}

}  // namespace

void InstructionNames::Describe(ir::InstructionId id, const InstructionFacts& facts) {
  ir::Instruction& instruction = module_.mutable_instruction(id);
  if (instruction.computation.valid()) return;
  const auto keep = [&](std::string_view text) {
    return interner_ != nullptr ? interner_->Intern(text) : text;
  };
  if (instruction.opcode_text.empty() && !facts.opcode.empty()) {
    instruction.opcode_text = keep(facts.opcode);
    instruction.opcode = ir::OpcodeFromName(facts.opcode);
  }
  if (instruction.metadata->empty()) {
    ir::OpMetadata metadata = facts.metadata;
    metadata.op_type = keep(facts.metadata.op_type);
    metadata.op_name = keep(facts.metadata.op_name);
    metadata.source_file = keep(facts.metadata.source_file);
    instruction.metadata = module_.StoreMetadata(metadata);
  }
  if (instruction.shape->dtype == ir::DType::kInvalid && facts.shape) {
    ir::Shape shape = *facts.shape;
    if (interner_ != nullptr) InternLayoutDetails(*interner_, shape);
    instruction.shape = module_.InternShape(shape);
  }
}

bool InstructionNames::Described(ir::InstructionId id) const {
  const ir::Instruction& instruction = module_.instruction(id);
  return instruction.computation.valid() ||
         (!instruction.opcode_text.empty() && !instruction.metadata->empty() &&
          instruction.shape->dtype != ir::DType::kInvalid);
}

void MarkNamesOnlyGraph(ir::Module& module) {
  if (!module.computations().empty() || !module.gaps.empty()) return;
  module.gaps = {ir::GraphGap::kComputations, ir::GraphGap::kOperands, ir::GraphGap::kShapes,
                 ir::GraphGap::kAttributes};
}

}  // namespace memplan::parsers
