// Views of `memplan shard`: one array under one sharding, as text (the
// HloSharding, a device-layout picture like jax.debug.visualize_array_sharding
// and a table of every device's shard) and as JSON (docs/shardings.md).
// Pure functions of their input; they render, never recompute.
#ifndef MEMPLAN_VIZ_SHARD_VIEW_H_
#define MEMPLAN_VIZ_SHARD_VIEW_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtensor.h"
#include "ir/mesh.h"
#include "ir/shard_layout.h"
#include "ir/sharding.h"

namespace memplan::viz {

struct ShardReportInput {
  // How the sharding was given: "PartitionSpec", "NamedSharding",
  // "HloSharding", "OpSharding", "DTensor".
  std::string notation;
  std::string text;                  // as given
  std::optional<ir::Mesh> mesh;
  // The HloSharding XLA works with (canonical); for DTensor input, the one
  // that splits the same way where sizes divide (none when there is none).
  std::optional<ir::HloSharding> hlo_sharding;
  // Set when the input was an HloSharding that XLA reads differently.
  std::optional<std::string> hlo_sharding_as_written;
  std::optional<std::string> op_sharding_bytes;  // serialized hlo_sharding
  std::vector<ir::Placement> placements;         // DTensor input
  // JAX's memory_kind ("device", "pinned_host", ...); "" when not given.
  std::string memory_kind;
  // Each leaf's layout: one for an array, one per element of a tuple.
  std::vector<ir::ShardLayout> layouts;
  std::string device_label = "GPU";  // "GPU 0" in the picture
};

std::string RenderShardText(const ShardReportInput& input);
std::string RenderShardJson(const ShardReportInput& input);

// The picture jax.debug.visualize_array_sharding prints without color (a
// rich table with square boxes, each cell sized as JAX sizes it), for a
// rank-1 or rank-2 layout; "" for other ranks. Cells are labelled
// "<label> <device ids>" (ids of the devices holding that block).
std::string RenderShardPicture(const ir::ShardLayout& layout, std::string_view device_label);

inline constexpr int kShardJsonSchemaVersion = 1;

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_SHARD_VIEW_H_
