#include "ir/partition_spec.h"

#include <algorithm>
#include <utility>

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
  // Axes of size 1 shard nothing: JAX drops them from the mesh and the spec.
  std::vector<size_t> kept;  // indices into full_mesh.axes
  for (size_t i = 0; i < full_mesh.axes.size(); ++i) {
    if (full_mesh.axes[i].size != 1) kept.push_back(i);
  }
  absl::flat_hash_map<std::string, size_t> position;  // name -> index among kept
  for (size_t k = 0; k < kept.size(); ++k) position[full_mesh.axes[kept[k]].name] = k;

  // array_mapping: each kept axis used by the spec -> (array dim), in spec order.
  std::vector<std::pair<size_t, int64_t>> mapping;  // (kept index, dim)
  for (size_t d = 0; d < sharding.spec.dims.size(); ++d) {
    for (const std::string& axis : sharding.spec.dims[d].axes) {
      auto it = position.find(axis);
      if (it != position.end()) mapping.emplace_back(it->second, static_cast<int64_t>(d));
    }
  }
  absl::flat_hash_map<size_t, OpShardingType> special;  // kept index -> MANUAL/UNREDUCED
  for (size_t k = 0; k < kept.size(); ++k) {
    if (!sharding.axis_types.empty() && sharding.axis_types[kept[k]] == AxisType::kManual) {
      special[k] = OpShardingType::kManual;
    }
  }
  for (const std::string& axis : sharding.spec.unreduced) {
    auto it = position.find(axis);
    if (it != position.end()) special[it->second] = OpShardingType::kUnreduced;
  }
  std::vector<std::pair<size_t, int64_t>> unused;  // (kept index, size)
  for (size_t k = 0; k < kept.size(); ++k) {
    const bool in_spec = std::any_of(mapping.begin(), mapping.end(),
                                     [&](const auto& m) { return m.first == k; });
    if (!in_spec) unused.emplace_back(k, full_mesh.axes[kept[k]].size);
  }
  if (unused.size() == kept.size() && special.empty()) return HloSharding::Replicated();

  std::vector<int64_t> tile_dims(static_cast<size_t>(rank), 1);
  std::vector<int64_t> perm;
  std::stable_sort(mapping.begin(), mapping.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [k, dim] : mapping) {
    tile_dims[dim] *= full_mesh.axes[kept[k]].size;
    perm.push_back(static_cast<int64_t>(k));
  }
  // Unused axes by subgroup type, types in OpSharding.Type order.
  std::vector<OpShardingType> types;
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
      perm.push_back(static_cast<int64_t>(k));
    }
    if (!any) continue;
    types.push_back(type);
    tile_dims.push_back(size);
  }
  std::vector<int64_t> reshape;
  for (size_t k : kept) reshape.push_back(full_mesh.axes[k].size);
  if (sharding.logical_device_ids.empty()) {
    return SubgroupSharding(TileAssignment::Iota(tile_dims, reshape, perm), types);
  }
  // NamedSharding(..., logical_device_ids=...): those ids, viewed as the
  // mesh, transposed like the iota.
  if (static_cast<int64_t>(sharding.logical_device_ids.size()) != full_mesh.device_count()) {
    return absl::InvalidArgumentError(StrCat("expected ", full_mesh.device_count(),
                                             " logical device ids, not ",
                                             sharding.logical_device_ids.size()));
  }
  std::vector<int64_t> sorted = sharding.logical_device_ids;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError(
          StrCat("expected logical_device_ids to be a permutation of 0..", sorted.size() - 1));
    }
  }
  const TileAssignment ids = TileAssignment::Explicit(reshape, sharding.logical_device_ids);
  return SubgroupSharding(ids.Transposed(perm).Reshaped(tile_dims), types);
}

}  // namespace memplan::ir
