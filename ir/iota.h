// XLA's compact "iota" form of a device list, shared by tile assignments
// (HloSharding "<=[4,2]T(1,0)") and replica groups ("[2,4]<=[8]",
// "[4,2]<=[2,4]T(1,0)"): the devices 0..N-1 in order, reshaped to
// `reshape_dims`, transposed by `transpose_perm`, then read out in row-major
// order and viewed with shape `dims`.
#ifndef MEMPLAN_IR_IOTA_H_
#define MEMPLAN_IR_IOTA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace memplan::ir {

// The most devices a mesh, tile assignment or device list may name.
inline constexpr int64_t kMaxDevices = int64_t{1} << 31;

// Product of `dims`, or -1 when a dimension is negative or the product
// exceeds kMaxDevices.
int64_t BoundedProduct(const std::vector<int64_t>& dims);

struct IotaDevices {
  std::vector<int64_t> dims;           // the shape the devices are viewed as
  std::vector<int64_t> reshape_dims;   // product equals product(dims)
  std::vector<int64_t> transpose_perm; // a permutation of 0..reshape_dims-1;
                                       // empty means the identity

  // Product of `dims`.
  int64_t device_count() const;

  // The device ids in row-major order of `dims`. InvalidArgument when the
  // form is inconsistent (products differ, perm is not a permutation of
  // reshape_dims' axes, a dimension is negative, or more than 2^31 devices).
  absl::StatusOr<std::vector<int64_t>> Expand() const;

  // As XLA prints it after "devices=" or in replica_groups: "[4,2]<=[8]",
  // "[2,4]<=[4,2]T(1,0)" (T(..) only when the perm is not the identity).
  std::string ToString() const;

  // The same device list in XLA's canonical form (IotaTileAssignment::Create):
  // reshape dimensions of size 1 dropped, runs of consecutive axes in the
  // permutation merged into one, an identity permutation collapsed to one
  // reshape dimension (`<=[4,2]T(0,1)` becomes `<=[8]`), and no dimensions at
  // all to `<=[1]`. `dims` is kept. Precondition: the perm is empty or a
  // permutation of the reshape axes (Expand() succeeds).
  IotaDevices Canonical() const;

  friend bool operator==(const IotaDevices&, const IotaDevices&) = default;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_IOTA_H_
