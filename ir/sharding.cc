#include "ir/sharding.h"

#include <utility>

#include "absl/strings/str_join.h"
#include "ir/strings.h"

namespace memplan::ir {
namespace {

std::string AxisRefToString(const NamedSharding& named, const AxisRef& axis) {
  std::string out = "'";
  if (axis.mesh_axis >= 0 && axis.mesh_axis < static_cast<int64_t>(named.mesh.axes.size())) {
    StrAppend(&out, named.mesh.axes[axis.mesh_axis].name);
  } else {
    StrAppend(&out, axis.mesh_axis);
  }
  StrAppend(&out, "'");
  if (axis.pre_size) StrAppend(&out, ":(", *axis.pre_size, ")", axis.sub_size);
  return out;
}

std::string AxisListToString(const NamedSharding& named, const std::vector<AxisRef>& axes) {
  return absl::StrJoin(axes, ", ", [&](std::string* out, const AxisRef& axis) {
    StrAppend(out, AxisRefToString(named, axis));
  });
}

std::string MetadataToString(const std::vector<std::string>& metadata) {
  if (metadata.empty()) return "";
  // One metadata is printed bare, unless its text starts with '{' and would
  // read back as a list.
  const size_t first = metadata.front().find_first_not_of(' ');
  const bool looks_like_list = first != std::string::npos && metadata.front()[first] == '{';
  if (metadata.size() == 1 && !looks_like_list) return StrCat(" metadata={", metadata.front(), "}");
  return StrCat(" metadata={", absl::StrJoin(metadata, ", ", [](std::string* out, const std::string& m) {
                  StrAppend(out, "{", m, "}");
                }),
                "}");
}

}  // namespace

std::string_view SubgroupTypeName(OpShardingType type) {
  switch (type) {
    case OpShardingType::kReplicated:
      return "replicated";
    case OpShardingType::kManual:
      return "manual";
    case OpShardingType::kUnreduced:
      return "unreduced";
    case OpShardingType::kMaximal:
      return "maximal";
    default:
      return "";
  }
}

int64_t NamedSharding::AxisSize(const AxisRef& axis) const {
  if (axis.pre_size) return axis.sub_size;
  if (axis.mesh_axis < 0 || axis.mesh_axis >= static_cast<int64_t>(mesh.axes.size())) return 0;
  return mesh.axes[axis.mesh_axis].size;
}

std::string NamedSharding::ToString() const {
  if (form == Form::kMaximal) return StrCat("{maximal_mesh[device_id=", maximal_device, "]}");
  std::string out = "{mesh[";
  StrAppend(&out, absl::StrJoin(mesh.axes, ",", [](std::string* s, const MeshAxis& axis) {
              StrAppend(s, "'", axis.name, "'=", axis.size);
            }),
            "]");
  if (!mesh.IsIotaOrder()) {
    if (mesh.order == Mesh::DeviceOrder::kIotaForm) {
      std::string perm = absl::StrJoin(mesh.iota.transpose_perm, ",");
      StrAppend(&out, ", device_ids=([", absl::StrJoin(mesh.iota.reshape_dims, ","), "]T(", perm, "))");
    } else {
      StrAppend(&out, ", device_ids=(", absl::StrJoin(mesh.DeviceIds(), ","), ")");
    }
  }
  switch (form) {
    case Form::kReplicated:
      return StrCat(out, ", replicated}");
    case Form::kUnreduced:
      return StrCat(out, ", unreduced}");
    case Form::kManual:
      return StrCat(out, ", manual}");
    default:
      break;
  }
  StrAppend(&out, ", [", absl::StrJoin(dims, ", ", [&](std::string* s, const DimSharding& dim) {
              StrAppend(s, "{", AxisListToString(*this, dim.axes));
              if (!dim.closed) StrAppend(s, dim.axes.empty() ? "?" : ", ?");
              StrAppend(s, "}");
            }),
            "]");
  if (!replicated_axes.empty()) StrAppend(&out, ", replicated={", AxisListToString(*this, replicated_axes), "}");
  if (!unreduced_axes.empty()) StrAppend(&out, ", unreduced={", AxisListToString(*this, unreduced_axes), "}");
  if (!manual_axes.empty()) StrAppend(&out, ", manual={", AxisListToString(*this, manual_axes), "}");
  return StrCat(out, "}");
}

HloSharding HloSharding::Maximal(int64_t device) {
  HloSharding out;
  out.kind = Kind::kMaximal;
  out.maximal_device = device;
  return out;
}

HloSharding HloSharding::Tiled(TileAssignment tiles, bool replicate_on_last_tile_dim,
                               std::vector<OpShardingType> last_tile_dims) {
  HloSharding out;
  out.kind = Kind::kTiled;
  out.tiles = std::move(tiles);
  out.replicate_on_last_tile_dim = replicate_on_last_tile_dim;
  out.last_tile_dims = std::move(last_tile_dims);
  return out;
}

int64_t HloSharding::TiledDataRank() const {
  int64_t rank = static_cast<int64_t>(tiles.dims.size());
  if (replicate_on_last_tile_dim) --rank;
  rank -= static_cast<int64_t>(last_tile_dims.size());
  return rank;
}

std::string HloSharding::ToString(bool include_metadata) const {
  if (kind == Kind::kTuple) {
    std::string out = "{";
    for (size_t i = 0; i < tuple_elements.size(); ++i) {
      if (i > 0) StrAppend(&out, i % 5 == 0 ? StrCat(", /*index=", i, "*/") : std::string(", "));
      StrAppend(&out, tuple_elements[i].ToString(include_metadata));
    }
    return StrCat(out, "}");
  }
  if (kind == Kind::kNamed && named) return named->ToString();
  std::string suffix;
  if (shard_group) StrAppend(&suffix, shard_group->shard_as ? " shard_as " : " shard_like ", shard_group->id);
  if (include_metadata) StrAppend(&suffix, MetadataToString(metadata));
  switch (kind) {
    case Kind::kReplicated:
      return StrCat("{replicated", suffix, "}");
    case Kind::kManual:
      return StrCat("{manual", suffix, "}");
    case Kind::kUnknown:
      return StrCat("{unknown", suffix, "}");
    case Kind::kUnreduced:
      return StrCat("{unreduced", suffix, "}");
    case Kind::kMaximal:
      return StrCat("{maximal device=", maximal_device, suffix, "}");
    default:
      break;
  }
  std::string out = StrCat("{", tiles.ToString());
  if (replicate_on_last_tile_dim) StrAppend(&out, " last_tile_dim_replicate");
  if (!last_tile_dims.empty()) {
    StrAppend(&out, " last_tile_dims={",
              absl::StrJoin(last_tile_dims, ", ", [](std::string* s, OpShardingType type) {
                const std::string_view name = SubgroupTypeName(type);
                StrAppend(s, name.empty() ? std::string_view("error_type.") : name);
              }),
              "}");
  }
  return StrCat(out, suffix, "}");
}

}  // namespace memplan::ir
