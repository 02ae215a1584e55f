// What each device holds of one array under a sharding: the global index
// ranges it holds, the shape and bytes of its local buffer, and how many
// copies of each element exist. Two semantics:
//
//   XLA (HloSharding; JAX's NamedSharding lowers to it): a dimension split d
//   ways gives every device a buffer of ceil(N/d) along it, the last shards
//   padded (and a shard past the end all padding); device i of a dim holds
//   [min(i*c, N), min((i+1)*c, N)) with c = ceil(N/d)
//   (HloSharding::TileOffsetForDevice / TileLimitForDevice).
//
//   DTensor (PyTorch placements, ir/dtensor.h): each Shard splits the
//   current local size with torch.chunk (c = ceil(n/k); chunk i is
//   [min(i*c, n), min((i+1)*c, n)), possibly empty) and the local buffer has
//   exactly that size, no padding; several mesh dims on one tensor dim split
//   one after the other, left to right.
#ifndef MEMPLAN_IR_SHARD_LAYOUT_H_
#define MEMPLAN_IR_SHARD_LAYOUT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/shape.h"
#include "ir/sharding.h"

namespace memplan::ir {

// [begin, end) along one dimension.
struct IndexRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
  friend bool operator==(const IndexRange&, const IndexRange&) = default;
};

struct DeviceShard {
  int64_t position = 0;   // logical device: index into the device assignment
  int64_t device_id = 0;  // the device at that position
  // XLA: the tile index of every data dim; DTensor: the mesh coordinate.
  std::vector<int64_t> coordinate;
  // Per dim, the global indices held, as sorted disjoint ranges: one range
  // (possibly empty) except under _StridedShard.
  std::vector<std::vector<IndexRange>> indices;
  std::vector<int64_t> local_dims;  // shape of the device's buffer
  int64_t bytes = 0;                // of local_dims (XLA: padding included)
  int64_t held_elements = 0;        // elements of the array it holds
  bool holds_array = true;          // false: a maximal sharding's other devices
};

struct ShardLayout {
  enum class Semantics { kXla, kDTensor };
  enum class Form {
    kTiled,       // tiles (maybe partially replicated)
    kReplicated,  // every device holds all of it
    kMaximal,     // one device holds all of it
    kManual,      // the shape is already per device (manual sharding)
    kUnreduced,   // every device holds a full-size partial result
  };
  Semantics semantics = Semantics::kXla;
  Form form = Form::kTiled;
  Shape global;
  std::vector<int64_t> ways;  // shards per dim
  // Devices holding each element: replication times partial/manual groups.
  int64_t copies = 1;
  int64_t replication = 1;    // replicated-subgroup size (XLA), Replicate() mesh dims (DTensor)
  int64_t unreduced_ways = 1; // devices holding partial sums of each element
  int64_t manual_ways = 1;    // manual subgroup size
  std::vector<DeviceShard> devices;  // by position
  int64_t global_bytes = 0;
  int64_t max_bytes = 0;       // largest per-device buffer
  int64_t total_bytes = 0;     // summed over devices
  int64_t padding_bytes = 0;   // summed over devices: bytes beyond the elements held
};

// The layout of an array of `shape` (an array shape) under `sharding`, read
// with XLA semantics. `sharding` must be canonical (CanonicalHloSharding)
// and not a tuple, named or unknown sharding. `device_ids` maps positions to
// device ids: empty means position i is device i; else its size is the
// device count. A replicated, unreduced or manual sharding covers
// `device_count` devices (device_ids.size() when given; at least 1).
// InvalidArgument when the tile rank differs from the shape's rank, the
// device ids do not match the tile assignment's count, or the sharding kind
// has no layout.
absl::StatusOr<ShardLayout> XlaShardLayout(const HloSharding& sharding, const Shape& shape,
                                           const std::vector<int64_t>& device_ids,
                                           int64_t device_count);

// Fills the byte figures (global, per device, max, total, padding) of a
// layout whose devices have local_dims and held_elements.
void FinishShardLayout(ShardLayout& layout);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_SHARD_LAYOUT_H_
