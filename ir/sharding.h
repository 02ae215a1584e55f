// XLA's HloSharding: how an HLO value is laid out over the devices of an
// SPMD program, in every form XLA prints and reads (xla/hlo/ir/hlo_sharding.h
// for the facts, docs/shardings.md for the meaning):
//
//   {replicated} {manual} {unknown} {unreduced} {maximal device=3}
//   {devices=[4,1]<=[4]}  {devices=[2,1]0,1}  {devices=[2,2]<=[2,2]T(1,0)}
//   {devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}
//   {devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}
//   {{replicated}, {devices=[2]0,1}, ..., /*index=5*/{...}}      (tuples)
//   {replicated shard_as 1 metadata={op_name="f"}}
//   {mesh['x'=2,'y'=2], [{'x'}, {}], replicated={'y'}}            (named mesh)
//
// Device numbers in a tile assignment are positions in the program's device
// assignment (logical devices); a Mesh maps them to device ids.
#ifndef MEMPLAN_IR_SHARDING_H_
#define MEMPLAN_IR_SHARDING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/mesh.h"
#include "ir/tile_assignment.h"

namespace memplan::ir {

// OpSharding.Type, with XLA's enum numbers (xla_data.proto).
enum class OpShardingType : int32_t {
  kReplicated = 0,
  kMaximal = 1,
  kTuple = 2,
  kOther = 3,
  kManual = 4,
  kUnknown = 5,
  kUnreduced = 6,
};

// How XLA spells a subgroup type in last_tile_dims={...}: "replicated",
// "manual", "unreduced", "maximal"; "" for types that are not subgroup types.
std::string_view SubgroupTypeName(OpShardingType type);

// A mesh axis, or a part of one, as XLA's named shardings refer to it:
// "x", or "x:(2)4" for the sub-axis of size 4 whose pre-size (product of the
// sub-axes before it, major to minor) is 2.
struct AxisRef {
  int64_t mesh_axis = 0;
  std::optional<int64_t> pre_size;  // set: a sub-axis
  int64_t sub_size = 0;             // its size when pre_size is set

  friend bool operator==(const AxisRef&, const AxisRef&) = default;
};

// XLA's NamedSharding (the "V3" form XLA prints as "{mesh[..], [..]}").
struct NamedSharding {
  struct DimSharding {
    std::vector<AxisRef> axes;  // major to minor
    bool closed = true;         // false: "?" (may be sharded further)
    friend bool operator==(const DimSharding&, const DimSharding&) = default;
  };
  enum class Form { kTiled, kReplicated, kUnreduced, kManual, kMaximal };

  Form form = Form::kTiled;
  Mesh mesh;                       // empty axes for a maximal mesh
  int64_t maximal_device = 0;      // kMaximal: "maximal_mesh[device_id=N]"
  std::vector<DimSharding> dims;   // kTiled
  std::vector<AxisRef> replicated_axes;
  std::vector<AxisRef> unreduced_axes;
  std::vector<AxisRef> manual_axes;

  // Size of `axis` in `mesh` (the sub-axis size for a sub-axis).
  int64_t AxisSize(const AxisRef& axis) const;
  // "{mesh['x'=2,'y'=2], [{'x'}, {}]}" as jaxlib 0.10's XLA prints it
  // (without metadata).
  std::string ToString() const;

  friend bool operator==(const NamedSharding&, const NamedSharding&) = default;
};

struct HloSharding {
  enum class Kind { kReplicated, kManual, kUnknown, kUnreduced, kMaximal, kTiled, kTuple, kNamed };

  Kind kind = Kind::kReplicated;
  int64_t maximal_device = 0;          // kMaximal
  TileAssignment tiles;                // kTiled
  bool replicate_on_last_tile_dim = false;
  std::vector<OpShardingType> last_tile_dims;  // subgroup types of the trailing dims
  std::vector<HloSharding> tuple_elements;     // kTuple (flattened leaves)
  std::optional<NamedSharding> named;          // kNamed
  // "shard_as N" / "shard_like N".
  struct ShardGroup {
    bool shard_as = true;  // false: shard_like
    int64_t id = 0;
    friend bool operator==(const ShardGroup&, const ShardGroup&) = default;
  };
  std::optional<ShardGroup> shard_group;
  // Each OpMetadata as the text between its braces, kept as read.
  std::vector<std::string> metadata;

  static HloSharding Replicated() { return HloSharding{}; }
  static HloSharding Maximal(int64_t device);
  static HloSharding Tiled(TileAssignment tiles, bool replicate_on_last_tile_dim = false,
                           std::vector<OpShardingType> last_tile_dims = {});

  // Rank of the data the tiles split: tile dims less the trailing subgroup
  // dims (kTiled only).
  int64_t TiledDataRank() const;

  // As XLA prints it (HloSharding::ToString), with metadata when asked.
  std::string ToString(bool include_metadata = false) const;

  friend bool operator==(const HloSharding&, const HloSharding&) = default;
};

// What XLA's HloSharding::FromProto makes of a sharding as written: tiled
// shardings normalized (an iota tile assignment canonicalized, a partially
// replicated tile sorted within each group, subgroup dims of size 1 dropped
// and those of one type merged, manual and replicated subgroups ordered, a
// sharding that tiles nothing turned into {replicated}/{manual}/{unreduced}),
// named shardings turned into tiled ones (V3ToV2), tuples element by element.
// Metadata and shard groups are kept. InvalidArgument when the sharding is
// inconsistent: a device list that does not fill the tile dims, a device
// number outside [0, count), a device used twice, more subgroup dims than
// tile dims, a bad named sharding.
absl::StatusOr<HloSharding> CanonicalHloSharding(const HloSharding& sharding);

// XLA's HloSharding::PartialTile and Subgroup (the constructors JAX's
// HloSharding.iota_tile reaches): the canonical sharding of `tiles` whose
// last dims are subgroups of `types`. Precondition: tiles.Devices() succeeds
// and types.size() <= tiles.dims.size().
HloSharding PartialTileSharding(const TileAssignment& tiles);
HloSharding SubgroupSharding(const TileAssignment& tiles, const std::vector<OpShardingType>& types);

// XLA's HloSharding::V3ToV2Sharding: the tiled HloSharding a named sharding
// means. InvalidArgument on an axis index outside the mesh, a sub-axis that
// does not divide its axis, or an axis used twice.
absl::StatusOr<HloSharding> NamedToTiled(const NamedSharding& named);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_SHARDING_H_
