#include "predictor/axes_sharding.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"

namespace memplan::predictor {

bool AxesSharding::IsReplicated() const { return partial == 0 && UsedAxes() == 0; }

AxisMask AxesSharding::UsedAxes() const {
  AxisMask used = 0;
  for (AxisMask m : dims) used |= m;
  return used;
}

void AxesSharding::Normalize() {
  while (!dims.empty() && dims.back() == 0) dims.pop_back();
}

int64_t MeshSizes::Ways(AxisMask mask) const {
  int64_t ways = 1;
  for (size_t k = 0; k < sizes.size() && k < 32; ++k) {
    if (mask & (AxisMask{1} << k)) ways *= sizes[k];
  }
  return ways;
}

std::vector<int64_t> ShardDims(const ir::Shape& shape, const AxesSharding& sharding,
                               const MeshSizes& mesh) {
  std::vector<int64_t> dims = shape.dims;
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t ways = mesh.Ways(sharding.Dim(d));
    if (ways > 1) dims[d] = (dims[d] + ways - 1) / ways;
  }
  return dims;
}

// ByteSizeOf of the shape with ShardDims' dims, without copying the shape
// (prediction asks this for every value of every candidate).
int64_t ShardBytes(const ir::Shape& shape, const AxesSharding& sharding, const MeshSizes& mesh) {
  if (!shape.IsArray() || sharding.dims.empty()) return ir::ByteSizeOf(shape);
  int64_t elements = 1;
  for (size_t d = 0; d < shape.dims.size(); ++d) {
    int64_t n = shape.dims[d];
    const int64_t ways = mesh.Ways(sharding.Dim(d));
    if (ways > 1) n = (n + ways - 1) / ways;
    elements *= n;
  }
  if (shape.layout && shape.layout->element_size_bits > 0) {
    return (elements * shape.layout->element_size_bits + 7) / 8;
  }
  return elements * ir::DTypeStorageBytes(shape.dtype);
}

namespace {

// Mesh coordinates of every device id, by device id (-1 rows for ids not in
// the mesh).
std::vector<std::vector<int64_t>> CoordinatesById(const ir::Mesh& mesh) {
  std::vector<int64_t> ids = mesh.DeviceIds();
  int64_t max_id = 0;
  for (int64_t id : ids) max_id = std::max(max_id, id);
  std::vector<std::vector<int64_t>> coords(static_cast<size_t>(max_id) + 1);
  for (size_t pos = 0; pos < ids.size(); ++pos) {
    std::vector<int64_t> c(mesh.axes.size());
    int64_t rest = static_cast<int64_t>(pos);
    for (size_t a = mesh.axes.size(); a-- > 0;) {
      c[a] = rest % mesh.axes[a].size;
      rest /= mesh.axes[a].size;
    }
    coords[static_cast<size_t>(ids[pos])] = std::move(c);
  }
  return coords;
}

// OK when tiled `canonical` tiles `rank` dimensions over all of `mesh`'s
// devices; an error naming the mismatch otherwise.
absl::Status CheckTilingFits(const ir::HloSharding& canonical, const ir::Mesh& mesh, int64_t rank) {
  const int64_t data_rank = canonical.TiledDataRank();
  if (data_rank != rank) {
    return absl::InvalidArgumentError(absl::StrCat("sharding ", canonical.ToString(), " tiles ",
                                                   data_rank, " dimensions; expected ", rank,
                                                   " (the array's rank)"));
  }
  const int64_t count = mesh.device_count();
  if (canonical.tiles.device_count() != count) {
    return absl::InvalidArgumentError(absl::StrCat("sharding ", canonical.ToString(), " covers ",
                                                   canonical.tiles.device_count(),
                                                   " devices; expected the mesh's ", count));
  }
  return absl::OkStatus();
}

// Row-major strides of a tile array of dims `tdims`.
std::vector<int64_t> TileStrides(const std::vector<int64_t>& tdims) {
  int64_t stride = 1;
  std::vector<int64_t> strides(tdims.size());
  for (size_t d = tdims.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= tdims[d];
  }
  return strides;
}

// The mesh axes (by `coords`, CoordinatesById's rows) on which the devices of
// tiles 1..`tiles`-1 along one tile dimension (`stride` apart in `devices`)
// differ from the first device's; an error when one is not in the mesh.
absl::StatusOr<AxisMask> AxesVaryingAlong(const std::vector<std::vector<int64_t>>& coords,
                                          const std::vector<int64_t>& devices, int64_t stride, int64_t tiles) {
  AxisMask mask = 0;
  const auto& origin = coords[static_cast<size_t>(devices[0])];
  for (int64_t j = 1; j < tiles; ++j) {
    const auto& c = coords[static_cast<size_t>(devices[static_cast<size_t>(j * stride)])];
    if (c.empty()) return absl::InvalidArgumentError("a device of the sharding is not in the mesh");
    for (size_t a = 0; a < c.size(); ++a) {
      if (c[a] != origin[a]) mask |= AxisMask{1} << a;
    }
  }
  return mask;
}

}  // namespace

absl::StatusOr<AxesSharding> AxesFromHloSharding(const ir::HloSharding& sharding,
                                                 const ir::Mesh& mesh, int64_t rank) {
  if (mesh.axes.size() > 32) return absl::InvalidArgumentError("more than 32 mesh axes");
  ASSIGN_OR_RETURN(ir::HloSharding canonical, ir::CanonicalHloSharding(sharding));
  AxesSharding out;
  switch (canonical.kind) {
    case ir::HloSharding::Kind::kReplicated:
      return out;
    case ir::HloSharding::Kind::kTiled:
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("sharding ", canonical.ToString(), " is neither tiled nor replicated; expected one "
                       "that is"));
  }
  RETURN_IF_ERROR(CheckTilingFits(canonical, mesh, rank));
  ASSIGN_OR_RETURN(std::vector<int64_t> devices, canonical.tiles.Devices());
  const std::vector<std::vector<int64_t>> coords = CoordinatesById(mesh);
  const std::vector<int64_t>& tdims = canonical.tiles.dims;
  const std::vector<int64_t> strides = TileStrides(tdims);
  MeshSizes sizes;
  for (const auto& axis : mesh.axes) sizes.sizes.push_back(axis.size);
  out.dims.assign(static_cast<size_t>(rank), 0);
  AxisMask used = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (tdims[d] == 1) continue;
    ASSIGN_OR_RETURN(const AxisMask mask, AxesVaryingAlong(coords, devices, strides[d], tdims[d]));
    if (sizes.Ways(mask) != tdims[d] || (mask & used)) {
      return absl::InvalidArgumentError(
          absl::StrCat("sharding ", canonical.ToString(), " splits dimension ", d,
                       " in a way no set of whole mesh axes of ", mesh.ToString(),
                       " explains; expected each split dimension tiled by whole mesh axes, major "
                       "to minor, as a PartitionSpec gives it"));
    }
    used |= mask;
    out.dims[static_cast<size_t>(d)] = mask;
  }
  out.Normalize();
  return out;
}

std::string AxesShardingToString(const AxesSharding& sharding, const ir::Mesh& mesh) {
  auto names = [&](AxisMask mask) {
    std::vector<std::string> parts;
    for (size_t a = 0; a < mesh.axes.size(); ++a) {
      if (mask & (AxisMask{1} << a)) parts.push_back(mesh.axes[a].name);
    }
    if (parts.empty()) return std::string("null");
    if (parts.size() == 1) return parts[0];
    std::string s = "(";
    for (size_t i = 0; i < parts.size(); ++i) absl::StrAppend(&s, i ? "," : "", parts[i]);
    return s + ")";
  };
  std::string s = "[";
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    absl::StrAppend(&s, d ? ", " : "", names(sharding.dims[d]));
  }
  s += "]";
  if (sharding.partial) {
    const std::string axes = names(sharding.partial);
    absl::StrAppend(&s, " partial", axes.front() == '(' ? axes : absl::StrCat("(", axes, ")"));
  }
  return s;
}

}  // namespace memplan::predictor
