#include "ir/tile_assignment.h"

#include <numeric>
#include <utility>

#include "absl/strings/str_join.h"
#include "ir/strings.h"

namespace memplan::ir {
namespace {

enum class TransposeKind { kNoop, kReshape, kTranspose };

// Whether transposing an array of shape `dims` by `perm` changes the
// row-major order of its elements (kTranspose), only moves axes of size 1
// (kReshape), or nothing at all (kNoop).
TransposeKind KindOfTranspose(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  TransposeKind kind = TransposeKind::kNoop;
  int64_t previous_non_one = -1;
  for (size_t i = 0; i < perm.size(); ++i) {
    const int64_t axis = perm[i];
    if (dims[axis] == 1) {
      if (axis != static_cast<int64_t>(i) && dims[i] != 1) kind = TransposeKind::kReshape;
      continue;
    }
    if (axis <= previous_non_one) return TransposeKind::kTranspose;
    previous_non_one = axis;
  }
  return kind;
}

// The iota form of `iota` transposed by `perm`, where one exists
// (IotaTileAssignment::Transpose); nullopt where XLA falls back to an
// explicit array.
std::optional<IotaDevices> TransposeIota(const IotaDevices& iota, const std::vector<int64_t>& perm) {
  const std::vector<int64_t>& dims = iota.dims;
  const TransposeKind kind = KindOfTranspose(dims, perm);
  if (kind == TransposeKind::kNoop) return iota;
  std::vector<int64_t> new_dims(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) new_dims[i] = dims[perm[i]];
  if (kind == TransposeKind::kReshape) {
    return IotaDevices{new_dims, iota.reshape_dims, iota.transpose_perm}.Canonical();
  }
  if (iota.reshape_dims.size() == 1) {
    return IotaDevices{new_dims, dims, perm}.Canonical();
  }
  // A pure transpose: the non-1 axes of `dims` are exactly the transposed
  // reshape axes, one for one.
  std::vector<int64_t> iota_perm = iota.transpose_perm;
  if (iota_perm.empty()) {
    iota_perm.resize(iota.reshape_dims.size());
    std::iota(iota_perm.begin(), iota_perm.end(), 0);
  }
  std::vector<int64_t> non_one_index(dims.size(), -1);
  size_t non_one = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    if (non_one >= iota.reshape_dims.size() ||
        iota.reshape_dims[iota_perm[non_one]] != dims[i]) {
      return std::nullopt;
    }
    non_one_index[i] = static_cast<int64_t>(non_one++);
  }
  if (non_one != iota.reshape_dims.size()) return std::nullopt;
  std::vector<int64_t> new_perm;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[perm[i]] == 1) continue;
    new_perm.push_back(iota_perm[non_one_index[perm[i]]]);
  }
  return IotaDevices{new_dims, iota.reshape_dims, new_perm}.Canonical();
}

}  // namespace

TileAssignment TileAssignment::Iota(std::vector<int64_t> dims) {
  const int64_t count = BoundedProduct(dims);
  TileAssignment out;
  out.iota = IotaDevices{dims, {count < 0 ? 0 : count}, {0}};
  out.dims = std::move(dims);
  return out;
}

TileAssignment TileAssignment::Iota(std::vector<int64_t> dims, std::vector<int64_t> reshape_dims,
                                    std::vector<int64_t> perm) {
  TileAssignment out;
  out.iota = IotaDevices{dims, std::move(reshape_dims), std::move(perm)}.Canonical();
  out.dims = std::move(dims);
  return out;
}

TileAssignment TileAssignment::Explicit(std::vector<int64_t> dims, std::vector<int64_t> devices) {
  TileAssignment out;
  out.dims = std::move(dims);
  out.devices = std::move(devices);
  return out;
}

int64_t TileAssignment::device_count() const { return BoundedProduct(dims); }

absl::StatusOr<std::vector<int64_t>> TileAssignment::Devices() const {
  const int64_t count = device_count();
  if (count < 0) {
    return absl::InvalidArgumentError("expected non-negative tile dimensions and at most 2^31 tiles");
  }
  if (iota) {
    if (iota->dims != dims) {
      return absl::InvalidArgumentError("expected the iota's dimensions to be the tile dimensions");
    }
    return iota->Expand();
  }
  if (static_cast<int64_t>(devices.size()) != count) {
    return absl::InvalidArgumentError(StrCat("expected ", count, " devices for tile dimensions [",
                                             absl::StrJoin(dims, ","), "], not ", devices.size()));
  }
  return devices;
}

TileAssignment TileAssignment::Reshaped(std::vector<int64_t> new_dims) const {
  TileAssignment out = *this;
  if (out.iota) out.iota->dims = new_dims;
  out.dims = std::move(new_dims);
  return out;
}

TileAssignment TileAssignment::Transposed(const std::vector<int64_t>& perm) const {
  if (KindOfTranspose(dims, perm) == TransposeKind::kNoop) return *this;
  if (iota) {
    if (std::optional<IotaDevices> transposed = TransposeIota(*iota, perm)) {
      TileAssignment out;
      out.dims = transposed->dims;
      out.iota = std::move(*transposed);
      return out;
    }
  }
  const std::vector<int64_t> flat = Devices().value_or(std::vector<int64_t>{});
  const size_t rank = dims.size();
  std::vector<int64_t> stride(rank, 1);
  for (size_t i = rank; i-- > 1;) stride[i - 1] = stride[i] * dims[i];
  std::vector<int64_t> new_dims(rank);
  for (size_t k = 0; k < rank; ++k) new_dims[k] = dims[perm[k]];
  std::vector<int64_t> out_devices;
  out_devices.reserve(flat.size());
  std::vector<int64_t> index(rank, 0);
  for (size_t n = 0; n < flat.size(); ++n) {
    int64_t source = 0;
    for (size_t k = 0; k < rank; ++k) source += index[k] * stride[perm[k]];
    out_devices.push_back(flat[source]);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < new_dims[k]) break;
      index[k] = 0;
    }
  }
  return Explicit(std::move(new_dims), std::move(out_devices));
}

std::string TileAssignment::ToString() const {
  if (iota) {
    // XLA prints T(..) whenever there is more than one reshape dimension.
    std::string out = StrCat("devices=[", absl::StrJoin(dims, ","), "]<=[",
                             absl::StrJoin(iota->reshape_dims, ","), "]");
    if (iota->reshape_dims.size() > 1) {
      std::vector<int64_t> perm = iota->transpose_perm;
      if (perm.empty()) {
        perm.resize(iota->reshape_dims.size());
        std::iota(perm.begin(), perm.end(), 0);
      }
      StrAppend(&out, "T(", absl::StrJoin(perm, ","), ")");
    }
    return out;
  }
  return StrCat("devices=[", absl::StrJoin(dims, ","), "]", absl::StrJoin(devices, ","));
}

}  // namespace memplan::ir
