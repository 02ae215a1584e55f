#include "ir/alpa_stage_profile.h"

namespace memplan::ir {

std::vector<int64_t> OpShardingProto::ShardDims(const std::vector<int64_t>& dims) const {
  if (type != 3 || tile_assignment_dimensions.empty()) return dims;  // not tiled
  std::vector<int64_t> out = dims;
  for (size_t i = 0; i < out.size() && i < tile_assignment_dimensions.size(); ++i) {
    const int64_t tiles = tile_assignment_dimensions[i];
    if (tiles > 1 && out[i] >= 0) out[i] = (out[i] + tiles - 1) / tiles;
  }
  return out;
}

}  // namespace memplan::ir
