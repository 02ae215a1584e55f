// A sharding as prediction reasons about it: for every dimension of an
// array, the set of mesh axes that split it, and the set of mesh axes over
// which the array is a partial sum still to be reduced (the result of a dot
// or reduce whose contracted dimension is sharded). Sizes follow XLA's
// semantics: a dimension of N split d ways gives every device ceil(N/d)
// (the last shards padded), so every device of a mesh holds a buffer of the
// same size.
#ifndef MEMPLAN_PREDICTOR_AXES_SHARDING_H_
#define MEMPLAN_PREDICTOR_AXES_SHARDING_H_

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "ir/mesh.h"
#include "ir/shape.h"
#include "ir/sharding.h"

namespace memplan::predictor {

// Bit k: mesh axis k. A mesh has at most 32 axes here.
using AxisMask = uint32_t;

struct AxesSharding {
  // Empty: replicated (of any rank). Inline up to rank 6: a program's
  // propagation and every candidate's arguments hold one per leaf, and a
  // heap block each was a large part of their cost.
  absl::InlinedVector<AxisMask, 6> dims;
  AxisMask partial = 0;        // axes over which the value is a partial sum

  bool IsReplicated() const;
  // Axes used by any dimension.
  AxisMask UsedAxes() const;
  // The axes splitting dimension `d` (0 for a dimension beyond dims).
  AxisMask Dim(size_t d) const { return d < dims.size() ? dims[d] : 0; }
  // Drops trailing empty entries so that equal shardings compare equal.
  void Normalize();

  friend bool operator==(const AxesSharding&, const AxesSharding&) = default;
};

// The mesh's axis sizes, for byte arithmetic.
struct MeshSizes {
  std::vector<int64_t> sizes;
  // Product of the sizes of the axes in `mask`.
  int64_t Ways(AxisMask mask) const;
  int64_t device_count() const { return Ways(AllAxes()); }
  AxisMask AllAxes() const {
    return sizes.size() >= 32 ? ~AxisMask{0} : ((AxisMask{1} << sizes.size()) - 1);
  }
};

// Bytes one device holds of an array of `shape` under `sharding`: the
// product over dimensions of ceil(N / ways) times the element size (XLA's
// padded shard). A non-array shape gives ByteSizeOf(shape).
int64_t ShardBytes(const ir::Shape& shape, const AxesSharding& sharding, const MeshSizes& mesh);

// The local dimensions of `shape` under `sharding` (ceil(N / ways) each).
std::vector<int64_t> ShardDims(const ir::Shape& shape, const AxesSharding& sharding,
                               const MeshSizes& mesh);

// Reads an HloSharding over `mesh`'s devices as mesh axes: each tiled data
// dimension must be split by whole mesh axes (the devices along it vary in
// exactly those axes, whose sizes multiply to the tile count). Replicated
// gives no axes; maximal and manual are refused. `rank` is the array's rank.
// InvalidArgument when the sharding is not expressible that way (a
// sub-axis, a device order no axis set explains, a rank mismatch).
absl::StatusOr<AxesSharding> AxesFromHloSharding(const ir::HloSharding& sharding,
                                                 const ir::Mesh& mesh, int64_t rank);

// "[{dp}, {}]" style text of the mask per dim: "[dp, tp]", "[(dp,tp), null]",
// " partial(dp)" appended when partial; for tests, errors and the list of
// buffers live at the peak.
std::string AxesShardingToString(const AxesSharding& sharding, const ir::Mesh& mesh);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_AXES_SHARDING_H_
