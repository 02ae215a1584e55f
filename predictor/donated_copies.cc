#include "predictor/donated_copies.h"

#include <algorithm>
#include <utility>

#include "ir/shape.h"

namespace memplan::predictor {
namespace {

using Info = Predictor::ValueInfo;

// Per instruction: whether `of` depends on it (itself included), over
// operand edges.
std::vector<uint8_t> AncestorsOf(const ir::Module& module, ir::InstructionId of) {
  std::vector<uint8_t> seen(module.instruction_count(), 0);
  std::vector<ir::InstructionId> stack = {of};
  seen[static_cast<size_t>(of.value())] = 1;
  while (!stack.empty()) {
    const ir::Instruction& inst = module.instruction(stack.back());
    stack.pop_back();
    for (ir::InstructionId op : inst.operands) {
      if (!op.valid() || seen[static_cast<size_t>(op.value())]) continue;
      seen[static_cast<size_t>(op.value())] = 1;
      stack.push_back(op);
    }
  }
  return seen;
}

// The instruction of the live-out value in `allocation` that is not
// `parameter`'s; invalid when there is none.
ir::InstructionId UpdateIn(const std::vector<Info>& values, const std::vector<int32_t>& in_allocation,
                           int32_t parameter) {
  for (int32_t v : in_allocation) {
    if (v != parameter && values[v].live_out && values[v].value->index.empty()) {
      return values[v].value->instruction;
    }
  }
  return ir::InstructionId();
}

}  // namespace

std::vector<DonatedCopy> FindDonatedCopies(const ir::Module& module, const std::vector<Info>& values,
                                           const std::vector<int32_t>& value_of,
                                           const std::vector<std::vector<int32_t>>& allocation_values) {
  std::vector<DonatedCopy> copies;
  const ir::Computation* entry = module.entry_computation();
  if (entry == nullptr) return copies;
  auto value = [&](ir::InstructionId id) {
    return id.valid() && id.value() < static_cast<int64_t>(value_of.size())
               ? value_of[static_cast<size_t>(id.value())]
               : -1;
  };
  for (ir::InstructionId id : entry->instructions) {
    const ir::Instruction& inst = module.instruction(id);
    if (inst.opcode != ir::Opcode::kCopy || inst.operands.size() != 1) continue;
    const int32_t c = value(id), p = value(inst.operands[0]);
    if (c < 0 || p < 0 || !values[p].donated || values[p].cls != Info::Class::kParameter ||
        values[p].allocation < 0) {
      continue;
    }
    const ir::Instruction& param = module.instruction(inst.operands[0]);
    if (ir::ShapeToString(inst.shape) != ir::ShapeToString(param.shape)) continue;  // a layout change stays
    DonatedCopy copy;
    copy.copy_value = c;
    copy.parameter_value = p;
    copy.update = UpdateIn(values, allocation_values[static_cast<size_t>(values[p].allocation)], p);
    if (!copy.update.valid()) continue;
    const std::vector<uint8_t> before = AncestorsOf(module, copy.update);
    for (ir::InstructionId r : entry->instructions) {
      const auto& ops = module.instruction(r).operands;
      if (std::find(ops.begin(), ops.end(), id) == ops.end()) continue;
      if (!before[static_cast<size_t>(r.value())]) copy.outside_readers.push_back(r);
      if (value(r) >= 0) copy.reader_values.push_back(value(r));
    }
    if (!copy.outside_readers.empty()) copies.push_back(std::move(copy));
  }
  return copies;
}

void RemovedPerDevice(const ir::Module& module, const std::vector<DonatedCopy>& copies,
                      const CombinedGroups& combined,
                      const std::vector<PredictedCollective>& collectives,
                      std::vector<uint8_t>& removed) {
  removed.assign(copies.size(), 0);
  if (copies.empty()) return;
  // (instruction whose reach reads the combined result, group): a member's
  // source, or its `at` when the source is inside that fusion.
  std::vector<std::pair<int64_t, size_t>> key;
  for (size_t g = 0; g < combined.groups.size(); ++g) {
    const std::vector<size_t>& members = combined.members[g];
    if (members.size() < 2) continue;
    for (size_t m : members) {
      const PredictedCollective& pc = collectives[m];
      key.emplace_back(pc.source.valid() ? pc.source.value() : pc.at.value(), g);
    }
  }
  std::sort(key.begin(), key.end());
  std::vector<uint8_t> seen(module.instruction_count(), 0);
  std::vector<uint8_t> expanded(combined.groups.size(), 0);
  std::vector<ir::InstructionId> stack;
  for (size_t k = 0; k < copies.size(); ++k) {
    const DonatedCopy& copy = copies[k];
    std::fill(seen.begin(), seen.end(), 0);
    std::fill(expanded.begin(), expanded.end(), 0);
    stack.assign(1, copy.update);
    seen[static_cast<size_t>(copy.update.value())] = 1;
    auto push = [&](ir::InstructionId id) {
      if (!id.valid() || seen[static_cast<size_t>(id.value())]) return;
      seen[static_cast<size_t>(id.value())] = 1;
      stack.push_back(id);
    };
    while (!stack.empty()) {
      const ir::InstructionId x = stack.back();
      stack.pop_back();
      for (ir::InstructionId op : module.instruction(x).operands) push(op);
      auto it = std::lower_bound(key.begin(), key.end(), std::make_pair(x.value(), size_t{0}));
      for (; it != key.end() && it->first == x.value(); ++it) {
        if (expanded[it->second]) continue;
        expanded[it->second] = 1;
        for (size_t m : combined.members[it->second]) {
          const PredictedCollective& pc = collectives[m];
          if (pc.source.valid()) {
            push(pc.source);
          } else if (pc.at.valid()) {
            for (ir::InstructionId op : module.instruction(pc.at).operands) push(op);
          }
        }
      }
    }
    removed[k] = std::all_of(copy.outside_readers.begin(), copy.outside_readers.end(),
                             [&](ir::InstructionId r) { return seen[static_cast<size_t>(r.value())] != 0; });
  }
}

}  // namespace memplan::predictor
