#include "ir/dtensor.h"

#include <algorithm>
#include <utility>

#include "ir/partition_spec.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::ir {
namespace {

using Ranges = std::vector<IndexRange>;

constexpr int64_t kMaxLayoutRanges = int64_t{1} << 24;

int64_t Count(const Ranges& ranges) {
  int64_t n = 0;
  for (const IndexRange& r : ranges) n += r.size();
  return n;
}

// The elements at positions [begin, end) of the ordered index set `ranges`.
Ranges Slice(const Ranges& ranges, int64_t begin, int64_t end) {
  Ranges out;
  int64_t position = 0;
  for (const IndexRange& r : ranges) {
    const int64_t lo = std::max(begin, position);
    const int64_t hi = std::min(end, position + r.size());
    if (lo < hi) {
      const IndexRange piece{r.begin + (lo - position), r.begin + (hi - position)};
      if (!out.empty() && out.back().end == piece.begin) {
        out.back().end = piece.end;
      } else {
        out.push_back(piece);
      }
    }
    position += r.size();
  }
  return out;
}

// Chunk `rank` of `ranges` split `chunks` ways as torch.chunk does.
Ranges Chunk(const Ranges& ranges, int64_t chunks, int64_t rank) {
  const int64_t n = Count(ranges);
  const int64_t c = (n + chunks - 1) / chunks;
  return Slice(ranges, std::min(rank * c, n), std::min((rank + 1) * c, n));
}

void Append(Ranges& out, const Ranges& more) {
  for (const IndexRange& r : more) {
    if (!out.empty() && out.back().end == r.begin) {
      out.back().end = r.end;
    } else {
      out.push_back(r);
    }
  }
}

}  // namespace

std::string Placement::ToString() const {
  switch (kind) {
    case Kind::kShard:
      return StrCat("Shard(dim=", dim, ")");
    case Kind::kStridedShard:
      return StrCat("_StridedShard(dim=", dim, ", sf=", split_factor, ")");
    case Kind::kReplicate:
      return "Replicate()";
    case Kind::kPartial:
      return StrCat("Partial(", reduce_op, ")");
  }
  return "";
}

namespace {

absl::StatusOr<std::vector<Placement>> Normalized(const Mesh& mesh, const std::vector<Placement>& placements,
                                                  int64_t rank) {
  RETURN_IF_ERROR(mesh.Validate());
  if (placements.size() != mesh.axes.size()) {
    return absl::InvalidArgumentError(StrCat("expected one placement per mesh dimension: the mesh ",
                                             mesh.ToString(), " has ", mesh.axes.size(), ", not ",
                                             placements.size()));
  }
  std::vector<Placement> out = placements;
  for (Placement& p : out) {
    if (p.kind != Placement::Kind::kShard && p.kind != Placement::Kind::kStridedShard) continue;
    const int64_t dim = p.dim < 0 ? p.dim + rank : p.dim;
    if (dim < 0 || dim >= rank) {
      return absl::InvalidArgumentError(
          StrCat(p.ToString(), " shards dimension ", p.dim, " of a tensor of rank ", rank));
    }
    p.dim = dim;
    if (p.kind == Placement::Kind::kStridedShard && p.split_factor < 1) {
      return absl::InvalidArgumentError(StrCat(p.ToString(), ": expected a split factor of at least 1"));
    }
  }
  return out;
}

// Ways per dimension, replication and partial (unreduced) ways from the
// placements; the form is tiled unless nothing is sharded.
void SetWays(const Mesh& mesh, const std::vector<Placement>& normalized, ShardLayout& layout) {
  bool any_shard = false;
  for (size_t i = 0; i < normalized.size(); ++i) {
    const Placement& p = normalized[i];
    const int64_t size = mesh.axes[i].size;
    switch (p.kind) {
      case Placement::Kind::kShard:
      case Placement::Kind::kStridedShard:
        layout.ways[p.dim] *= size;
        any_shard = true;
        break;
      case Placement::Kind::kReplicate:
        layout.replication *= size;
        break;
      case Placement::Kind::kPartial:
        layout.unreduced_ways *= size;
        break;
    }
  }
  if (!any_shard) {
    layout.form = layout.unreduced_ways > 1 ? ShardLayout::Form::kUnreduced : ShardLayout::Form::kReplicated;
  }
  layout.copies = layout.replication * layout.unreduced_ways;
}

// A _StridedShard gives each rank up to min(split factor, dim size)
// separate ranges; bound what one layout may list.
absl::Status CheckRangeCount(const std::vector<Placement>& normalized, const Shape& shape, int64_t count) {
  for (const Placement& p : normalized) {
    if (p.kind != Placement::Kind::kStridedShard) continue;
    const int64_t pieces = std::min(p.split_factor, shape.dims[p.dim]);
    if (pieces > 0 && count > kMaxLayoutRanges / pieces) {
      return absl::InvalidArgumentError(StrCat(p.ToString(), " on ", count, " devices would list up to ", pieces,
                                               " ranges per device; expected at most ", kMaxLayoutRanges,
                                               " in all"));
    }
  }
  return absl::OkStatus();
}

// What a _StridedShard over `k` ranks leaves rank `at` of `current`: the
// dimension cut into `split_factor` pieces, each chunked `k` ways.
Ranges StridedChunk(const Ranges& current, int64_t split_factor, int64_t k, int64_t at) {
  const int64_t n = Count(current);
  const int64_t first = (n + split_factor - 1) / split_factor;
  Ranges taken;
  // Pieces that start past the end are empty: at most n of them hold elements.
  for (int64_t j = 0; j < split_factor && j * first < n; ++j) {
    const Ranges piece = Slice(current, std::min(j * first, n), std::min((j + 1) * first, n));
    Append(taken, Chunk(piece, k, at));
  }
  return taken;
}

// The shard of the device at `coordinate`: placements applied in mesh order.
DeviceShard ShardAt(const Mesh& mesh, const std::vector<Placement>& normalized, const Shape& shape,
                    const std::vector<int64_t>& coordinate) {
  DeviceShard shard;
  shard.coordinate = coordinate;
  for (int64_t n : shape.dims) shard.indices.push_back({IndexRange{0, n}});
  for (size_t i = 0; i < normalized.size(); ++i) {
    const Placement& p = normalized[i];
    const int64_t k = mesh.axes[i].size;
    if (p.kind == Placement::Kind::kShard) {
      shard.indices[p.dim] = Chunk(shard.indices[p.dim], k, coordinate[i]);
    } else if (p.kind == Placement::Kind::kStridedShard) {
      shard.indices[p.dim] = StridedChunk(shard.indices[p.dim], p.split_factor, k, coordinate[i]);
    }
  }
  for (const Ranges& ranges : shard.indices) shard.local_dims.push_back(Count(ranges));
  return shard;
}

}  // namespace

absl::StatusOr<ShardLayout> DTensorShardLayout(const Mesh& mesh, const std::vector<Placement>& placements,
                                               const Shape& shape) {
  if (!shape.IsArray()) return absl::InvalidArgumentError("expected an array shape");
  const int64_t rank = static_cast<int64_t>(shape.dims.size());
  ASSIGN_OR_RETURN(const std::vector<Placement> normalized, Normalized(mesh, placements, rank));
  ShardLayout layout;
  layout.semantics = ShardLayout::Semantics::kDTensor;
  layout.form = ShardLayout::Form::kTiled;
  layout.global = shape;
  layout.ways.assign(static_cast<size_t>(rank), 1);
  SetWays(mesh, normalized, layout);
  const std::vector<int64_t> ids = mesh.DeviceIds();
  const int64_t count = static_cast<int64_t>(ids.size());
  RETURN_IF_ERROR(CheckRangeCount(normalized, shape, count));
  std::vector<int64_t> coordinate(mesh.axes.size(), 0);
  for (int64_t position = 0; position < count; ++position) {
    DeviceShard shard = ShardAt(mesh, normalized, shape, coordinate);
    shard.position = position;
    shard.device_id = ids[position];
    layout.devices.push_back(std::move(shard));
    for (size_t a = coordinate.size(); a-- > 0;) {
      if (++coordinate[a] < mesh.axes[a].size) break;
      coordinate[a] = 0;
    }
  }
  FinishShardLayout(layout);
  return layout;
}

absl::StatusOr<std::optional<HloSharding>> DTensorToHloSharding(const Mesh& mesh,
                                                                const std::vector<Placement>& placements,
                                                                int64_t rank) {
  ASSIGN_OR_RETURN(const std::vector<Placement> normalized, Normalized(mesh, placements, rank));
  JaxNamedSharding named;
  named.mesh = mesh;
  named.mesh.order = Mesh::DeviceOrder::kIota;  // positions, not device ids
  named.mesh.device_list.clear();
  named.spec.dims.resize(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    // Mesh dims sharding d, major first: left to right, except that a
    // _StridedShard goes after the shards that follow it.
    std::vector<size_t> order;
    std::vector<std::pair<size_t, int64_t>> strided;  // (mesh dim, remaining split factor)
    for (size_t i = 0; i < normalized.size(); ++i) {
      const Placement& p = normalized[i];
      if ((p.kind != Placement::Kind::kShard && p.kind != Placement::Kind::kStridedShard) || p.dim != d) {
        continue;
      }
      if (p.kind == Placement::Kind::kStridedShard && p.split_factor > 1) {
        strided.emplace_back(i, p.split_factor);
        continue;
      }
      order.push_back(i);
      for (auto it = strided.begin(); it != strided.end();) {
        if (it->second % mesh.axes[i].size != 0) return std::optional<HloSharding>();
        it->second /= mesh.axes[i].size;
        if (it->second == 1) {
          order.push_back(it->first);
          it = strided.erase(it);
        } else {
          ++it;
        }
      }
    }
    if (!strided.empty()) return std::optional<HloSharding>();
    if (order.empty()) continue;
    SpecDim& dim = named.spec.dims[d];
    dim.kind = SpecDim::Kind::kAxes;
    for (size_t i : order) dim.axes.push_back(mesh.axes[i].name);
  }
  for (size_t i = 0; i < normalized.size(); ++i) {
    if (normalized[i].kind == Placement::Kind::kPartial) named.spec.unreduced.push_back(mesh.axes[i].name);
  }
  ASSIGN_OR_RETURN(HloSharding sharding, PartitionSpecToHloSharding(named, rank));
  return std::optional<HloSharding>(std::move(sharding));
}

}  // namespace memplan::ir
