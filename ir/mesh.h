// A logical device mesh, as JAX's Mesh, PyTorch's DeviceMesh and XLA's named
// shardings hold one: named axes with sizes, major to minor, and the device id
// at every mesh position.
#ifndef MEMPLAN_IR_MESH_H_
#define MEMPLAN_IR_MESH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/iota.h"

namespace memplan::ir {

struct MeshAxis {
  std::string name;
  int64_t size = 0;

  friend bool operator==(const MeshAxis&, const MeshAxis&) = default;
};

struct Mesh {
  // How the mesh's positions (row-major over the axes) map to device ids.
  enum class DeviceOrder {
    kIota,      // position i holds device i (the default)
    kList,      // position i holds device_list[i]
    kIotaForm,  // position i holds iota.Expand()[i] (XLA's "<=[4,2]T(1,0)")
  };

  std::vector<MeshAxis> axes;
  DeviceOrder order = DeviceOrder::kIota;
  std::vector<int64_t> device_list;  // kList
  IotaDevices iota;                  // kIotaForm; iota.dims are the axis sizes

  // Product of the axis sizes; -1 when a size is below 1 or the product
  // exceeds 2^31.
  int64_t device_count() const;

  // Index of the axis named `name`, if any.
  std::optional<size_t> AxisIndex(std::string_view name) const;

  // OK when the mesh is well formed: at least one axis, names non-empty and
  // distinct, sizes >= 1, at most 2^31 devices, and a device order that
  // holds device_count() distinct non-negative ids. InvalidArgument says
  // which rule broke.
  absl::Status Validate() const;

  // The device id at every position, row-major over the axes.
  // Precondition: Validate() is OK.
  std::vector<int64_t> DeviceIds() const;

  // Whether position i holds device i for every i.
  bool IsIotaOrder() const;

  // "x=4,y=1", with " devices=[0,2,1,3]" when the order is not the iota.
  std::string ToString() const;

  friend bool operator==(const Mesh&, const Mesh&) = default;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_MESH_H_
