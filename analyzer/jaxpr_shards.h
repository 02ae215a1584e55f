// How a sharding of a jaxpr's inputs carries to the values computed from
// them, dimension by dimension, as GSPMD propagates it in the common cases:
// a value is described by its tile counts (dimension d split into tiles[d]
// shards; an empty vector is replicated). Per device a value holds
// ceil(dim / tiles) of each dimension (XLA pads every shard to the largest).
//   - elementwise ops and ops whose output has an operand's shape: that
//     operand's tiles (the first such operand that is sharded);
//   - dot_general: batch dimensions from lhs (else rhs), free dimensions from
//     their operand; a sharded contracting dimension leaves a partial sum,
//     which is full size;
//   - conv_general_dilated: batch from lhs, output features from rhs;
//   - transpose: permuted; broadcast_in_dim: operand dimensions that keep
//     their size; reductions: the reduced axes dropped;
//   - reshape and squeeze/expand_dims: tiles follow dimensions that keep
//     their size, matched from both ends;
//   - anything else: replicated (full size).
// This is a model, not XLA's propagation: it ignores resharding collectives
// and what the partitioner chooses for values no input constrains.
#ifndef MEMPLAN_ANALYZER_JAXPR_SHARDS_H_
#define MEMPLAN_ANALYZER_JAXPR_SHARDS_H_

#include <cstdint>
#include <vector>

#include "ir/jaxpr.h"

namespace memplan::analyzer {

using Tiles = std::vector<int64_t>;

// The tiles of output `out_index` of `eqn` (a leaf equation, not a call or
// loop), given each operand's tiles (empty for literals and replicated
// values). The result is empty or has the output's rank.
Tiles OutputTiles(const ir::JaxprModule& module, const ir::JaxprEqn& eqn, size_t out_index,
                  const std::vector<Tiles>& operand_tiles);

// Bytes per device of `aval` split into `tiles` (empty: the whole array);
// -1 when the aval's size is unknown.
int64_t ShardBytes(const ir::JaxprAval& aval, const Tiles& tiles);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_JAXPR_SHARDS_H_
