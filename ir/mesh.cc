#include "ir/mesh.h"

#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "ir/iota.h"
#include "ir/strings.h"

namespace memplan::ir {

int64_t Mesh::device_count() const {
  int64_t product = 1;
  for (const MeshAxis& axis : axes) {
    if (axis.size < 1 || product > kMaxDevices / axis.size) return -1;
    product *= axis.size;
  }
  return product;
}

std::optional<size_t> Mesh::AxisIndex(std::string_view name) const {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].name == name) return i;
  }
  return std::nullopt;
}

absl::Status Mesh::Validate() const {
  if (axes.empty()) return absl::InvalidArgumentError("expected a mesh with at least one axis");
  absl::flat_hash_set<std::string> names;
  for (const MeshAxis& axis : axes) {
    if (axis.name.empty()) return absl::InvalidArgumentError("expected every mesh axis to have a name");
    if (!names.insert(axis.name).second) {
      return absl::InvalidArgumentError(StrCat("mesh axis '", axis.name, "' appears twice"));
    }
    if (axis.size < 1) {
      return absl::InvalidArgumentError(
          StrCat("mesh axis '", axis.name, "' has size ", axis.size, "; expected at least 1"));
    }
  }
  const int64_t count = device_count();
  if (count < 0) return absl::InvalidArgumentError("expected a mesh of at most 2^31 devices");
  std::vector<int64_t> ids;
  switch (order) {
    case DeviceOrder::kIota:
      return absl::OkStatus();
    case DeviceOrder::kList:
      ids = device_list;
      break;
    case DeviceOrder::kIotaForm: {
      std::vector<int64_t> sizes;
      for (const MeshAxis& axis : axes) sizes.push_back(axis.size);
      if (iota.dims != sizes) {
        return absl::InvalidArgumentError("expected the iota device order to have the mesh's shape");
      }
      absl::StatusOr<std::vector<int64_t>> expanded = iota.Expand();
      if (!expanded.ok()) return expanded.status();
      ids = *std::move(expanded);
      break;
    }
  }
  if (static_cast<int64_t>(ids.size()) != count) {
    return absl::InvalidArgumentError(StrCat("the mesh ", ToString(), " has ", count,
                                             " positions but ", ids.size(), " devices were given"));
  }
  absl::flat_hash_set<int64_t> seen;
  for (int64_t id : ids) {
    if (id < 0) return absl::InvalidArgumentError(StrCat("device id ", id, " is negative"));
    if (!seen.insert(id).second) {
      return absl::InvalidArgumentError(StrCat("device ", id, " appears twice in the mesh"));
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> Mesh::DeviceIds() const {
  switch (order) {
    case DeviceOrder::kList:
      return device_list;
    case DeviceOrder::kIotaForm:
      return iota.Expand().value_or(std::vector<int64_t>{});
    case DeviceOrder::kIota:
      break;
  }
  std::vector<int64_t> ids(static_cast<size_t>(std::max<int64_t>(device_count(), 0)));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

bool Mesh::IsIotaOrder() const {
  if (order == DeviceOrder::kIota) return true;
  const std::vector<int64_t> ids = DeviceIds();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::string Mesh::ToString() const {
  std::string out = absl::StrJoin(axes, ",", [](std::string* s, const MeshAxis& axis) {
    StrAppend(s, axis.name, "=", axis.size);
  });
  if (!IsIotaOrder()) StrAppend(&out, " devices=[", absl::StrJoin(DeviceIds(), ","), "]");
  return out;
}

}  // namespace memplan::ir
