#include "ir/jaxpr_copies.h"

#include "ir/parameter_readers.h"

#include <algorithm>
#include <string>
#include <vector>

namespace memplan::ir {
namespace {

// Per instruction: whether `of` (an entry instruction) depends on it.
std::vector<bool> Ancestors(const Module& module, InstructionId of) {
  std::vector<bool> seen(module.instruction_count(), false);
  std::vector<InstructionId> stack = {of};
  seen[static_cast<size_t>(of.value())] = true;
  while (!stack.empty()) {
    const Instruction& inst = module.instruction(stack.back());
    stack.pop_back();
    for (InstructionId op : inst.operands) {
      if (seen[static_cast<size_t>(op.value())]) continue;
      seen[static_cast<size_t>(op.value())] = true;
      stack.push_back(op);
    }
  }
  return seen;
}

// The entry instruction that makes output leaf `index` of the entry root.
InstructionId OutputInstruction(const Module& module, const ShapeIndex& index) {
  const Instruction& root = module.instruction(module.entry_computation()->root);
  if (index.empty()) return root.id;
  if (root.opcode != Opcode::kTuple || index.size() != 1 || index[0] < 0 ||
      index[0] >= static_cast<int64_t>(root.operands.size())) {
    return InstructionId();
  }
  return root.operands[static_cast<size_t>(index[0])];
}

// Whether some reader of `param` (through reshapes, which are bitcasts of
// its buffer) is neither `output` nor among its ancestors.
bool ReadOutsideOutput(const Module& module, const std::vector<std::vector<InstructionId>>& users,
                       InstructionId param, InstructionId output) {
  const std::vector<bool> before = Ancestors(module, output);
  std::vector<InstructionId> stack = {param};
  while (!stack.empty()) {
    const InstructionId x = stack.back();
    stack.pop_back();
    for (InstructionId u : users[static_cast<size_t>(x.value())]) {
      if (!before[static_cast<size_t>(u.value())]) return true;
      if (module.instruction(u).opcode == Opcode::kReshape) stack.push_back(u);
    }
  }
  return false;
}

}  // namespace

std::vector<int64_t> CopyDonatedParameters(Module* module) {
  std::vector<int64_t> copied;
  const Computation* entry = module->entry_computation();
  if (entry == nullptr || module->header.input_output_aliases.empty()) return copied;
  const ComputationId entry_id = entry->id;
  std::vector<std::vector<InstructionId>> users(module->instruction_count());
  for (InstructionId id : entry->instructions) {
    for (InstructionId op : module->instruction(id).operands) users[static_cast<size_t>(op.value())].push_back(id);
  }
  std::vector<std::pair<InstructionId, InstructionId>> copies;  // (parameter, copy)
  for (const InputOutputAlias& alias : module->header.input_output_aliases) {
    const std::vector<InstructionId>& params = module->computation(entry_id).parameters;
    if (alias.parameter_number < 0 || alias.parameter_number >= static_cast<int64_t>(params.size())) continue;
    const InstructionId param = params[static_cast<size_t>(alias.parameter_number)];
    const InstructionId output = OutputInstruction(*module, alias.output_index);
    if (!param.valid() || !output.valid() || output == param) continue;
    if (!ReadOutsideOutput(*module, users, param, output)) continue;
    copies.emplace_back(param, AddReaderOf(module, entry_id, param, Opcode::kCopy, "copy", ".copy",
                                           module->instruction(param).shape));
    copied.push_back(alias.parameter_number);
  }
  if (copies.empty()) return copied;
  // Every reader reads the copy; the copies run after the last parameter.
  for (const auto& pc : copies) {
    for (InstructionId u : users[static_cast<size_t>(pc.first.value())]) {
      for (InstructionId& op : module->mutable_instruction(u).operands) {
        if (op == pc.first) op = pc.second;
      }
    }
  }
  std::vector<InstructionId> inserted;
  for (const auto& pc : copies) inserted.push_back(pc.second);
  ScheduleAfterParameters(module, entry_id, inserted);
  return copied;
}

}  // namespace memplan::ir
