#include "ir/jaxpr_dot_fold.h"

#include <algorithm>
#include <vector>

namespace memplan::ir {
namespace {

// Whether `transpose` swaps the two free dimensions of `dot`, a canonical
// dot (batch dimensions first, one free dimension per side).
bool SwapsDotFreeDimensions(const Module& module, const Instruction& transpose, const Instruction& dot) {
  const HloAttributes& attrs = module.attributes(dot);
  if (!attrs.dot.has_value() || dot.operands.size() != 2) return false;
  const DotDimensionNumbers& d = *attrs.dot;
  const size_t batch = d.lhs_batch.size();
  if (d.rhs_batch.size() != batch || dot.shape->dims.size() != batch + 2) return false;
  for (size_t b = 0; b < batch; ++b) {
    if (d.lhs_batch[b] != static_cast<int64_t>(b) || d.rhs_batch[b] != static_cast<int64_t>(b)) return false;
  }
  const Shape& lhs = module.instruction(dot.operands[0]).shape;
  const Shape& rhs = module.instruction(dot.operands[1]).shape;
  if (lhs.dims.size() != batch + d.lhs_contracting.size() + 1 ||
      rhs.dims.size() != batch + d.rhs_contracting.size() + 1) {
    return false;
  }
  std::vector<int64_t> swap(batch + 2);
  for (size_t i = 0; i < swap.size(); ++i) swap[i] = static_cast<int64_t>(i);
  std::swap(swap[batch], swap[batch + 1]);
  return module.attributes(transpose).dimensions == swap;
}

}  // namespace

int FoldTransposesIntoDots(Module* module) {
  std::vector<int32_t> readers(module->instruction_count(), 0);
  for (const Instruction& inst : module->instructions()) {
    for (InstructionId op : inst.operands) ++readers[static_cast<size_t>(op.value())];
  }
  std::vector<bool> dropped(module->instruction_count(), false);
  int folded = 0;
  for (size_t i = 0; i < module->instruction_count(); ++i) {
    const Instruction& inst = module->instruction(InstructionId(static_cast<int64_t>(i)));
    if (inst.opcode != Opcode::kTranspose || inst.operands.size() != 1) continue;
    const Instruction& dot = module->instruction(inst.operands[0]);
    if (dot.opcode != Opcode::kDot || dot.is_root || dot.computation != inst.computation ||
        readers[static_cast<size_t>(dot.id.value())] != 1 || !SwapsDotFreeDimensions(*module, inst, dot)) {
      continue;
    }
    const DotDimensionNumbers& d = *module->attributes(dot).dot;
    DotDimensionNumbers swapped;
    swapped.lhs_batch = d.rhs_batch;
    swapped.rhs_batch = d.lhs_batch;
    swapped.lhs_contracting = d.rhs_contracting;
    swapped.rhs_contracting = d.lhs_contracting;
    const std::vector<InstructionId> operands = {dot.operands[1], dot.operands[0]};
    dropped[static_cast<size_t>(dot.id.value())] = true;
    Instruction& t = module->mutable_instruction(InstructionId(static_cast<int64_t>(i)));
    t.opcode = Opcode::kDot;
    t.opcode_text = "dot";
    t.operands = operands;
    HloAttributes& attrs = module->mutable_attributes(t.id);
    attrs.dimensions.clear();
    attrs.dot = swapped;
    ++folded;
  }
  if (folded == 0) return 0;
  for (const Computation& c : module->computations()) {
    std::vector<InstructionId>& list = module->mutable_computation(c.id).instructions;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](InstructionId id) { return dropped[static_cast<size_t>(id.value())]; }),
               list.end());
  }
  return folded;
}

}  // namespace memplan::ir
