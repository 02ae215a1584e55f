#include "ir/shard_layout.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::ir {
namespace {

int64_t CeilDiv(int64_t n, int64_t d) { return d == 0 ? 0 : (n + d - 1) / d; }

int64_t BytesOf(DType dtype, const std::vector<int64_t>& dims) {
  Shape shape;
  shape.dtype = dtype;
  shape.dims = dims;
  return ByteSizeOf(shape);
}

// Every device holds the whole array (or, when `one_device` >= 0, only
// that device does).
ShardLayout WholeArray(const Shape& shape, const std::vector<int64_t>& ids, ShardLayout::Form form,
                       int64_t one_device) {
  ShardLayout layout;
  layout.form = form;
  layout.global = shape;
  layout.ways.assign(shape.dims.size(), 1);
  for (size_t p = 0; p < ids.size(); ++p) {
    DeviceShard shard;
    shard.position = static_cast<int64_t>(p);
    shard.device_id = ids[p];
    shard.holds_array = one_device < 0 || shard.position == one_device;
    for (int64_t n : shape.dims) {
      shard.indices.push_back({IndexRange{0, shard.holds_array ? n : 0}});
      shard.local_dims.push_back(shard.holds_array ? n : 0);
    }
    layout.devices.push_back(std::move(shard));
  }
  const int64_t holders = one_device >= 0 ? 1 : static_cast<int64_t>(ids.size());
  switch (form) {
    case ShardLayout::Form::kReplicated:
      layout.replication = holders;
      break;
    case ShardLayout::Form::kUnreduced:
      layout.unreduced_ways = holders;
      break;
    case ShardLayout::Form::kManual:
      layout.manual_ways = holders;
      break;
    default:
      break;
  }
  layout.copies = holders;
  return layout;
}

std::vector<int64_t> IdsFor(const std::vector<int64_t>& device_ids, int64_t count) {
  if (!device_ids.empty()) return device_ids;
  std::vector<int64_t> ids(static_cast<size_t>(std::max<int64_t>(count, 1)));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

}  // namespace

void FinishShardLayout(ShardLayout& layout) {
  layout.global_bytes = BytesOf(layout.global.dtype, layout.global.dims);
  const int64_t global_elements = layout.global.ElementCount();
  layout.max_bytes = layout.total_bytes = layout.padding_bytes = 0;
  for (DeviceShard& shard : layout.devices) {
    shard.held_elements = 1;
    for (const auto& ranges : shard.indices) {
      int64_t count = 0;
      for (const IndexRange& r : ranges) count += r.size();
      shard.held_elements *= count;
    }
    if (!shard.holds_array) shard.held_elements = 0;
    if (layout.form == ShardLayout::Form::kManual) shard.held_elements = global_elements;
    shard.bytes = shard.holds_array ? BytesOf(layout.global.dtype, shard.local_dims) : 0;
    layout.max_bytes = std::max(layout.max_bytes, shard.bytes);
    layout.total_bytes += shard.bytes;
    const int64_t held_bytes = BytesOf(layout.global.dtype, {shard.held_elements});
    layout.padding_bytes += std::max<int64_t>(0, shard.bytes - held_bytes);
  }
}

namespace {

// The layout of every sharding kind but tiled (which has no whole-array
// form); an error for kinds that have no layout.
absl::StatusOr<ShardLayout> UntiledLayout(const HloSharding& sharding, const Shape& shape,
                                          const std::vector<int64_t>& device_ids, int64_t device_count) {
  using Form = ShardLayout::Form;
  switch (sharding.kind) {
    case HloSharding::Kind::kReplicated:
      return WholeArray(shape, IdsFor(device_ids, device_count), Form::kReplicated, -1);
    case HloSharding::Kind::kUnreduced:
      return WholeArray(shape, IdsFor(device_ids, device_count), Form::kUnreduced, -1);
    case HloSharding::Kind::kManual:
      return WholeArray(shape, IdsFor(device_ids, device_count), Form::kManual, -1);
    case HloSharding::Kind::kMaximal: {
      const int64_t device = sharding.maximal_device;
      if (device < 0) return absl::InvalidArgumentError(StrCat("device ", device, " is negative"));
      if (!device_ids.empty() && device >= device_count) {
        return absl::InvalidArgumentError(
            StrCat("maximal device ", device, " is outside the ", device_count, " devices given"));
      }
      return WholeArray(shape, IdsFor(device_ids, std::max(device_count, device + 1)), Form::kMaximal,
                        device);
    }
    case HloSharding::Kind::kTiled:
      break;
    case HloSharding::Kind::kUnknown:
      return absl::InvalidArgumentError("an {unknown} sharding says nothing about the layout");
    case HloSharding::Kind::kTuple:
      return absl::InvalidArgumentError("expected an array sharding, not a tuple sharding");
    case HloSharding::Kind::kNamed:
      return absl::InvalidArgumentError("expected a canonical sharding, not a named one");
  }
  return absl::InternalError("a tiled sharding has no whole-array layout");
}

// Replication, unreduced and manual ways from the subgroup dims:
// replicate_on_last_tile_dim is one replicated dim; last_tile_dims name
// the types of the trailing dims.
absl::Status SetSubgroupWays(const HloSharding& sharding, int64_t rank, ShardLayout& layout) {
  std::vector<OpShardingType> subgroup_types = sharding.last_tile_dims;
  if (sharding.replicate_on_last_tile_dim) subgroup_types = {OpShardingType::kReplicated};
  for (size_t i = 0; i < subgroup_types.size(); ++i) {
    const int64_t size = sharding.tiles.dims[rank + i];
    switch (subgroup_types[i]) {
      case OpShardingType::kReplicated:
        layout.replication *= size;
        break;
      case OpShardingType::kUnreduced:
        layout.unreduced_ways *= size;
        break;
      case OpShardingType::kManual:
        layout.manual_ways *= size;
        break;
      default:
        return absl::InvalidArgumentError(StrCat("subgroup type '", SubgroupTypeName(subgroup_types[i]),
                                                 "' has no layout"));
    }
  }
  layout.copies = layout.replication * layout.unreduced_ways * layout.manual_ways;
  return absl::OkStatus();
}

// Each device's tile: the tile assignment's devices in row-major order of
// the tile dims, each at its position.
absl::Status PlaceTiles(const TileAssignment& tiles, const std::vector<int64_t>& devices,
                        const std::vector<int64_t>& ids, const Shape& shape, int64_t rank,
                        ShardLayout& layout) {
  const int64_t count = static_cast<int64_t>(devices.size());
  std::vector<int64_t> chunk(rank);
  for (int64_t d = 0; d < rank; ++d) chunk[d] = CeilDiv(shape.dims[d], layout.ways[d]);
  layout.devices.resize(static_cast<size_t>(count));
  std::vector<bool> seen(static_cast<size_t>(count), false);
  std::vector<int64_t> index(tiles.dims.size(), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    const int64_t position = devices[flat];
    if (position < 0 || position >= count || seen[position]) {
      return absl::InvalidArgumentError(StrCat("device ", position, " is out of range or repeated"));
    }
    seen[position] = true;
    DeviceShard& shard = layout.devices[position];
    shard.position = position;
    shard.device_id = ids[position];
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t n = shape.dims[d];
      shard.coordinate.push_back(index[d]);
      shard.indices.push_back({IndexRange{std::min(index[d] * chunk[d], n),
                                          std::min((index[d] + 1) * chunk[d], n)}});
      shard.local_dims.push_back(chunk[d]);
    }
    for (size_t k = index.size(); k-- > 0;) {
      if (++index[k] < tiles.dims[k]) break;
      index[k] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ShardLayout> XlaShardLayout(const HloSharding& sharding, const Shape& shape,
                                           const std::vector<int64_t>& device_ids,
                                           int64_t device_count) {
  if (!shape.IsArray()) return absl::InvalidArgumentError("expected an array shape");
  if (!device_ids.empty()) device_count = static_cast<int64_t>(device_ids.size());
  if (sharding.kind != HloSharding::Kind::kTiled) {
    ASSIGN_OR_RETURN(ShardLayout layout, UntiledLayout(sharding, shape, device_ids, device_count));
    layout.semantics = ShardLayout::Semantics::kXla;
    FinishShardLayout(layout);
    return layout;
  }
  const TileAssignment& tiles = sharding.tiles;
  ASSIGN_OR_RETURN(const std::vector<int64_t> devices, tiles.Devices());
  const int64_t count = static_cast<int64_t>(devices.size());
  const int64_t rank = sharding.TiledDataRank();
  if (rank != static_cast<int64_t>(shape.dims.size())) {
    return absl::InvalidArgumentError(StrCat("the sharding ", sharding.ToString(), " tiles ", rank,
                                             " dimensions but the shape ", ShapeToString(shape, false),
                                             " has ", shape.dims.size()));
  }
  if (!device_ids.empty() && static_cast<int64_t>(device_ids.size()) != count) {
    return absl::InvalidArgumentError(StrCat("the sharding ", sharding.ToString(), " uses ", count,
                                             " devices but ", device_ids.size(), " device ids were given"));
  }
  ShardLayout layout;
  layout.semantics = ShardLayout::Semantics::kXla;
  layout.form = ShardLayout::Form::kTiled;
  layout.global = shape;
  layout.ways.assign(tiles.dims.begin(), tiles.dims.begin() + rank);
  RETURN_IF_ERROR(SetSubgroupWays(sharding, rank, layout));
  RETURN_IF_ERROR(PlaceTiles(tiles, devices, IdsFor(device_ids, count), shape, rank, layout));
  FinishShardLayout(layout);
  return layout;
}

}  // namespace memplan::ir
