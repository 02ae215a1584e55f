#include "ir/jaxpr_cpu_bf16.h"

#include "ir/parameter_readers.h"

#include <string>
#include <vector>

namespace memplan::ir {
namespace {

// Per instruction: whether it defines (a buffer of) the entry's result:
// the root, the root tuple's operands, through reshapes (bitcasts).
std::vector<bool> DefinesOutput(const Module& module) {
  std::vector<bool> out(module.instruction_count(), false);
  const Instruction& root = module.instruction(module.entry_computation()->root);
  std::vector<InstructionId> stack;
  if (root.opcode == Opcode::kTuple) {
    stack.assign(root.operands.begin(), root.operands.end());
  } else {
    stack = {root.id};
  }
  while (!stack.empty()) {
    const Instruction& inst = module.instruction(stack.back());
    stack.pop_back();
    out[static_cast<size_t>(inst.id.value())] = true;
    if (inst.opcode == Opcode::kReshape && inst.operands.size() == 1) stack.push_back(inst.operands[0]);
  }
  return out;
}

// Adds an f32 convert of each bf16 entry parameter that a dot reads,
// the converts after the last parameter; the dots read them.
int ConvertDotParameters(Module* module) {
  const ComputationId entry = module->entry;
  std::vector<std::pair<InstructionId, InstructionId>> converts;  // (parameter, convert)
  for (InstructionId p : module->computation(entry).parameters) {
    if (!p.valid() || module->instruction(p).shape->dtype != DType::kBF16) continue;
    bool read_by_dot = false;
    for (InstructionId id : module->computation(entry).instructions) {
      const Instruction& inst = module->instruction(id);
      if (inst.opcode != Opcode::kDot) continue;
      for (InstructionId op : inst.operands) read_by_dot |= op == p;
    }
    if (!read_by_dot) continue;
    Shape f32 = module->instruction(p).shape;
    f32.dtype = DType::kF32;
    converts.emplace_back(p, AddReaderOf(module, entry, p, Opcode::kConvert, "convert", ".f32", f32));
  }
  if (converts.empty()) return 0;
  Computation& c = module->mutable_computation(entry);
  for (InstructionId id : c.instructions) {
    Instruction& inst = module->mutable_instruction(id);
    if (inst.opcode != Opcode::kDot) continue;
    for (InstructionId& op : inst.operands) {
      for (const auto& pc : converts) {
        if (op == pc.first) op = pc.second;
      }
    }
  }
  std::vector<InstructionId> inserted;
  for (const auto& pc : converts) inserted.push_back(pc.second);
  ScheduleAfterParameters(module, entry, inserted);
  return static_cast<int>(converts.size());
}

}  // namespace

int ComputeBf16InF32(Module* module) {
  if (module->entry_computation() == nullptr) return 0;
  const int converted = ConvertDotParameters(module);
  const std::vector<bool> output = DefinesOutput(*module);
  for (InstructionId id : module->computation(module->entry).instructions) {
    Instruction& inst = module->mutable_instruction(id);
    if (inst.shape->dtype != DType::kBF16 || output[static_cast<size_t>(id.value())]) continue;
    switch (inst.opcode) {
      case Opcode::kParameter:
      case Opcode::kTuple:
      case Opcode::kGetTupleElement:
        continue;
      default: {
        Shape f32 = inst.shape;
        f32.dtype = DType::kF32;
        inst.shape = module->InternShape(f32);
      }
    }
  }
  return converted;
}

}  // namespace memplan::ir
