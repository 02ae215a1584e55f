#include "parsers/op_sharding.h"

#include <utility>
#include <vector>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/proto/op_sharding.pb.h"
#include "parsers/sharding_limits.h"

namespace memplan::parsers {
namespace {

namespace pb = memplan::xla_subset;
using ir::HloSharding;
using ir::OpShardingType;

constexpr int kMaxTupleDepth = 1;

std::string Escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// OpMetadataToString's form for the fields we keep.
std::string MetadataText(const pb::OpSharding::Metadata& m) {
  std::vector<std::string> parts;
  if (!m.op_type().empty()) parts.push_back(StrCat("op_type=\"", Escaped(m.op_type()), "\""));
  if (!m.op_name().empty()) parts.push_back(StrCat("op_name=\"", Escaped(m.op_name()), "\""));
  if (!m.source_file().empty()) parts.push_back(StrCat("source_file=\"", Escaped(m.source_file()), "\""));
  if (m.source_line() != 0) parts.push_back(StrCat("source_line=", m.source_line()));
  if (m.stack_frame_id() != 0) parts.push_back(StrCat("stack_frame_id=", m.stack_frame_id()));
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) StrAppend(&out, i ? " " : "", parts[i]);
  return out;
}

// The reverse: key="value" and key=number pairs.
pb::OpSharding::Metadata MetadataFromText(std::string_view text) {
  pb::OpSharding::Metadata m;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    const size_t eq = text.find('=', i);
    if (eq == std::string_view::npos) break;
    const std::string_view key = text.substr(i, eq - i);
    i = eq + 1;
    std::string value;
    if (i < text.size() && text[i] == '"') {
      ++i;
      while (i < text.size() && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < text.size()) {
          ++i;
          value += text[i] == 'n' ? '\n' : text[i];
        } else {
          value += text[i];
        }
        ++i;
      }
      ++i;
    } else {
      while (i < text.size() && text[i] != ' ') value += text[i++];
    }
    int64_t number = 0;
    for (char c : value) {
      if (c < '0' || c > '9' || number > (int64_t{1} << 30)) {
        number = 0;
        break;
      }
      number = number * 10 + (c - '0');
    }
    if (key == "op_type") m.set_op_type(value);
    if (key == "op_name") m.set_op_name(value);
    if (key == "source_file") m.set_source_file(value);
    if (key == "source_line") m.set_source_line(static_cast<int32_t>(number));
    if (key == "stack_frame_id") m.set_stack_frame_id(static_cast<int32_t>(number));
  }
  return m;
}

absl::StatusOr<ir::AxisRef> AxisRefFrom(const pb::AxisRefProto& proto, size_t axis_count) {
  if (proto.mesh_axis_index() < 0 || proto.mesh_axis_index() >= static_cast<int64_t>(axis_count)) {
    return absl::InvalidArgumentError(StrCat("axis index ", proto.mesh_axis_index(), " is not in the mesh"));
  }
  ir::AxisRef ref;
  ref.mesh_axis = proto.mesh_axis_index();
  if (proto.has_sub_axis_info()) {
    ref.pre_size = proto.sub_axis_info().pre_size();
    ref.sub_size = proto.sub_axis_info().size();
  }
  return ref;
}

// The named sharding's mesh: axes of at most 2^20 devices in all, and the
// device list when the proto gives one.
absl::StatusOr<ir::Mesh> MeshFrom(const pb::MeshProto& mesh) {
  ir::Mesh out;
  int64_t product = 1;
  for (const auto& axis : mesh.axes()) {
    if (axis.size() < 1 || product > kMaxShardingDevices / axis.size()) {
      return absl::InvalidArgumentError("expected mesh axis sizes of at least 1 and at most 2^20 devices");
    }
    product *= axis.size();
    out.axes.push_back(ir::MeshAxis{axis.name(), axis.size()});
  }
  if (!mesh.device_ids().empty()) {
    out.order = ir::Mesh::DeviceOrder::kList;
    out.device_list.assign(mesh.device_ids().begin(), mesh.device_ids().end());
  }
  RETURN_IF_ERROR(out.Validate());
  return out;
}

template <typename Axes>
absl::StatusOr<std::vector<ir::AxisRef>> AxisRefsFrom(const Axes& axes, size_t n) {
  std::vector<ir::AxisRef> refs;
  for (const auto& axis : axes) {
    ASSIGN_OR_RETURN(ir::AxisRef ref, AxisRefFrom(axis, n));
    refs.push_back(ref);
  }
  return refs;
}

// XLA's text form for the special cases: every axis unreduced (or manual)
// and no dims reads "unreduced" ("manual"); nothing at all, "replicated".
void SetSpecialForm(size_t n, ir::NamedSharding& named) {
  if (!named.dims.empty() || !named.replicated_axes.empty()) return;
  if (named.unreduced_axes.size() == n && named.manual_axes.empty()) {
    named.form = ir::NamedSharding::Form::kUnreduced;
    named.unreduced_axes.clear();
  } else if (named.manual_axes.size() == n && named.unreduced_axes.empty()) {
    named.form = ir::NamedSharding::Form::kManual;
    named.manual_axes.clear();
  } else if (named.unreduced_axes.empty() && named.manual_axes.empty()) {
    named.form = ir::NamedSharding::Form::kReplicated;
  }
}

absl::StatusOr<ir::NamedSharding> NamedFrom(const pb::NamedShardingProto& proto) {
  if (!proto.tuple_shardings().empty()) {
    return absl::InvalidArgumentError("named tuple shardings are not supported; expected tuple_shardings in OpSharding");
  }
  ir::NamedSharding named;
  const pb::MeshProto& mesh = proto.mesh();
  if (mesh.axes().empty()) {
    if (mesh.device_ids_size() != 1) {
      return absl::InvalidArgumentError("expected a mesh with axes, or one device id for a maximal mesh");
    }
    named.form = ir::NamedSharding::Form::kMaximal;
    named.maximal_device = mesh.device_ids(0);
    return named;
  }
  ASSIGN_OR_RETURN(named.mesh, MeshFrom(mesh));
  const size_t n = named.mesh.axes.size();
  for (const auto& dim : proto.dim_shardings()) {
    ir::NamedSharding::DimSharding d;
    d.closed = dim.is_closed();
    ASSIGN_OR_RETURN(d.axes, AxisRefsFrom(dim.axes(), n));
    named.dims.push_back(std::move(d));
  }
  ASSIGN_OR_RETURN(named.replicated_axes, AxisRefsFrom(proto.replicated_axes(), n));
  ASSIGN_OR_RETURN(named.unreduced_axes, AxisRefsFrom(proto.unreduced_axes(), n));
  ASSIGN_OR_RETURN(named.manual_axes, AxisRefsFrom(proto.manual_axes(), n));
  SetSpecialForm(n, named);
  return named;
}

// The tiles of a tiled proto: dimensions of at most 2^20 devices in all,
// and either an iota or exactly that many explicit devices.
absl::StatusOr<ir::TileAssignment> TilesFrom(const pb::OpSharding& proto) {
  ir::TileAssignment tiles;
  tiles.dims.assign(proto.tile_assignment_dimensions().begin(), proto.tile_assignment_dimensions().end());
  int64_t count = 1;
  for (int64_t d : tiles.dims) {
    if (d < 0 || (d != 0 && count > kMaxShardingDevices / d)) {
      return absl::InvalidArgumentError("expected tile dimensions of at most 2^20 devices in all");
    }
    count *= d;
  }
  if (!proto.iota_reshape_dims().empty()) {
    if (!proto.tile_assignment_devices().empty()) {
      return absl::InvalidArgumentError("expected either tile_assignment_devices or iota_reshape_dims, not both");
    }
    ir::IotaDevices iota;
    iota.dims = tiles.dims;
    iota.reshape_dims.assign(proto.iota_reshape_dims().begin(), proto.iota_reshape_dims().end());
    iota.transpose_perm.assign(proto.iota_transpose_perm().begin(), proto.iota_transpose_perm().end());
    if (iota.transpose_perm.size() != iota.reshape_dims.size()) {
      return absl::InvalidArgumentError("expected iota_transpose_perm to be as long as iota_reshape_dims");
    }
    RETURN_IF_ERROR(iota.Expand().status());
    tiles.iota = std::move(iota);
  } else {
    tiles.devices.assign(proto.tile_assignment_devices().begin(), proto.tile_assignment_devices().end());
    if (static_cast<int64_t>(tiles.devices.size()) != count) {
      return absl::InvalidArgumentError(StrCat("expected ", count, " tile_assignment_devices, not ",
                                               tiles.devices.size()));
    }
  }
  return tiles;
}

// Makes `out` the tiled sharding `proto` states: its tiles and its
// subgroup (last tile) dims, fewer than the tile dims.
absl::Status TiledFrom(const pb::OpSharding& proto, HloSharding* out) {
  out->kind = HloSharding::Kind::kTiled;
  ASSIGN_OR_RETURN(out->tiles, TilesFrom(proto));
  out->replicate_on_last_tile_dim = proto.replicate_on_last_tile_dim();
  for (int type : proto.last_tile_dims()) {
    if (type < 0 || type > 6) return absl::InvalidArgumentError(StrCat("unknown subgroup type ", type));
    out->last_tile_dims.push_back(static_cast<OpShardingType>(type));
  }
  const size_t subgroups = out->last_tile_dims.size() + (out->replicate_on_last_tile_dim ? 1 : 0);
  if (subgroups > out->tiles.dims.size()) {
    return absl::InvalidArgumentError("expected fewer subgroup dims than tile dims");
  }
  return absl::OkStatus();
}

// Sets `out`'s shard group from a proto that is one, its id in [0, 2^40].
absl::Status ShardGroupFrom(const pb::OpSharding& proto, HloSharding* out) {
  if (proto.shard_group_id() < 0 || static_cast<uint64_t>(proto.shard_group_id()) > kMaxShardingInt) {
    return absl::InvalidArgumentError(StrCat("expected a shard group id in [0, 2^40], not ", proto.shard_group_id()));
  }
  out->shard_group = HloSharding::ShardGroup{proto.shard_group_type() == pb::OpSharding::AS,
                                             proto.shard_group_id()};
  return absl::OkStatus();
}

// The sharding `proto` states, tuples at most kMaxTupleDepth deep (`depth`:
// this one's).
absl::StatusOr<HloSharding> FromProto(const pb::OpSharding& proto, int depth) {
  HloSharding out;
  for (const auto& m : proto.metadata()) out.metadata.push_back(MetadataText(m));
  if (proto.is_shard_group()) RETURN_IF_ERROR(ShardGroupFrom(proto, &out));
  if (proto.has_named_sharding()) {
    ASSIGN_OR_RETURN(ir::NamedSharding named, NamedFrom(proto.named_sharding()));
    for (const auto& m : proto.named_sharding().metadata()) out.metadata.push_back(MetadataText(m));
    out.kind = HloSharding::Kind::kNamed;
    out.named = std::move(named);
    return out;
  }
  switch (proto.type()) {
    case pb::OpSharding::REPLICATED:
      out.kind = HloSharding::Kind::kReplicated;
      return out;
    case pb::OpSharding::MANUAL:
      out.kind = HloSharding::Kind::kManual;
      return out;
    case pb::OpSharding::UNKNOWN:
      out.kind = HloSharding::Kind::kUnknown;
      return out;
    case pb::OpSharding::UNREDUCED:
      out.kind = HloSharding::Kind::kUnreduced;
      return out;
    case pb::OpSharding::MAXIMAL:
      if (proto.tile_assignment_devices_size() != 1) {
        return absl::InvalidArgumentError(StrCat("expected one device in a maximal sharding, not ",
                                                 proto.tile_assignment_devices_size()));
      }
      out.kind = HloSharding::Kind::kMaximal;
      out.maximal_device = proto.tile_assignment_devices(0);
      return out;
    case pb::OpSharding::TUPLE:
      if (depth >= kMaxTupleDepth) return absl::InvalidArgumentError("expected no tuple inside a tuple sharding");
      out.kind = HloSharding::Kind::kTuple;
      out.metadata.clear();
      for (const pb::OpSharding& element : proto.tuple_shardings()) {
        ASSIGN_OR_RETURN(HloSharding e, FromProto(element, depth + 1));
        out.tuple_elements.push_back(std::move(e));
      }
      return out;
    case pb::OpSharding::OTHER:
      RETURN_IF_ERROR(TiledFrom(proto, &out));
      return out;
    default:
      return absl::InvalidArgumentError(StrCat("unknown OpSharding type ", static_cast<int>(proto.type())));
  }
}

void AxisRefTo(const ir::AxisRef& ref, pb::AxisRefProto* proto) {
  proto->set_mesh_axis_index(ref.mesh_axis);
  if (ref.pre_size) {
    proto->mutable_sub_axis_info()->set_pre_size(*ref.pre_size);
    proto->mutable_sub_axis_info()->set_size(ref.sub_size);
  }
}

void NamedTo(const ir::NamedSharding& named, pb::NamedShardingProto* proto) {
  pb::MeshProto* mesh = proto->mutable_mesh();
  if (named.form == ir::NamedSharding::Form::kMaximal) {
    mesh->add_device_ids(named.maximal_device);
    return;
  }
  for (const ir::MeshAxis& axis : named.mesh.axes) {
    auto* a = mesh->add_axes();
    a->set_name(axis.name);
    a->set_size(axis.size);
  }
  if (!named.mesh.IsIotaOrder() || named.mesh.order == ir::Mesh::DeviceOrder::kIotaForm) {
    for (int64_t id : named.mesh.DeviceIds()) mesh->add_device_ids(id);
  }
  auto all_axes = [&](google::protobuf::RepeatedPtrField<pb::AxisRefProto>* list) {
    for (size_t i = 0; i < named.mesh.axes.size(); ++i) list->Add()->set_mesh_axis_index(static_cast<int64_t>(i));
  };
  switch (named.form) {
    case ir::NamedSharding::Form::kUnreduced:
      all_axes(proto->mutable_unreduced_axes());
      return;
    case ir::NamedSharding::Form::kManual:
      all_axes(proto->mutable_manual_axes());
      return;
    case ir::NamedSharding::Form::kReplicated:
      return;
    default:
      break;
  }
  for (const auto& dim : named.dims) {
    auto* d = proto->add_dim_shardings();
    for (const ir::AxisRef& ref : dim.axes) AxisRefTo(ref, d->add_axes());
    d->set_is_closed(dim.closed);
  }
  for (const ir::AxisRef& ref : named.replicated_axes) AxisRefTo(ref, proto->add_replicated_axes());
  for (const ir::AxisRef& ref : named.unreduced_axes) AxisRefTo(ref, proto->add_unreduced_axes());
  for (const ir::AxisRef& ref : named.manual_axes) AxisRefTo(ref, proto->add_manual_axes());
}

absl::Status ToProto(const HloSharding& sharding, pb::OpSharding* proto) {
  if (sharding.kind == HloSharding::Kind::kTuple) {
    proto->set_type(pb::OpSharding::TUPLE);
    for (const HloSharding& element : sharding.tuple_elements) {
      RETURN_IF_ERROR(ToProto(element, proto->add_tuple_shardings()));
    }
    return absl::OkStatus();
  }
  if (sharding.kind == HloSharding::Kind::kNamed && sharding.named) {
    pb::NamedShardingProto* named = proto->mutable_named_sharding();
    NamedTo(*sharding.named, named);
    for (const std::string& m : sharding.metadata) *named->add_metadata() = MetadataFromText(m);
    return absl::OkStatus();
  }
  for (const std::string& m : sharding.metadata) *proto->add_metadata() = MetadataFromText(m);
  if (sharding.shard_group) {
    proto->set_is_shard_group(true);
    proto->set_shard_group_id(sharding.shard_group->id);
    proto->set_shard_group_type(sharding.shard_group->shard_as ? pb::OpSharding::AS : pb::OpSharding::LIKE);
  }
  switch (sharding.kind) {
    case HloSharding::Kind::kReplicated:
      proto->set_type(pb::OpSharding::REPLICATED);
      return absl::OkStatus();
    case HloSharding::Kind::kManual:
      proto->set_type(pb::OpSharding::MANUAL);
      return absl::OkStatus();
    case HloSharding::Kind::kUnknown:
      proto->set_type(pb::OpSharding::UNKNOWN);
      return absl::OkStatus();
    case HloSharding::Kind::kUnreduced:
      proto->set_type(pb::OpSharding::UNREDUCED);
      return absl::OkStatus();
    case HloSharding::Kind::kMaximal:
      proto->set_type(pb::OpSharding::MAXIMAL);
      proto->add_tile_assignment_devices(sharding.maximal_device);
      return absl::OkStatus();
    default:
      break;
  }
  proto->set_type(pb::OpSharding::OTHER);
  for (int64_t d : sharding.tiles.dims) proto->add_tile_assignment_dimensions(d);
  if (sharding.tiles.iota) {
    const ir::IotaDevices& iota = *sharding.tiles.iota;
    for (int64_t d : iota.reshape_dims) proto->add_iota_reshape_dims(d);
    if (iota.transpose_perm.empty()) {
      for (size_t i = 0; i < iota.reshape_dims.size(); ++i) proto->add_iota_transpose_perm(static_cast<int32_t>(i));
    } else {
      for (int64_t p : iota.transpose_perm) proto->add_iota_transpose_perm(static_cast<int32_t>(p));
    }
  } else {
    ASSIGN_OR_RETURN(const std::vector<int64_t> devices, sharding.tiles.Devices());
    for (int64_t d : devices) proto->add_tile_assignment_devices(d);
  }
  proto->set_replicate_on_last_tile_dim(sharding.replicate_on_last_tile_dim);
  for (OpShardingType type : sharding.last_tile_dims) {
    proto->add_last_tile_dims(static_cast<pb::OpSharding::Type>(static_cast<int>(type)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HloSharding> OpShardingFromBytes(std::string_view bytes) {
  pb::OpSharding proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        StrCat("expected serialized OpSharding bytes (", bytes.size(), " bytes do not decode)"));
  }
  return FromProto(proto, 0);
}

absl::StatusOr<std::string> OpShardingToBytes(const HloSharding& sharding) {
  pb::OpSharding proto;
  RETURN_IF_ERROR(ToProto(sharding, &proto));
  std::string out;
  proto.SerializeToString(&out);
  return out;
}

}  // namespace memplan::parsers
