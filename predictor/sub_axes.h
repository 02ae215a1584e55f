// Mesh axes split into sub-axes where a reshape needs part of an axis.
// XLA shards a reshape's split dimension by the largest part of an axis
// that divides it (768 split 8 ways, reshaped to 12 x 64 heads, keeps 4
// ways on the heads and all-gathers pairs: samples/sharded/transformer_fwd
// tp8's all-gathers over groups [4,2]<=[8]). Prediction expresses that by
// propagating over a mesh whose axis of 8 is two axes 4 x 2 (major first,
// so device order is unchanged) and reading the results back on the
// plan's axes. Propagation runs once on the plan's axes; only the axes a
// reshape all-gathered where part of them divided (Propagation::
// wanted_sub_axes) are split, and propagation runs again.
#ifndef MEMPLAN_PREDICTOR_SUB_AXES_H_
#define MEMPLAN_PREDICTOR_SUB_AXES_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "predictor/axes_sharding.h"

namespace memplan::predictor {

struct SubAxes {
  MeshSizes mesh;              // the sizes propagation works on
  std::vector<size_t> parent;  // per axis of `mesh`, the plan's axis it is part of
  bool identity = true;        // no axis split: `mesh` is the plan's

  // Plan axes to every sub-axis of them.
  AxisMask Split(AxisMask plan_axes) const;
  AxesSharding Split(const AxesSharding& plan_sharding) const;
  // Sub-axes to the plan axes they are part of: a part reads as its whole
  // axis (bytes are computed before; collective axes and instruction
  // splits name the axis whose part they use).
  AxisMask Merge(AxisMask axes) const;
  AxesSharding Merge(const AxesSharding& sharding) const;
};

// Splits each axis of `plan` named in `wanted` (axis, ways) into (g, n / g),
// g the largest ways wanted for it (a proper divisor of its size n).
SubAxes FactorMesh(const MeshSizes& plan, const std::vector<std::pair<size_t, int64_t>>& wanted);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_SUB_AXES_H_
