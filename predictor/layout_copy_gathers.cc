#include "predictor/layout_copy_gathers.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_set.h"

namespace memplan::predictor {
namespace {

// A copy or transpose, or a fusion of nothing but data movement.
bool IsLayoutCopy(const ir::Module& module, const ir::Instruction& inst) {
  if (inst.opcode == ir::Opcode::kCopy || inst.opcode == ir::Opcode::kTranspose) return true;
  if (inst.opcode != ir::Opcode::kFusion || inst.calls.size() != 1) return false;
  for (ir::InstructionId id : module.computation(inst.calls[0].computation).instructions) {
    switch (module.instruction(id).opcode) {
      case ir::Opcode::kParameter:
      case ir::Opcode::kCopy:
      case ir::Opcode::kTranspose:
      case ir::Opcode::kBitcast:
      case ir::Opcode::kReshape:
        break;
      default:
        return false;
    }
  }
  return true;
}

// Whether `copy` is a layout copy of a computed value of its size.
bool CopiesAComputedValue(const ir::Module& module, const ir::Instruction& copy) {
  if (copy.operands.size() != 1 || !IsLayoutCopy(module, copy)) return false;
  const ir::Instruction& value = module.instruction(copy.operands[0]);
  return value.opcode != ir::Opcode::kParameter &&
         ir::ByteSizeOf(value.shape) == ir::ByteSizeOf(copy.shape);
}

// Whether `pc` all-gathers a layout copy of a computed value of its size.
bool GathersALayoutCopy(const std::vector<uint8_t>& layout_copies, const PredictedCollective& pc) {
  if (pc.kind != CollectiveKind::kAllGather || !pc.source.valid()) return false;
  const auto id = static_cast<size_t>(pc.source.value());
  return id < layout_copies.size() && layout_copies[id] != 0;
}

// The sources of `gathers` (layout copies) that some instruction of the
// entry computation reads other than through one of `gathers`, by
// instruction id.
absl::flat_hash_set<int64_t> ReadDirectly(const ir::Module& module,
                                          const std::vector<const PredictedCollective*>& gathers) {
  absl::flat_hash_set<int64_t> sources;
  absl::flat_hash_set<std::pair<int64_t, int64_t>> through_gather;  // (reader, copy)
  for (const PredictedCollective* pc : gathers) {
    sources.insert(pc->source.value());
    for (ir::InstructionId reader : {pc->at, pc->first_at}) {
      if (reader.valid()) through_gather.insert({reader.value(), pc->source.value()});
    }
  }
  absl::flat_hash_set<int64_t> direct;
  for (ir::InstructionId id : module.entry_computation()->instructions) {
    for (ir::InstructionId op : module.instruction(id).operands) {
      if (sources.contains(op.value()) && !through_gather.contains({id.value(), op.value()})) {
        direct.insert(op.value());
      }
    }
  }
  return direct;
}

}  // namespace

std::vector<uint8_t> LayoutCopiesOfComputedValues(const ir::Module& module) {
  std::vector<uint8_t> out(module.instruction_count(), 0);
  for (const ir::Instruction& inst : module.instructions()) {
    if (inst.id.valid() && static_cast<size_t>(inst.id.value()) < out.size()) {
      out[static_cast<size_t>(inst.id.value())] = CopiesAComputedValue(module, inst) ? 1 : 0;
    }
  }
  return out;
}

LayoutCopyGathers FindLayoutCopyGathers(const ir::Module& module,
                                        const std::vector<uint8_t>& layout_copies,
                                        const std::vector<ir::ScheduleStep>& step_of,
                                        const std::vector<int32_t>& value_of,
                                        const std::vector<Predictor::ValueInfo>& values,
                                        const std::vector<PredictedCollective>& collectives) {
  LayoutCopyGathers out;
  std::vector<const PredictedCollective*> gathers;
  for (const PredictedCollective& pc : collectives) {
    if (GathersALayoutCopy(layout_copies, pc)) gathers.push_back(&pc);
  }
  if (gathers.empty()) return out;
  auto at = [](const auto& table, ir::InstructionId id) {
    return static_cast<size_t>(id.value()) < table.size() ? table[static_cast<size_t>(id.value())]
                                                          : -1;
  };
  const absl::flat_hash_set<int64_t> direct = ReadDirectly(module, gathers);
  std::map<int64_t, TempBuffer> gathered;  // by the copied value's instruction id
  for (const PredictedCollective* pc : gathers) {
    const int32_t v = at(value_of, pc->source);
    const ir::InstructionId copied = module.instruction(pc->source).operands[0];
    const ir::ScheduleStep from = at(step_of, copied), to = at(step_of, pc->source);
    if (v < 0 || values[static_cast<size_t>(v)].live_out || direct.contains(pc->source.value()) ||
        at(value_of, copied) < 0 || from < 0 || to < from) {
      continue;
    }
    // The first all-gather of the copied value stands for the buffer.
    const BufferOrigin origin = BufferOrigin::Result(static_cast<size_t>(pc - collectives.data()));
    TempBuffer& b =
        gathered.try_emplace(copied.value(), TempBuffer{0, from, from, -1, 0, origin}).first->second;
    b.size = std::max(b.size, pc->result_bytes);
    b.end = std::max(b.end, to);
    out.made_whole.push_back(v);
  }
  for (const auto& [id, b] : gathered) out.gathered.push_back(b);
  return out;
}

}  // namespace memplan::predictor
