// The normal forms XLA gives shardings when it reads them
// (HloSharding::FromProto, PartialTile, Subgroup, V3ToV2Sharding), so that
// our HloSharding strings equal XLA's for the same sharding.
#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "ir/sharding.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::ir {
namespace {

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t i = begin; i < end; ++i) product *= dims[i];
  return product;
}

HloSharding OfKind(HloSharding::Kind kind) {
  HloSharding out;
  out.kind = kind;
  return out;
}

// Fills `new_reshape` and `new_perm` with an iota form of the same devices
// in which the minor `group_size` devices of every group come from whole
// reshape axes listed in ascending order, splitting at most one axis
// (XLA's GroupMinorIotaDimsSorted). False when no such form exists.
bool GroupMinorIotaAxesSorted(const std::vector<int64_t>& reshape, const std::vector<int64_t>& perm,
                              int64_t group_size, std::vector<int64_t>* new_reshape,
                              std::vector<int64_t>* new_perm) {
  size_t grouped = 0;
  std::optional<std::pair<int64_t, int64_t>> split;  // (axis, size of its major part)
  for (size_t i = perm.size(); i-- > 0;) {
    const int64_t axis = perm[i];
    const int64_t size = reshape[axis];
    if (size <= group_size) {
      if (group_size % size != 0) return false;
      group_size /= size;
      ++grouped;
    } else {
      if (size % group_size != 0) return false;
      split.emplace(axis, size / group_size);
      ++grouped;
      break;
    }
  }
  if (!split) {
    *new_reshape = reshape;
    *new_perm = perm;
    std::stable_sort(new_perm->end() - static_cast<std::ptrdiff_t>(grouped), new_perm->end());
    return true;
  }
  const int64_t split_axis = split->first;
  new_reshape->assign(reshape.size() + 1, 0);
  for (int64_t i = 0; i < split_axis; ++i) (*new_reshape)[i] = reshape[i];
  (*new_reshape)[split_axis] = split->second;
  (*new_reshape)[split_axis + 1] = reshape[split_axis] / split->second;
  for (size_t i = split_axis + 2; i < new_reshape->size(); ++i) (*new_reshape)[i] = reshape[i - 1];
  // Renumber the permutation for the extra axis; the split axis becomes its
  // two halves, major then minor.
  new_perm->clear();
  for (int64_t axis : perm) {
    if (axis == split_axis) {
      new_perm->push_back(axis);
      new_perm->push_back(axis + 1);
    } else {
      new_perm->push_back(axis < split_axis ? axis : axis + 1);
    }
  }
  std::stable_sort(new_perm->end() - static_cast<std::ptrdiff_t>(grouped), new_perm->end());
  return true;
}

}  // namespace

HloSharding PartialTileSharding(const TileAssignment& input) {
  TileAssignment tiles = input;
  if (tiles.iota) tiles.iota = tiles.iota->Canonical();
  const int64_t count = tiles.device_count();
  if (tiles.dims.size() == 1 || tiles.dims.back() == count) return HloSharding::Replicated();
  if (tiles.dims.back() == 1) {
    std::vector<int64_t> data_dims(tiles.dims.begin(), tiles.dims.end() - 1);
    return HloSharding::Tiled(tiles.Reshaped(std::move(data_dims)));
  }
  const int64_t group_size = tiles.dims.back();
  if (tiles.iota) {
    const IotaDevices& iota = *tiles.iota;
    if (iota.reshape_dims[iota.transpose_perm.back()] == group_size) {
      return HloSharding::Tiled(tiles, /*replicate_on_last_tile_dim=*/true);
    }
    std::vector<int64_t> reshape, perm;
    if (GroupMinorIotaAxesSorted(iota.reshape_dims, iota.transpose_perm, group_size, &reshape, &perm)) {
      return HloSharding::Tiled(TileAssignment::Iota(tiles.dims, std::move(reshape), std::move(perm)),
                                /*replicate_on_last_tile_dim=*/true);
    }
  }
  std::vector<int64_t> devices = tiles.Devices().value_or(std::vector<int64_t>{});
  for (size_t begin = 0; begin + group_size <= devices.size(); begin += group_size) {
    std::sort(devices.begin() + static_cast<std::ptrdiff_t>(begin),
              devices.begin() + static_cast<std::ptrdiff_t>(begin + group_size));
  }
  return HloSharding::Tiled(TileAssignment::Explicit(tiles.dims, std::move(devices)),
                            /*replicate_on_last_tile_dim=*/true);
}

namespace {

// Subgroup's last step: the sharding of `tiles` whose trailing dims have
// `types` (already merged and ordered).
HloSharding SubgroupOfMerged(const TileAssignment& tiles, const std::vector<OpShardingType>& types) {
  if (types.size() == 1 && types.back() == OpShardingType::kReplicated) {
    return PartialTileSharding(tiles);
  }
  if (types.size() == 1 && types.back() == OpShardingType::kManual &&
      tiles.device_count() == tiles.dims.back()) {
    return OfKind(HloSharding::Kind::kManual);
  }
  if (!types.empty() && types.back() == OpShardingType::kReplicated) {
    HloSharding sharding = PartialTileSharding(tiles);
    sharding.replicate_on_last_tile_dim = false;
    sharding.last_tile_dims = types;
    return sharding;
  }
  return HloSharding::Tiled(tiles, false, types);
}

// The sharding of `tiles` whose trailing subgroup dims (after `data_dims`
// data dims) all have one type and whose data dims are not cut: whole
// manual, replicated or unreduced; nullopt otherwise.
std::optional<HloSharding> WholeOfOneType(const TileAssignment& tiles,
                                          const std::vector<OpShardingType>& types,
                                          size_t data_dims) {
  const bool one_type =
      std::all_of(types.begin(), types.end(), [&](OpShardingType t) { return t == types[0]; });
  if (!one_type || Product(tiles.dims, 0, data_dims) != 1) return std::nullopt;
  switch (types[0]) {
    case OpShardingType::kManual:
      return OfKind(HloSharding::Kind::kManual);
    case OpShardingType::kReplicated:
      return HloSharding::Replicated();
    case OpShardingType::kUnreduced:
      return OfKind(HloSharding::Kind::kUnreduced);
    default:
      return std::nullopt;
  }
}

// The subgroup dims of a tile assignment: those of size > 1 by type (each
// type's in order), those of size 1 apart.
struct SubgroupDims {
  std::map<OpShardingType, std::vector<int64_t>> of_type;
  std::vector<int64_t> removed;  // of size 1
  bool needs_merging = false;     // see GroupSubgroupDims
};

// `tiles`' subgroup dims (those after `data_dims`, of `types`) grouped;
// `needs_merging` unless a single type is left, with one dim, and no dim
// of size 1.
SubgroupDims GroupSubgroupDims(const TileAssignment& tiles,
                               const std::vector<OpShardingType>& types, size_t data_dims) {
  SubgroupDims out;
  for (size_t i = 0; i < types.size(); ++i) {
    const int64_t dim = static_cast<int64_t>(data_dims + i);
    if (tiles.dims[dim] == 1) {
      out.removed.push_back(dim);
      out.needs_merging = true;
      continue;
    }
    std::vector<int64_t>& dims = out.of_type[types[i]];
    if (!dims.empty()) out.needs_merging = true;
    dims.push_back(dim);
  }
  if (out.of_type.size() > 1) out.needs_merging = true;
  return out;
}

// The sharding of `tiles` with the dims of each subgroup type merged into
// one, types in XLA's order (replicated last so that PartialTile can sort
// the groups), and the dims of size 1 dropped.
HloSharding MergeSubgroups(const TileAssignment& tiles, const SubgroupDims& groups,
                           size_t data_dims) {
  static constexpr std::array<OpShardingType, 7> kOrder = {
      OpShardingType::kMaximal,   OpShardingType::kTuple,      OpShardingType::kOther,
      OpShardingType::kManual,    OpShardingType::kUnreduced,  OpShardingType::kReplicated,
      OpShardingType::kUnknown};
  std::vector<int64_t> perm(data_dims);
  std::iota(perm.begin(), perm.end(), 0);
  std::vector<int64_t> merged_shape(tiles.dims.begin(), tiles.dims.begin() + data_dims);
  std::vector<OpShardingType> merged_types;
  for (OpShardingType type : kOrder) {
    auto it = groups.of_type.find(type);
    if (it == groups.of_type.end()) continue;
    int64_t size = 1;
    for (int64_t dim : it->second) {
      perm.push_back(dim);
      size *= tiles.dims[dim];
    }
    merged_shape.push_back(size);
    merged_types.push_back(type);
  }
  perm.insert(perm.end(), groups.removed.begin(), groups.removed.end());
  TileAssignment merged = tiles.Transposed(perm).Reshaped(std::move(merged_shape));
  return SubgroupOfMerged(merged, merged_types);
}

}  // namespace

HloSharding SubgroupSharding(const TileAssignment& input, const std::vector<OpShardingType>& types) {
  TileAssignment tiles = input;
  if (tiles.iota) tiles.iota = tiles.iota->Canonical();
  if (types.empty()) return HloSharding::Tiled(tiles);
  const size_t data_dims = tiles.dims.size() - types.size();
  if (std::optional<HloSharding> whole = WholeOfOneType(tiles, types, data_dims)) return *whole;
  const SubgroupDims groups = GroupSubgroupDims(tiles, types, data_dims);
  if (!groups.needs_merging) return SubgroupOfMerged(tiles, types);
  return MergeSubgroups(tiles, groups, data_dims);
}

namespace {

// A named sharding lowered to tiles: each mesh axis is cut into pieces where
// the sub-axes the sharding names begin and end; the tile assignment is the
// mesh's device array reshaped to the pieces, transposed to the order the
// dims and subgroups take them, and reshaped to the tile dims.
class NamedTiler {
 public:
  explicit NamedTiler(const NamedSharding& named) : named_(named), mesh_(named.mesh) {}

  absl::StatusOr<HloSharding> Run() {
    RETURN_IF_ERROR(mesh_.Validate());
    RETURN_IF_ERROR(CheckPositions());
    RETURN_IF_ERROR(CutAxes());
    RETURN_IF_ERROR(MakePieces());
    for (const auto& dim : named_.dims) {
      int64_t size = 1;
      for (const AxisRef& ref : dim.axes) {
        RETURN_IF_ERROR(PiecesOf(ref, &perm_));
        size *= named_.AxisSize(ref);
      }
      tile_dims_.push_back(size);
    }
    RETURN_IF_ERROR(AddGroup(named_.manual_axes, OpShardingType::kManual));
    RETURN_IF_ERROR(AddGroup(named_.unreduced_axes, OpShardingType::kUnreduced));
    RETURN_IF_ERROR(AddGroup(named_.replicated_axes, OpShardingType::kReplicated));
    // Nothing tiled and nothing in a subgroup: a mesh of one device, or no
    // dims at all.
    if (tile_dims_.empty()) return HloSharding::Replicated();
    std::vector<int64_t> piece_sizes;
    for (const Piece& piece : pieces_) piece_sizes.push_back(piece.size);
    const TileAssignment tiles =
        DeviceArray().Reshaped(std::move(piece_sizes)).Transposed(perm_).Reshaped(tile_dims_);
    return SubgroupSharding(tiles, types_);
  }

 private:
  struct Piece {
    size_t axis;
    int64_t pre;
    int64_t size;
  };

  // A named sharding's device ids are positions: XLA's Mesh takes a
  // permutation of 0..N-1 only.
  absl::Status CheckPositions() const {
    std::vector<int64_t> ids = mesh_.DeviceIds();
    std::sort(ids.begin(), ids.end());
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] != static_cast<int64_t>(i)) {
        return absl::InvalidArgumentError(
            StrCat("expected the mesh's device_ids to be a permutation of 0..", ids.size() - 1));
      }
    }
    return absl::OkStatus();
  }

  // Cut points of each mesh axis: where its referenced sub-axes begin and
  // end (as pre-sizes, 1 and the axis size included).
  absl::Status CutAxes() {
    cuts_.resize(mesh_.axes.size());
    for (size_t a = 0; a < mesh_.axes.size(); ++a) cuts_[a] = {1, mesh_.axes[a].size};
    for (const auto& dim : named_.dims) {
      for (const AxisRef& ref : dim.axes) RETURN_IF_ERROR(Cut(ref));
    }
    for (const auto* list : {&named_.replicated_axes, &named_.unreduced_axes, &named_.manual_axes}) {
      for (const AxisRef& ref : *list) RETURN_IF_ERROR(Cut(ref));
    }
    return absl::OkStatus();
  }

  absl::Status Cut(const AxisRef& ref) {
    if (ref.mesh_axis < 0 || ref.mesh_axis >= static_cast<int64_t>(mesh_.axes.size())) {
      return absl::InvalidArgumentError(StrCat("axis index ", ref.mesh_axis, " is not in the mesh"));
    }
    if (!ref.pre_size) return absl::OkStatus();
    const int64_t size = mesh_.axes[ref.mesh_axis].size;
    const int64_t pre = *ref.pre_size;
    if (pre < 1 || ref.sub_size < 2 || ref.sub_size >= size || size % (pre * ref.sub_size) != 0) {
      return absl::InvalidArgumentError(
          StrCat("sub-axis ", mesh_.axes[ref.mesh_axis].name, ":(", pre, ")", ref.sub_size,
                 " does not divide the axis of size ", size));
    }
    cuts_[ref.mesh_axis].push_back(pre);
    cuts_[ref.mesh_axis].push_back(pre * ref.sub_size);
    return absl::OkStatus();
  }

  // Pieces: each axis cut at its cut points, major (small pre-size) first.
  absl::Status MakePieces() {
    for (size_t a = 0; a < mesh_.axes.size(); ++a) {
      std::vector<int64_t>& c = cuts_[a];
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
      for (size_t i = 0; i + 1 < c.size(); ++i) {
        if (c[i + 1] % c[i] != 0) {
          return absl::InvalidArgumentError(
              StrCat("the sub-axes of mesh axis '", mesh_.axes[a].name, "' overlap"));
        }
        pieces_.push_back(Piece{a, c[i], c[i + 1] / c[i]});
      }
    }
    used_.assign(pieces_.size(), false);
    return absl::OkStatus();
  }

  // Appends the pieces `ref` covers to `out`; an error when one is taken.
  absl::Status PiecesOf(const AxisRef& ref, std::vector<int64_t>* out) {
    const int64_t begin = ref.pre_size ? *ref.pre_size : 1;
    const int64_t end = ref.pre_size ? begin * ref.sub_size : mesh_.axes[ref.mesh_axis].size;
    for (size_t p = 0; p < pieces_.size(); ++p) {
      if (pieces_[p].axis != static_cast<size_t>(ref.mesh_axis) || pieces_[p].pre < begin ||
          pieces_[p].pre >= end) {
        continue;
      }
      if (used_[p]) {
        return absl::InvalidArgumentError(
            StrCat("mesh axis '", mesh_.axes[ref.mesh_axis].name, "' is used twice"));
      }
      used_[p] = true;
      out->push_back(static_cast<int64_t>(p));
    }
    return absl::OkStatus();
  }

  // A subgroup of `type` over `refs`' pieces (every piece not yet used, for
  // the replicated subgroup), as one more tile dim.
  absl::Status AddGroup(const std::vector<AxisRef>& refs, OpShardingType type) {
    std::vector<int64_t> group;
    for (const AxisRef& ref : refs) RETURN_IF_ERROR(PiecesOf(ref, &group));
    if (type == OpShardingType::kReplicated) {
      for (size_t p = 0; p < pieces_.size(); ++p) {
        if (!used_[p]) {
          used_[p] = true;
          group.push_back(static_cast<int64_t>(p));
        }
      }
    }
    if (group.empty()) return absl::OkStatus();
    std::sort(group.begin(), group.end());
    int64_t size = 1;
    for (int64_t p : group) size *= pieces_[p].size;
    perm_.insert(perm_.end(), group.begin(), group.end());
    tile_dims_.push_back(size);
    types_.push_back(type);
    return absl::OkStatus();
  }

  TileAssignment DeviceArray() const {
    std::vector<int64_t> axis_sizes;
    for (const MeshAxis& axis : mesh_.axes) axis_sizes.push_back(axis.size);
    switch (mesh_.order) {
      case Mesh::DeviceOrder::kIota:
        return TileAssignment::Iota(axis_sizes);
      case Mesh::DeviceOrder::kIotaForm:
        return TileAssignment::Iota(axis_sizes, mesh_.iota.reshape_dims, mesh_.iota.transpose_perm);
      case Mesh::DeviceOrder::kList:
        return TileAssignment::Explicit(axis_sizes, mesh_.device_list);
    }
    return TileAssignment();
  }

  const NamedSharding& named_;
  const Mesh& mesh_;
  std::vector<std::vector<int64_t>> cuts_;  // by mesh axis
  std::vector<Piece> pieces_;
  std::vector<bool> used_;        // by piece
  std::vector<int64_t> perm_;     // pieces in tile order
  std::vector<int64_t> tile_dims_;
  std::vector<OpShardingType> types_;
};

}  // namespace

absl::StatusOr<HloSharding> NamedToTiled(const NamedSharding& named) {
  switch (named.form) {
    case NamedSharding::Form::kMaximal:
      return HloSharding::Maximal(named.maximal_device);
    case NamedSharding::Form::kReplicated:
      return HloSharding::Replicated();
    case NamedSharding::Form::kUnreduced:
      return OfKind(HloSharding::Kind::kUnreduced);
    case NamedSharding::Form::kManual:
      return OfKind(HloSharding::Kind::kManual);
    case NamedSharding::Form::kTiled:
      break;
  }
  return NamedTiler(named).Run();
}

namespace {

// Subgroup types, tile dims and the device list of a tiled sharding: each
// device in [0, count) once, no more subgroup dims than tile dims.
absl::Status CheckTiled(const HloSharding& sharding) {
  if (sharding.tiles.dims.empty()) return absl::InvalidArgumentError("expected at least one tile dimension");
  for (OpShardingType type : sharding.last_tile_dims) {
    if (SubgroupTypeName(type).empty()) {
      return absl::InvalidArgumentError(StrCat("OpSharding type ", static_cast<int>(type),
                                               " is not a subgroup type (replicated, manual, unreduced, maximal)"));
    }
  }
  for (int64_t d : sharding.tiles.dims) {
    if (d < 1) return absl::InvalidArgumentError(StrCat("tile dimension ", d, " is below 1"));
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> devices, sharding.tiles.Devices());
  const int64_t count = static_cast<int64_t>(devices.size());
  absl::flat_hash_set<int64_t> seen;
  for (int64_t device : devices) {
    if (device < 0 || device >= count) {
      return absl::InvalidArgumentError(
          StrCat("device ", device, " is outside [0, ", count, ") in the tile assignment"));
    }
    if (!seen.insert(device).second) {
      return absl::InvalidArgumentError(StrCat("device ", device, " appears twice in the tile assignment"));
    }
  }
  const size_t subgroups = sharding.last_tile_dims.size() + (sharding.replicate_on_last_tile_dim ? 1 : 0);
  if (subgroups > sharding.tiles.dims.size()) {
    return absl::InvalidArgumentError(
        StrCat("expected at most ", sharding.tiles.dims.size(), " subgroup dims, not ", subgroups));
  }
  return absl::OkStatus();
}

absl::StatusOr<HloSharding> CanonicalTiled(const HloSharding& sharding) {
  RETURN_IF_ERROR(CheckTiled(sharding));
  if (!sharding.last_tile_dims.empty()) return SubgroupSharding(sharding.tiles, sharding.last_tile_dims);
  if (sharding.replicate_on_last_tile_dim) return PartialTileSharding(sharding.tiles);
  TileAssignment tiles = sharding.tiles;
  if (tiles.iota) tiles.iota = tiles.iota->Canonical();
  return HloSharding::Tiled(std::move(tiles));
}

}  // namespace

absl::StatusOr<HloSharding> CanonicalHloSharding(const HloSharding& sharding) {
  HloSharding out;
  switch (sharding.kind) {
    case HloSharding::Kind::kTuple: {
      out.kind = HloSharding::Kind::kTuple;
      for (const HloSharding& element : sharding.tuple_elements) {
        ASSIGN_OR_RETURN(HloSharding canonical, CanonicalHloSharding(element));
        out.tuple_elements.push_back(std::move(canonical));
      }
      return out;
    }
    case HloSharding::Kind::kNamed: {
      if (!sharding.named) return absl::InvalidArgumentError("expected a named sharding");
      ASSIGN_OR_RETURN(out, NamedToTiled(*sharding.named));
      break;
    }
    case HloSharding::Kind::kTiled: {
      ASSIGN_OR_RETURN(out, CanonicalTiled(sharding));
      break;
    }
    default:
      out = sharding;
      break;
  }
  out.metadata = sharding.metadata;
  out.shard_group = sharding.shard_group;
  return out;
}

}  // namespace memplan::ir
