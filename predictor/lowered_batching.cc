#include "predictor/lowered_batching.h"

#include <cstddef>

#include "predictor/reshape_groups.h"

namespace memplan::predictor {
namespace {

// The instruction whose value `inst` is once bitcasts, reshapes, copies and
// fusion boundaries are looked through; null when the walk leaves what it
// can follow. A fused parameter stands for its fusion's operand, a fusion
// for its body's root.
const ir::Instruction* ThroughLayoutAndFusions(const ir::Module& module,
                                               const std::vector<ir::InstructionId>& scheduled_as,
                                               const ir::Instruction* inst) {
  for (int guard = 0; guard < 16; ++guard) {
    switch (inst->opcode) {
      case ir::Opcode::kBitcast:
      case ir::Opcode::kReshape:
      case ir::Opcode::kCopy:
        if (inst->operands.size() != 1) return nullptr;
        inst = &module.instruction(inst->operands[0]);
        break;
      case ir::Opcode::kParameter: {
        const ir::InstructionId at = scheduled_as[static_cast<size_t>(inst->id.value())];
        if (at == inst->id) return nullptr;  // an entry or loop parameter
        const ir::Instruction& fusion = module.instruction(at);
        const int64_t number = module.attributes(*inst).parameter_number;
        if (fusion.calls.empty() || fusion.calls.front().computation != inst->computation ||
            number < 0 || number >= static_cast<int64_t>(fusion.operands.size())) {
          return nullptr;
        }
        inst = &module.instruction(fusion.operands[static_cast<size_t>(number)]);
        break;
      }
      case ir::Opcode::kFusion: {
        if (inst->calls.empty() || !module.contains(inst->calls.front().computation)) return nullptr;
        const ir::InstructionId root = module.computation(inst->calls.front().computation).root;
        if (!module.contains(root)) return nullptr;
        inst = &module.instruction(root);
        break;
      }
      default:
        return inst;
    }
  }
  return nullptr;
}

// `dims` without entry `skip` (kept whole when `skip` is past the end).
std::vector<int64_t> Without(const std::vector<int64_t>& dims, int64_t skip) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (static_cast<int64_t>(d) != skip) out.push_back(dims[d]);
  }
  return out;
}

}  // namespace

std::vector<LoweredBatchingDim> FindLoweredBatchingDims(
    const ir::Module& module, const std::vector<ir::InstructionId>& scheduled_as,
    const ir::Instruction& inst) {
  const auto& attrs = module.attributes(inst);
  const std::vector<int64_t>* map = nullptr;
  int64_t vector_dim = 0;
  size_t indices_k = 1;
  if (inst.opcode == ir::Opcode::kGather && attrs.gather) {
    map = &attrs.gather->start_index_map;
    vector_dim = attrs.gather->index_vector_dim;
  } else if (inst.opcode == ir::Opcode::kScatter && attrs.scatter) {
    map = &attrs.scatter->scatter_dims_to_operand_dims;
    vector_dim = attrs.scatter->index_vector_dim;
    indices_k = (inst.operands.size() - 1) / 2;
  } else {
    return {};
  }
  if (map->size() < 2 || indices_k >= inst.operands.size()) return {};
  const ir::Instruction& indices = module.instruction(inst.operands[indices_k]);
  const ir::Instruction* concat = ThroughLayoutAndFusions(module, scheduled_as, &indices);
  if (concat == nullptr || concat->opcode != ir::Opcode::kConcatenate) return {};
  const auto& cat_attrs = module.attributes(*concat);
  if (cat_attrs.dimensions.size() != 1) return {};
  const int64_t cat_dim = cat_attrs.dimensions[0];
  const std::vector<int64_t>& cat_dims = concat->shape->dims;
  const std::vector<int64_t>& index_dims = indices.shape->dims;
  if (cat_dim < 0 || cat_dim >= static_cast<int64_t>(cat_dims.size()) ||
      vector_dim >= static_cast<int64_t>(index_dims.size()) ||
      cat_dims[static_cast<size_t>(cat_dim)] != static_cast<int64_t>(map->size())) {
    return {};
  }
  const std::vector<ReshapeGroup> groups =
      ReshapeDimGroups(Without(cat_dims, cat_dim), Without(index_dims, vector_dim));
  const std::vector<int64_t>& operand_dims = module.instruction(inst.operands[0]).shape->dims;
  std::vector<LoweredBatchingDim> found;
  int64_t component = 0;
  for (ir::InstructionId part_id : concat->operands) {
    const ir::Instruction& part = module.instruction(part_id);
    if (static_cast<int64_t>(part.shape->dims.size()) != static_cast<int64_t>(cat_dims.size())) return {};
    const int64_t width = part.shape->dims[static_cast<size_t>(cat_dim)];
    const int64_t iota_dim = module.attributes(part).iota_dimension;
    if (component >= static_cast<int64_t>(map->size())) return {};
    if (width == 1 && part.opcode == ir::Opcode::kIota && iota_dim >= 0 && iota_dim != cat_dim) {
      const size_t j = static_cast<size_t>(iota_dim < cat_dim ? iota_dim : iota_dim - 1);
      const int64_t operand_dim = (*map)[static_cast<size_t>(component)];
      for (const ReshapeGroup& g : groups) {
        if (g.in_begin != j || !g.exact) continue;
        const bool same_size = operand_dim >= 0 &&
                               operand_dim < static_cast<int64_t>(operand_dims.size()) &&
                               operand_dims[static_cast<size_t>(operand_dim)] ==
                                   cat_dims[static_cast<size_t>(iota_dim)];
        if (!same_size) break;
        const auto out = static_cast<int64_t>(g.out_begin);
        found.push_back({operand_dim, out < vector_dim ? out : out + 1});
        break;
      }
    }
    component += width;
  }
  return found;
}

}  // namespace memplan::predictor
