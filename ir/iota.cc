#include "ir/iota.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_join.h"
#include "ir/strings.h"

namespace memplan::ir {
namespace {

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

}  // namespace

int64_t BoundedProduct(const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d != 0 && product > kMaxDevices / d) return -1;
    product *= d;
  }
  return product;
}

int64_t IotaDevices::device_count() const { return BoundedProduct(dims); }

absl::StatusOr<std::vector<int64_t>> IotaDevices::Expand() const {
  const int64_t count = BoundedProduct(dims);
  const int64_t reshaped = BoundedProduct(reshape_dims);
  if (count < 0 || reshaped < 0) {
    return absl::InvalidArgumentError("expected non-negative dimensions and at most 2^31 devices");
  }
  if (count != reshaped) {
    return absl::InvalidArgumentError(StrCat("expected the reshape dimensions to hold ", count,
                                             " devices, not ", reshaped));
  }
  std::vector<int64_t> perm = transpose_perm;
  if (perm.empty()) {
    perm.resize(reshape_dims.size());
    std::iota(perm.begin(), perm.end(), 0);
  }
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted.size() != reshape_dims.size() || sorted[i] != static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError(
          StrCat("expected T(...) to be a permutation of 0..", reshape_dims.size() - 1));
    }
  }
  // Row-major strides of the reshaped iota; the transposed array's axis k is
  // the reshaped axis perm[k].
  const size_t rank = reshape_dims.size();
  std::vector<int64_t> stride(rank, 1);
  for (size_t i = rank; i-- > 1;) stride[i - 1] = stride[i] * reshape_dims[i];
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(count));
  std::vector<int64_t> index(rank, 0);  // position in the transposed array
  for (int64_t n = 0; n < count; ++n) {
    int64_t device = 0;
    for (size_t k = 0; k < rank; ++k) device += index[k] * stride[perm[k]];
    out.push_back(device);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < reshape_dims[perm[k]]) break;
      index[k] = 0;
    }
  }
  return out;
}

std::string IotaDevices::ToString() const {
  std::string out = StrCat("[", absl::StrJoin(dims, ","), "]<=[", absl::StrJoin(reshape_dims, ","),
                           "]");
  if (!transpose_perm.empty() && !IsIdentity(transpose_perm)) {
    StrAppend(&out, "T(", absl::StrJoin(transpose_perm, ","), ")");
  }
  return out;
}

IotaDevices IotaDevices::Canonical() const {
  std::vector<int64_t> reshape = reshape_dims;
  std::vector<int64_t> perm = transpose_perm;
  if (perm.empty()) {
    perm.resize(reshape.size());
    std::iota(perm.begin(), perm.end(), 0);
  }
  while (true) {
    // Drop reshape axes of size 1, renumbering the permutation.
    std::vector<int64_t> new_index(reshape.size(), -1);
    std::vector<int64_t> kept_dims;
    for (size_t i = 0; i < reshape.size(); ++i) {
      if (reshape[i] == 1) continue;
      new_index[i] = static_cast<int64_t>(kept_dims.size());
      kept_dims.push_back(reshape[i]);
    }
    std::vector<int64_t> kept_perm;
    for (int64_t axis : perm) {
      if (new_index[axis] >= 0) kept_perm.push_back(new_index[axis]);
    }
    reshape = std::move(kept_dims);
    perm = std::move(kept_perm);
    // Merge each run of the permutation that reads consecutive reshape axes
    // (a, a+1, ...) into its first axis; the others become size 1 and are
    // dropped on the next round.
    bool changed = false;
    for (size_t i = 1, base = 0; i < perm.size(); ++i) {
      if (perm[base] + static_cast<int64_t>(i - base) == perm[i]) {
        reshape[perm[base]] *= reshape[perm[i]];
        reshape[perm[i]] = 1;
        changed = true;
      } else {
        base = i;
      }
    }
    if (!changed) break;
  }
  if (reshape.empty()) {
    reshape = {1};
    perm = {0};
  }
  return IotaDevices{dims, std::move(reshape), std::move(perm)};
}

}  // namespace memplan::ir
