// The device groups a collective over some mesh axes runs in, and whether
// they cross nodes. The mesh's devices are 0..N-1 in row-major order of the
// axis sizes (major to minor), as jax.make_mesh and XLA's iota device lists
// lay them out; node k holds devices [k*G, (k+1)*G) for G GPUs per node.
#ifndef MEMPLAN_SIMULATOR_MESH_GROUPS_H_
#define MEMPLAN_SIMULATOR_MESH_GROUPS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "simulator/collective_cost.h"

namespace memplan::simulator {

struct MeshGroups {
  // One group per combination of the other axes' indices, ordered by their
  // first device; inside a group, devices in row-major order of `axes` as
  // given.
  std::vector<std::vector<int64_t>> groups;
  int64_t group_size = 0;
  bool crosses_nodes = false;  // some group spans more than one node
  // Where the groups sit; all groups of a mesh axis set share it when
  // `same_placement` (always, for iota meshes whose node size divides the
  // mesh evenly).
  GroupPlacement placement;
  bool same_placement = true;
};

// `mesh_shape`: axis sizes, major to minor, each >= 1, product <= 2^31.
// `axes`: distinct indices into mesh_shape (may be empty: groups of one).
// InvalidArgument on a bad shape or axis list.
absl::StatusOr<MeshGroups> CollectiveGroups(std::span<const int64_t> mesh_shape,
                                            std::span<const int> axes, int64_t gpus_per_node);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_MESH_GROUPS_H_
