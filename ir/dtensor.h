// PyTorch DTensor placements on a DeviceMesh (torch.distributed.tensor):
// one placement per mesh dimension, and what each rank then holds.
#ifndef MEMPLAN_IR_DTENSOR_H_
#define MEMPLAN_IR_DTENSOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/mesh.h"
#include "ir/shape.h"
#include "ir/shard_layout.h"
#include "ir/sharding.h"

namespace memplan::ir {

struct Placement {
  enum class Kind {
    kShard,         // Shard(dim): split `dim` with torch.chunk
    kStridedShard,  // _StridedShard(dim, split_factor): FSDP2-after-TP order
    kReplicate,     // Replicate()
    kPartial,       // Partial(reduce_op): a pending reduction, full size
  };
  Kind kind = Kind::kReplicate;
  int64_t dim = 0;           // kShard, kStridedShard; may be negative (from the end)
  int64_t split_factor = 1;  // kStridedShard
  std::string reduce_op = "sum";  // kPartial

  // repr() as torch 2.x prints it: "Shard(dim=0)", "Replicate()",
  // "Partial(sum)", "_StridedShard(dim=0, sf=2)".
  std::string ToString() const;

  friend bool operator==(const Placement&, const Placement&) = default;
};

// The layout of a DTensor of `shape` with `placements` (one per mesh
// dimension) on `mesh`, rank by rank as DTensor computes it
// (distribute_tensor / compute_local_shape_and_global_offset): mesh dims
// applied left to right, each Shard splitting the current local index set
// with torch.chunk, _StridedShard(dim, sf) splitting it into sf pieces and
// each piece into mesh-size chunks, the rank taking its chunk of every
// piece. Devices are listed by mesh position with their mesh coordinate.
// InvalidArgument when the placements' count differs from the mesh's rank,
// a shard dim is outside the tensor's rank, a split factor is below 1, or
// a _StridedShard would list more than 2^24 index ranges in all.
absl::StatusOr<ShardLayout> DTensorShardLayout(const Mesh& mesh, const std::vector<Placement>& placements,
                                               const Shape& shape);

// The HloSharding that splits the same way where the sizes divide evenly
// (XLA pads uneven shards where DTensor does not): Shard mesh dims become
// tiled axes in mesh order (a _StridedShard after the shards that follow
// it), Partial dims an unreduced subgroup, Replicate dims a replicated one.
// Device numbers are mesh positions. nullopt when a _StridedShard's split
// factor is not the product of the shards that follow it on its dim.
absl::StatusOr<std::optional<HloSharding>> DTensorToHloSharding(const Mesh& mesh,
                                                                const std::vector<Placement>& placements,
                                                                int64_t rank);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_DTENSOR_H_
