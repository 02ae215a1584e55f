#include "simulator/mesh_groups.h"

#include <algorithm>

#include "ir/strings.h"

namespace memplan::simulator {

absl::StatusOr<MeshGroups> CollectiveGroups(std::span<const int64_t> mesh_shape,
                                            std::span<const int> axes, int64_t gpus_per_node) {
  if (gpus_per_node < 1) return absl::InvalidArgumentError("expected gpus_per_node >= 1");
  int64_t devices = 1;
  for (int64_t size : mesh_shape) {
    if (size < 1) return absl::InvalidArgumentError("expected mesh axis sizes >= 1");
    devices *= size;
    if (devices > (int64_t{1} << 31)) {
      return absl::InvalidArgumentError("expected at most 2^31 devices in the mesh");
    }
  }
  const int rank = static_cast<int>(mesh_shape.size());
  std::vector<bool> in_group(rank, false);
  for (int a : axes) {
    if (a < 0 || a >= rank) {
      return absl::InvalidArgumentError(StrCat("mesh axis ", a, " out of range [0, ", rank, ")"));
    }
    if (in_group[a]) return absl::InvalidArgumentError(StrCat("mesh axis ", a, " given twice"));
    in_group[a] = true;
  }
  // Row-major strides of the mesh.
  std::vector<int64_t> stride(rank, 1);
  for (int i = rank - 2; i >= 0; --i) stride[i] = stride[i + 1] * mesh_shape[i + 1];

  std::vector<int> others;
  for (int i = 0; i < rank; ++i) {
    if (!in_group[i]) others.push_back(i);
  }
  int64_t group_size = 1;
  for (int a : axes) group_size *= mesh_shape[a];
  const int64_t group_count = devices / group_size;

  MeshGroups out;
  out.group_size = group_size;
  out.groups.reserve(static_cast<size_t>(group_count));
  // Odometers over the other axes (outer loop) and the group's axes.
  std::vector<int64_t> outer(others.size(), 0);
  for (int64_t g = 0; g < group_count; ++g) {
    int64_t base = 0;
    for (size_t i = 0; i < others.size(); ++i) base += outer[i] * stride[others[i]];
    std::vector<int64_t> group;
    group.reserve(static_cast<size_t>(group_size));
    std::vector<int64_t> inner(axes.size(), 0);
    for (int64_t k = 0; k < group_size; ++k) {
      int64_t device = base;
      for (size_t i = 0; i < axes.size(); ++i) device += inner[i] * stride[axes[i]];
      group.push_back(device);
      for (int i = static_cast<int>(axes.size()) - 1; i >= 0; --i) {
        if (++inner[i] < mesh_shape[axes[i]]) break;
        inner[i] = 0;
      }
    }
    out.groups.push_back(std::move(group));
    for (int i = static_cast<int>(others.size()) - 1; i >= 0; --i) {
      if (++outer[i] < mesh_shape[others[i]]) break;
      outer[i] = 0;
    }
  }
  std::sort(out.groups.begin(), out.groups.end(),
            [](const auto& a, const auto& b) { return a.front() < b.front(); });
  for (size_t i = 0; i < out.groups.size(); ++i) {
    const GroupPlacement p = PlaceGroup(out.groups[i], gpus_per_node);
    out.crosses_nodes |= p.nodes > 1;
    if (i == 0) {
      out.placement = p;
    } else if (p.nodes != out.placement.nodes || p.ranks_per_node != out.placement.ranks_per_node ||
               p.uniform != out.placement.uniform) {
      out.same_placement = false;
    }
  }
  return out;
}

}  // namespace memplan::simulator
