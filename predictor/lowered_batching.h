// Internal to predictor: the batching dims of a gather or scatter that XLA's
// CPU pipeline lowered after SPMD partitioning.
//
// A gather with operand_batching_dims (jnp.take_along_axis makes one: the
// batch and sequence dims of the log-probabilities paired with those of the
// labels) is partitioned with those dims split alike on both sides. After
// partitioning, the CPU pipeline rewrites it without batching dims: each one
// becomes an explicit index, an iota along the indices' batch dim
// concatenated with the real index along the index vector dim, and the
// indices are often flattened (s32[8,128,1,3] -> s32[1024,3]). memplan reads
// the module after that rewrite, where the batch dims look like looked-up
// dims; this finds them again, so the rules can split them as the
// partitioner did.
#ifndef MEMPLAN_PREDICTOR_LOWERED_BATCHING_H_
#define MEMPLAN_PREDICTOR_LOWERED_BATCHING_H_

#include <cstdint>
#include <vector>

#include "ir/module.h"

namespace memplan::predictor {

// One lowered batching dim: the operand dim (of a gather's operand, of a
// scatter's operands) and the dim of the instruction's indices (not the
// index vector dim) whose major part it is.
struct LoweredBatchingDim {
  int64_t operand_dim = 0;
  int64_t index_dim = 0;
};

// For a gather or scatter `inst` (empty for anything else): walks its
// indices back through bitcasts, reshapes and copies, across fusion
// boundaries (`scheduled_as[i]`: the fusion a fused instruction belongs to,
// PropagationGraph::scheduled_as), to a concatenate along the index vector
// dim. Each width-1 component of it that is an iota along dim j pairs the
// operand dim the component indexes (start_index_map /
// scatter_dims_to_operand_dims) with the index dim that the reshapes after
// the concatenate make j the major dim of, when j has the operand dim's
// size. Empty when the walk finds no such concatenate.
std::vector<LoweredBatchingDim> FindLoweredBatchingDims(
    const ir::Module& module, const std::vector<ir::InstructionId>& scheduled_as,
    const ir::Instruction& inst);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_LOWERED_BATCHING_H_
