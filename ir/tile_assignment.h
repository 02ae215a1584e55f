// The device array of a tiled HloSharding: an N-d array of device numbers
// whose shape says how many ways each dimension is split (plus trailing
// subgroup dimensions), held either as XLA's compact iota form
// ("devices=[4,2]<=[2,4]T(1,0)") or as an explicit list ("devices=[2,1]0,1").
// The numbers are positions in the program's device assignment (logical
// devices), not physical device ids.
#ifndef MEMPLAN_IR_TILE_ASSIGNMENT_H_
#define MEMPLAN_IR_TILE_ASSIGNMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/iota.h"

namespace memplan::ir {

struct TileAssignment {
  std::vector<int64_t> dims;
  // Set: the devices are iota->Expand() (iota->dims equals `dims`).
  std::optional<IotaDevices> iota;
  // Else: the devices in row-major order of `dims`.
  std::vector<int64_t> devices;

  // The iota form 0..product(dims)-1 in order: XLA's TileAssignment(dims).
  static TileAssignment Iota(std::vector<int64_t> dims);
  // XLA's TileAssignment(dims, reshape_dims, perm), canonicalized as XLA does.
  static TileAssignment Iota(std::vector<int64_t> dims, std::vector<int64_t> reshape_dims,
                             std::vector<int64_t> perm);
  static TileAssignment Explicit(std::vector<int64_t> dims, std::vector<int64_t> devices);

  // Product of `dims`; -1 when a dimension is negative or the product exceeds
  // 2^31.
  int64_t device_count() const;

  // The devices in row-major order. InvalidArgument when the form is
  // inconsistent: an explicit list whose length is not product(dims), an
  // iota whose dims differ from `dims` or that does not expand.
  absl::StatusOr<std::vector<int64_t>> Devices() const;

  // The same devices viewed with `new_dims` (same product): XLA's
  // TileAssignment::Reshape. Precondition: device_count() matches.
  TileAssignment Reshaped(std::vector<int64_t> new_dims) const;

  // Axis k of the result is axis perm[k] of this array: XLA's
  // TileAssignment::Transpose (stays an iota where XLA's does).
  // Precondition: Devices() succeeds and perm permutes 0..dims.size()-1.
  TileAssignment Transposed(const std::vector<int64_t>& perm) const;

  // "devices=[4,1]<=[4]", "devices=[2,2]<=[2,2]T(1,0)", "devices=[2,1]0,1".
  std::string ToString() const;

  friend bool operator==(const TileAssignment&, const TileAssignment&) = default;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_TILE_ASSIGNMENT_H_
