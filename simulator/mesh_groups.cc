#include "simulator/mesh_groups.h"

#include <algorithm>

#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::simulator {

namespace {

// The mesh's device count, or an error for a size < 1, more than 2^31
// devices, or a group axis out of range or given twice.
absl::StatusOr<int64_t> CheckedDeviceCount(std::span<const int64_t> mesh_shape,
                                           std::span<const int> axes) {
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
  return devices;
}

// Advances an odometer over the given axes (last fastest).
void Advance(std::vector<int64_t>& odometer, std::span<const int64_t> mesh_shape,
             std::span<const int> axes) {
  for (int i = static_cast<int>(axes.size()) - 1; i >= 0; --i) {
    if (++odometer[i] < mesh_shape[axes[i]]) break;
    odometer[i] = 0;
  }
}

// Every group of devices that differ only along `axes`, each in the order
// of its axes (last fastest); groups in the order of the other axes.
std::vector<std::vector<int64_t>> GroupDevices(std::span<const int64_t> mesh_shape,
                                               std::span<const int> axes, int64_t group_size,
                                               int64_t group_count) {
  const int rank = static_cast<int>(mesh_shape.size());
  std::vector<int64_t> stride(rank, 1);  // row-major strides of the mesh
  for (int i = rank - 2; i >= 0; --i) stride[i] = stride[i + 1] * mesh_shape[i + 1];
  std::vector<int> others;
  for (int i = 0; i < rank; ++i) {
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) others.push_back(i);
  }
  std::vector<std::vector<int64_t>> groups;
  groups.reserve(static_cast<size_t>(group_count));
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
      Advance(inner, mesh_shape, axes);
    }
    groups.push_back(std::move(group));
    Advance(outer, mesh_shape, others);
  }
  return groups;
}

}  // namespace

absl::StatusOr<MeshGroups> CollectiveGroups(std::span<const int64_t> mesh_shape,
                                            std::span<const int> axes, int64_t gpus_per_node) {
  if (gpus_per_node < 1) return absl::InvalidArgumentError("expected gpus_per_node >= 1");
  ASSIGN_OR_RETURN(const int64_t devices, CheckedDeviceCount(mesh_shape, axes));
  int64_t group_size = 1;
  for (int a : axes) group_size *= mesh_shape[a];

  MeshGroups out;
  out.group_size = group_size;
  out.groups = GroupDevices(mesh_shape, axes, group_size, devices / group_size);
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
