#include "ir/partition_spec.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::ir {
namespace {

std::string Quoted(const std::string& name) { return StrCat("'", name, "'"); }

std::string NameSet(const std::vector<std::string>& names) {
  return StrCat("{", absl::StrJoin(names, ", ", [](std::string* out, const std::string& name) {
                  StrAppend(out, Quoted(name));
                }),
                "}");
}

// The mesh axes that shard anything (JAX drops axes of size 1 from the mesh
// and the spec): their indices into the mesh, and each name's position
// among them.
struct KeptAxes {
  std::vector<size_t> indices;
  absl::flat_hash_map<std::string, size_t> position;
};

// The KeptAxes of `mesh`.
KeptAxes KeptAxesOf(const Mesh& mesh) {
  KeptAxes out;
  for (size_t i = 0; i < mesh.axes.size(); ++i) {
    if (mesh.axes[i].size != 1) out.indices.push_back(i);
  }
  for (size_t k = 0; k < out.indices.size(); ++k) out.position[mesh.axes[out.indices[k]].name] = k;
  return out;
}

// JAX's array_mapping: (kept index, array dim) for each kept axis the spec
// uses, in spec order.
std::vector<std::pair<size_t, int64_t>> ArrayMapping(const PartitionSpec& spec,
                                                     const KeptAxes& kept) {
  std::vector<std::pair<size_t, int64_t>> mapping;
  for (size_t d = 0; d < spec.dims.size(); ++d) {
    for (const std::string& axis : spec.dims[d].axes) {
      auto it = kept.position.find(axis);
      if (it != kept.position.end()) mapping.emplace_back(it->second, static_cast<int64_t>(d));
    }
  }
  return mapping;
}

// Kept axes that are not replicated when unused: manual axes (by the axis
// types) and the spec's unreduced axes, which win.
absl::flat_hash_map<size_t, OpShardingType> SpecialAxes(const JaxNamedSharding& sharding,
                                                        const KeptAxes& kept) {
  absl::flat_hash_map<size_t, OpShardingType> special;
  for (size_t k = 0; k < kept.indices.size(); ++k) {
    if (!sharding.axis_types.empty() && sharding.axis_types[kept.indices[k]] == AxisType::kManual) {
      special[k] = OpShardingType::kManual;
    }
  }
  for (const std::string& axis : sharding.spec.unreduced) {
    auto it = kept.position.find(axis);
    if (it != kept.position.end()) special[it->second] = OpShardingType::kUnreduced;
  }
  return special;
}

// (kept index, size) of each kept axis `mapping` does not use, in mesh order.
std::vector<std::pair<size_t, int64_t>> UnusedAxes(
    const Mesh& mesh, const KeptAxes& kept,
    const std::vector<std::pair<size_t, int64_t>>& mapping) {
  std::vector<std::pair<size_t, int64_t>> unused;
  for (size_t k = 0; k < kept.indices.size(); ++k) {
    const bool in_spec = std::any_of(mapping.begin(), mapping.end(),
                                     [&](const auto& m) { return m.first == k; });
    if (!in_spec) unused.emplace_back(k, mesh.axes[kept.indices[k]].size);
  }
  return unused;
}

// The tiled view of the kept mesh: per array dim the product of the axes
// mapped to it, then one subgroup dim per type of unused axes; `perm`
// orders the kept axes as those dims take them.
struct SubgroupTiles {
  std::vector<int64_t> tile_dims;
  std::vector<int64_t> perm;
  std::vector<OpShardingType> types;  // of the subgroup dims, in OpSharding.Type order
};

// The SubgroupTiles of an array of `rank`.
SubgroupTiles TilesOf(const Mesh& mesh, const KeptAxes& kept, int64_t rank,
                      std::vector<std::pair<size_t, int64_t>> mapping,
                      const std::vector<std::pair<size_t, int64_t>>& unused,
                      const absl::flat_hash_map<size_t, OpShardingType>& special) {
  SubgroupTiles out;
  out.tile_dims.assign(static_cast<size_t>(rank), 1);
  std::stable_sort(mapping.begin(), mapping.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [k, dim] : mapping) {
    out.tile_dims[dim] *= mesh.axes[kept.indices[k]].size;
    out.perm.push_back(static_cast<int64_t>(k));
  }
  for (OpShardingType type : {OpShardingType::kReplicated, OpShardingType::kManual,
                              OpShardingType::kUnreduced}) {
    int64_t size = 1;
    bool any = false;
    for (const auto& [k, axis_size] : unused) {
      auto it = special.find(k);
      const OpShardingType axis_type = it == special.end() ? OpShardingType::kReplicated : it->second;
      if (axis_type != type) continue;
      any = true;
      size *= axis_size;
      out.perm.push_back(static_cast<int64_t>(k));
    }
    if (!any) continue;
    out.types.push_back(type);
    out.tile_dims.push_back(size);
  }
  return out;
}

// InvalidArgument unless `ids` is a permutation of the mesh's devices.
absl::Status CheckLogicalDeviceIds(const Mesh& mesh, const std::vector<int64_t>& ids) {
  if (static_cast<int64_t>(ids.size()) != mesh.device_count()) {
    return absl::InvalidArgumentError(StrCat("expected ", mesh.device_count(),
                                             " logical device ids, not ", ids.size()));
  }
  std::vector<int64_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError(
          StrCat("expected logical_device_ids to be a permutation of 0..", sorted.size() - 1));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string PartitionSpec::ToString() const {
  // Python's repr of the partitions tuple without its parentheses: a
  // one-element tuple keeps its trailing comma.
  std::vector<std::string> parts;
  for (const SpecDim& dim : dims) {
    switch (dim.kind) {
      case SpecDim::Kind::kNone:
        parts.push_back("None");
        break;
      case SpecDim::Kind::kUnconstrained:
        parts.push_back("UNCONSTRAINED");
        break;
      case SpecDim::Kind::kAxes:
        if (dim.tuple || dim.axes.size() != 1) {
          std::vector<std::string> names;
          for (const std::string& axis : dim.axes) names.push_back(Quoted(axis));
          parts.push_back(StrCat("(", absl::StrJoin(names, ", "), names.size() == 1 ? ",)" : ")"));
        } else {
          parts.push_back(Quoted(dim.axes.front()));
        }
        break;
    }
  }
  std::string inner = absl::StrJoin(parts, ", ");
  if (parts.size() == 1) inner += ",";
  if (unreduced.empty() && reduced.empty()) return StrCat("P(", inner, ")");
  std::string ur;
  if (!unreduced.empty()) ur = StrCat("unreduced=", NameSet(unreduced));
  if (!reduced.empty()) StrAppend(&ur, ur.empty() ? "" : ", ", "reduced=", NameSet(reduced));
  if (inner.empty()) return StrCat("P(", ur, ")");
  return StrCat("P(", inner, inner.back() == ',' ? " " : ", ", ur, ")");
}

absl::Status ValidatePartitionSpec(const Mesh& mesh, const PartitionSpec& spec, int64_t rank) {
  absl::flat_hash_set<std::string> seen;
  auto use = [&](const std::string& axis) -> absl::Status {
    if (!mesh.AxisIndex(axis)) {
      return absl::InvalidArgumentError(
          StrCat("axis '", axis, "' is not in the mesh (", mesh.ToString(), ")"));
    }
    if (!seen.insert(axis).second) {
      return absl::InvalidArgumentError(StrCat("axis '", axis, "' is used more than once in ", spec.ToString()));
    }
    return absl::OkStatus();
  };
  for (const SpecDim& dim : spec.dims) {
    for (const std::string& axis : dim.axes) RETURN_IF_ERROR(use(axis));
  }
  for (const std::string& axis : spec.unreduced) RETURN_IF_ERROR(use(axis));
  for (const std::string& axis : spec.reduced) {
    if (!mesh.AxisIndex(axis)) {
      return absl::InvalidArgumentError(
          StrCat("axis '", axis, "' is not in the mesh (", mesh.ToString(), ")"));
    }
  }
  if (static_cast<int64_t>(spec.dims.size()) > rank) {
    return absl::InvalidArgumentError(StrCat(spec.ToString(), " has ", spec.dims.size(),
                                             " entries but the array has rank ", rank));
  }
  return absl::OkStatus();
}

absl::StatusOr<HloSharding> PartitionSpecToHloSharding(const JaxNamedSharding& sharding, int64_t rank) {
  const Mesh& full_mesh = sharding.mesh;
  RETURN_IF_ERROR(full_mesh.Validate());
  RETURN_IF_ERROR(ValidatePartitionSpec(full_mesh, sharding.spec, rank));
  if (!sharding.axis_types.empty() && sharding.axis_types.size() != full_mesh.axes.size()) {
    return absl::InvalidArgumentError(StrCat("expected ", full_mesh.axes.size(), " axis types, not ",
                                             sharding.axis_types.size()));
  }
  const KeptAxes kept = KeptAxesOf(full_mesh);
  std::vector<std::pair<size_t, int64_t>> mapping = ArrayMapping(sharding.spec, kept);
  const absl::flat_hash_map<size_t, OpShardingType> special = SpecialAxes(sharding, kept);
  const std::vector<std::pair<size_t, int64_t>> unused = UnusedAxes(full_mesh, kept, mapping);
  if (unused.size() == kept.indices.size() && special.empty()) return HloSharding::Replicated();

  const SubgroupTiles tiles = TilesOf(full_mesh, kept, rank, std::move(mapping), unused, special);
  std::vector<int64_t> reshape;
  for (size_t k : kept.indices) reshape.push_back(full_mesh.axes[k].size);
  if (sharding.logical_device_ids.empty()) {
    return SubgroupSharding(TileAssignment::Iota(tiles.tile_dims, reshape, tiles.perm),
                            tiles.types);
  }
  // NamedSharding(..., logical_device_ids=...): those ids, viewed as the
  // mesh, transposed like the iota.
  RETURN_IF_ERROR(CheckLogicalDeviceIds(full_mesh, sharding.logical_device_ids));
  const TileAssignment ids = TileAssignment::Explicit(reshape, sharding.logical_device_ids);
  return SubgroupSharding(ids.Transposed(tiles.perm).Reshaped(tiles.tile_dims), tiles.types);
}

}  // namespace memplan::ir
