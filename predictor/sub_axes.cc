#include "predictor/sub_axes.h"

#include <algorithm>

namespace memplan::predictor {

SubAxes FactorMesh(const MeshSizes& plan,
                   const std::vector<std::pair<size_t, int64_t>>& wanted) {
  SubAxes sub;
  for (size_t a = 0; a < plan.sizes.size(); ++a) {
    const int64_t n = plan.sizes[a];
    int64_t best = 1;
    for (const auto& [axis, g] : wanted) {
      if (axis == a && g > 1 && g < n && n % g == 0) best = std::max(best, g);
    }
    if (best > 1) {
      sub.mesh.sizes.push_back(best);
      sub.parent.push_back(a);
      sub.mesh.sizes.push_back(n / best);
      sub.identity = false;
    } else {
      sub.mesh.sizes.push_back(n);
    }
    sub.parent.push_back(a);
  }
  // At most 32 axes in a mask: past that, propagate on the plan's axes.
  if (sub.mesh.sizes.size() > 32) {
    sub = SubAxes{};
    sub.mesh = plan;
    for (size_t a = 0; a < plan.sizes.size(); ++a) sub.parent.push_back(a);
  }
  return sub;
}

AxisMask SubAxes::Split(AxisMask plan_axes) const {
  if (identity) return plan_axes;
  AxisMask out = 0;
  for (size_t k = 0; k < parent.size(); ++k) {
    if (plan_axes & (AxisMask{1} << parent[k])) out |= AxisMask{1} << k;
  }
  return out;
}

AxisMask SubAxes::Merge(AxisMask axes) const {
  if (identity) return axes;
  AxisMask out = 0;
  for (size_t k = 0; k < parent.size(); ++k) {
    if (axes & (AxisMask{1} << k)) out |= AxisMask{1} << parent[k];
  }
  return out;
}

AxesSharding SubAxes::Split(const AxesSharding& plan_sharding) const {
  if (identity) return plan_sharding;
  AxesSharding out = plan_sharding;
  for (AxisMask& m : out.dims) m = Split(m);
  out.partial = Split(out.partial);
  return out;
}

AxesSharding SubAxes::Merge(const AxesSharding& sharding) const {
  if (identity) return sharding;
  AxesSharding out = sharding;
  for (AxisMask& m : out.dims) m = Merge(m);
  out.partial = Merge(out.partial);
  return out;
}

}  // namespace memplan::predictor
