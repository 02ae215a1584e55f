// JAX's PartitionSpec and NamedSharding, and the HloSharding JAX lowers them
// to (jax._src.named_sharding.named_sharding_to_xla_hlo_sharding).
#ifndef MEMPLAN_IR_PARTITION_SPEC_H_
#define MEMPLAN_IR_PARTITION_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/mesh.h"
#include "ir/sharding.h"

namespace memplan::ir {

// One entry of a PartitionSpec: None, a mesh axis name, a tuple of them
// (major to minor), or UNCONSTRAINED.
struct SpecDim {
  enum class Kind { kNone, kAxes, kUnconstrained };
  Kind kind = Kind::kNone;
  std::vector<std::string> axes;  // kAxes; one name for 'x', several for ('x', 'y')
  bool tuple = false;             // written as a tuple (even of one name)

  friend bool operator==(const SpecDim&, const SpecDim&) = default;
};

struct PartitionSpec {
  std::vector<SpecDim> dims;  // may be shorter than the array's rank
  std::vector<std::string> unreduced;  // P(..., unreduced={'y'})
  std::vector<std::string> reduced;    // P(..., reduced={'y'})

  // "P('x', None)", as jax 0.10 prints it.
  std::string ToString() const;

  friend bool operator==(const PartitionSpec&, const PartitionSpec&) = default;
};

enum class AxisType { kAuto, kExplicit, kManual };

// jax.sharding.NamedSharding: a mesh (with its axis types), a spec and where
// the array lives.
struct JaxNamedSharding {
  Mesh mesh;
  std::vector<AxisType> axis_types;  // empty: all Auto
  PartitionSpec spec;
  std::string memory_kind;  // "", "device", "pinned_host", ...
  // NamedSharding(..., logical_device_ids=...): a permutation of the
  // mesh's positions; empty when not given.
  std::vector<int64_t> logical_device_ids;
};

// Checks `spec` against `mesh` and an array of `rank` dimensions, as JAX
// does before lowering: InvalidArgument naming the problem when an axis is
// not in the mesh, an axis is used twice (in the spec or its unreduced set),
// or the spec has more entries than the array has dimensions.
absl::Status ValidatePartitionSpec(const Mesh& mesh, const PartitionSpec& spec, int64_t rank);

// The HloSharding JAX gives an array of `rank` dimensions with this sharding
// (NamedSharding._to_xla_hlo_sharding): size-1 mesh axes dropped, sharded
// axes in spec order then unused axes as a replicated subgroup (manual and
// unreduced axes as their own subgroups), as an iota tile assignment over
// the mesh's positions. Device numbers are positions in the mesh's device
// list, as JAX's device assignment is the mesh's flattened devices.
absl::StatusOr<HloSharding> PartitionSpecToHloSharding(const JaxNamedSharding& sharding, int64_t rank);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_PARTITION_SPEC_H_
