// memplan shard: reads the flags' notations with the parsers, lowers them to
// an HloSharding and per-device layouts (ir/), renders (viz/shard_view.h).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/output_file.h"
#include "ir/dtensor.h"
#include "ir/partition_spec.h"
#include "ir/shard_layout.h"
#include "ir/sharding.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/cursor.h"
#include "parsers/dtensor_parser.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/jax_sharding_parser.h"
#include "parsers/op_sharding.h"
#include "parsers/shape_parser.h"
#include "parsers/source_text.h"
#include "viz/shard_view.h"

namespace memplan::cli {
namespace {

using parsers::SourceText;

std::shared_ptr<const SourceText> Flag(std::string_view name, const std::string& value) {
  return SourceText::FromString(StrCat("--", name), value);
}

// An error about a flag's value as a whole: "--name:1:1: error: ...".
absl::Status FlagError(const SourceText& source, std::string_view message) {
  return source.ErrorAt(source.text().data(), message);
}

absl::StatusOr<ir::Shape> ParseShapeFlag(const SourceText& source) {
  const std::string_view text = source.text();
  size_t start = text.find_first_not_of(" \t");
  if (start == std::string_view::npos) start = text.size();
  parsers::Cursor cursor(text.substr(start));
  ir::Shape shape;
  if (!parsers::ParseShape(cursor, &shape)) {
    return source.ErrorAt(cursor.position(), "expected a shape such as f32[20,16] or (f32[4], bf16[2,2])");
  }
  cursor.SkipSpaces();
  if (!cursor.AtEnd()) return source.ErrorAt(cursor.position(), "expected the end of the shape");
  return shape;
}

// The array leaves of `shape`, in order.
void Leaves(const ir::Shape& shape, std::vector<ir::Shape>* out) {
  if (shape.IsTuple()) {
    for (const ir::Shape& element : shape.tuple_elements) Leaves(element, out);
  } else {
    out->push_back(shape);
  }
}

// --devices applied to the mesh: the device id at each mesh position.
absl::Status ApplyDevices(const SourceText* devices, ir::Mesh& mesh) {
  if (devices == nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<int64_t> ids, parsers::ParseDeviceList(*devices));
  if (static_cast<int64_t>(ids.size()) != mesh.device_count()) {
    return FlagError(*devices, StrCat("expected ", mesh.device_count(), " device ids for the mesh ",
                                      mesh.ToString(), ", found ", ids.size()));
  }
  mesh.order = ir::Mesh::DeviceOrder::kList;
  mesh.device_list = std::move(ids);
  if (absl::Status valid = mesh.Validate(); !valid.ok()) return FlagError(*devices, FromAbsl(valid.message()));
  return absl::OkStatus();
}

struct Inputs {
  std::shared_ptr<const SourceText> shape, mesh, devices, notation;
};

// The layouts of every leaf under an HloSharding given as text or bytes.
absl::Status LayOutHloSharding(const Inputs& in, const ir::HloSharding& written, const ir::Shape& shape,
                               std::optional<ir::Mesh> mesh, viz::ShardReportInput& report) {
  absl::StatusOr<ir::HloSharding> canonical = ir::CanonicalHloSharding(written);
  if (!canonical.ok()) return FlagError(*in.notation, FromAbsl(canonical.status().message()));
  if (canonical->ToString(true) != written.ToString(true)) report.hlo_sharding_as_written = written.ToString(true);
  std::vector<int64_t> ids;
  if (mesh) ids = mesh->DeviceIds();
  std::vector<ir::Shape> leaves;
  Leaves(shape, &leaves);
  std::vector<ir::HloSharding> per_leaf;
  if (canonical->kind == ir::HloSharding::Kind::kTuple) {
    if (canonical->tuple_elements.size() != leaves.size()) {
      return FlagError(*in.notation, StrCat("the tuple sharding has ", canonical->tuple_elements.size(),
                                            " elements but the shape ", ir::ShapeToString(shape, false), " has ",
                                            leaves.size(), " arrays"));
    }
    per_leaf = canonical->tuple_elements;
  } else {
    per_leaf.assign(leaves.size(), *canonical);
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    const ir::HloSharding& leaf = per_leaf[i];
    if (leaf.kind == ir::HloSharding::Kind::kTiled && !ids.empty() &&
        leaf.tiles.device_count() != static_cast<int64_t>(ids.size())) {
      return FlagError(in.devices ? *in.devices : *in.mesh,
                       StrCat("the sharding ", leaf.ToString(), " uses ", leaf.tiles.device_count(),
                              " devices but ", ids.size(), " were given"));
    }
    absl::StatusOr<ir::ShardLayout> layout = ir::XlaShardLayout(leaf, leaves[i], ids, 1);
    if (!layout.ok()) return FlagError(*in.notation, FromAbsl(layout.status().message()));
    report.layouts.push_back(*std::move(layout));
  }
  report.mesh = std::move(mesh);
  report.hlo_sharding = *canonical;
  ASSIGN_OR_RETURN(const std::string bytes, parsers::OpShardingToBytes(*canonical));
  report.op_sharding_bytes = parsers::PythonBytesRepr(bytes);
  return absl::OkStatus();
}

// The mesh from --mesh (and --devices), or a bare list of ids from
// --devices alone (for HloSharding input).
absl::StatusOr<std::optional<ir::Mesh>> MeshFromFlags(const Inputs& in) {
  if (in.mesh) {
    ASSIGN_OR_RETURN(parsers::ParsedMesh parsed, parsers::ParseMeshText(*in.mesh));
    RETURN_IF_ERROR(ApplyDevices(in.devices.get(), parsed.mesh));
    return std::optional<ir::Mesh>(parsed.mesh);
  }
  if (in.devices) {
    ASSIGN_OR_RETURN(std::vector<int64_t> ids, parsers::ParseDeviceList(*in.devices));
    ir::Mesh mesh;
    mesh.axes.push_back({"devices", static_cast<int64_t>(ids.size())});
    mesh.order = ir::Mesh::DeviceOrder::kList;
    mesh.device_list = std::move(ids);
    if (absl::Status valid = mesh.Validate(); !valid.ok()) return FlagError(*in.devices, FromAbsl(valid.message()));
    return std::optional<ir::Mesh>(mesh);
  }
  return std::optional<ir::Mesh>();
}

absl::Status FromSpec(const Inputs& in, std::optional<ir::Shape> shape, viz::ShardReportInput& report) {
  ASSIGN_OR_RETURN(parsers::ParsedJaxSharding parsed, parsers::ParseJaxShardingText(*in.notation));
  if (parsed.shape) {
    if (shape && !(parsed.shape->dims == shape->dims && parsed.shape->dtype == shape->dtype)) {
      return FlagError(*in.shape, StrCat("the shape disagrees with the ShapeDtypeStruct's ",
                                         ir::ShapeToString(*parsed.shape, false)));
    }
    shape = parsed.shape;
  }
  if (!shape) return FlagError(*in.notation, "expected --shape (or a ShapeDtypeStruct(...) that holds it)");
  if (!shape->IsArray()) return FlagError(*in.shape, "expected an array shape for a PartitionSpec");
  ir::JaxNamedSharding named;
  if (parsed.mesh) {
    if (in.mesh) return FlagError(*in.mesh, "the NamedSharding holds a mesh already; expected --mesh only with a PartitionSpec");
    named.mesh = parsed.mesh->mesh;
    named.axis_types = parsed.mesh->axis_types;
    RETURN_IF_ERROR(ApplyDevices(in.devices.get(), named.mesh));
  } else {
    if (!in.mesh) return FlagError(*in.notation, "expected --mesh for a PartitionSpec (or a NamedSharding(...) repr)");
    ASSIGN_OR_RETURN(parsers::ParsedMesh mesh, parsers::ParseMeshText(*in.mesh));
    RETURN_IF_ERROR(ApplyDevices(in.devices.get(), mesh.mesh));
    named.mesh = mesh.mesh;
    named.axis_types = mesh.axis_types;
  }
  const int64_t rank = static_cast<int64_t>(shape->dims.size());
  RETURN_IF_ERROR(parsers::CheckPartitionSpec(*in.notation, parsed, named.mesh, rank));
  named.spec = parsed.spec;
  named.memory_kind = parsed.memory_kind;
  named.logical_device_ids = parsed.logical_device_ids;
  absl::StatusOr<ir::HloSharding> hlo = ir::PartitionSpecToHloSharding(named, rank);
  if (!hlo.ok()) return FlagError(*in.notation, FromAbsl(hlo.status().message()));
  report.notation = parsed.mesh ? (parsed.shape ? "ShapeDtypeStruct" : "NamedSharding") : "PartitionSpec";
  report.memory_kind = parsed.memory_kind;
  return LayOutHloSharding(in, *hlo, *shape, named.mesh, report);
}

absl::Status FromPlacements(const Inputs& in, const std::optional<ir::Shape>& shape,
                            viz::ShardReportInput& report) {
  ASSIGN_OR_RETURN(parsers::ParsedPlacements parsed, parsers::ParseDTensorPlacements(*in.notation));
  if (!shape) return FlagError(*in.notation, "expected --shape");
  if (!shape->IsArray()) return FlagError(*in.shape, "expected an array shape for DTensor placements");
  ir::Mesh mesh;
  if (parsed.mesh) {
    if (in.mesh) return FlagError(*in.mesh, "the DTensor repr holds a mesh already; expected no --mesh");
    mesh = parsed.mesh->mesh;
  } else if (in.mesh) {
    ASSIGN_OR_RETURN(parsers::ParsedMesh m, parsers::ParseMeshText(*in.mesh));
    mesh = m.mesh;
  } else {
    return FlagError(*in.notation, "expected --mesh for DTensor placements (e.g. --mesh dp=2,tp=4)");
  }
  RETURN_IF_ERROR(ApplyDevices(in.devices.get(), mesh));
  if (parsed.placements.size() != mesh.axes.size()) {
    return FlagError(*in.notation, StrCat("expected one placement per mesh dimension: the mesh ", mesh.ToString(),
                                          " has ", mesh.axes.size(), ", found ", parsed.placements.size()));
  }
  const int64_t rank = static_cast<int64_t>(shape->dims.size());
  for (size_t i = 0; i < parsed.placements.size(); ++i) {
    const ir::Placement& p = parsed.placements[i];
    const bool shards = p.kind == ir::Placement::Kind::kShard || p.kind == ir::Placement::Kind::kStridedShard;
    if (shards && (p.dim >= rank || p.dim < -rank)) {
      return in.notation->ErrorAt(in.notation->text().data() + parsed.offsets[i],
                                  StrCat(p.ToString(), " shards dimension ", p.dim, " but the array has rank ", rank));
    }
  }
  absl::StatusOr<ir::ShardLayout> layout = ir::DTensorShardLayout(mesh, parsed.placements, *shape);
  if (!layout.ok()) return FlagError(*in.notation, FromAbsl(layout.status().message()));
  absl::StatusOr<std::optional<ir::HloSharding>> hlo = ir::DTensorToHloSharding(mesh, parsed.placements, rank);
  if (!hlo.ok()) return FlagError(*in.notation, FromAbsl(hlo.status().message()));
  report.notation = "DTensor";
  report.placements = parsed.placements;
  report.mesh = mesh;
  report.hlo_sharding = *hlo;
  report.layouts.push_back(*std::move(layout));
  return absl::OkStatus();
}

absl::Status Build(const ShardFlags& flags, viz::ShardReportInput& report) {
  Inputs in;
  if (!flags.mesh.empty()) in.mesh = Flag("mesh", flags.mesh);
  if (!flags.devices.empty()) in.devices = Flag("devices", flags.devices);
  std::optional<ir::Shape> shape;
  if (!flags.shape.empty()) {
    in.shape = Flag("shape", flags.shape);
    ASSIGN_OR_RETURN(shape, ParseShapeFlag(*in.shape));
  }
  int given = 0;
  for (const std::string* s : {&flags.spec, &flags.sharding, &flags.opsharding, &flags.placements}) {
    given += !s->empty();
  }
  if (given != 1) {
    return absl::InvalidArgumentError(
        "expected exactly one of --spec, --sharding, --opsharding, --placements");
  }
  if (!flags.spec.empty()) {
    in.notation = Flag("spec", flags.spec);
    report.text = flags.spec;
    return FromSpec(in, shape, report);
  }
  if (!flags.placements.empty()) {
    in.notation = Flag("placements", flags.placements);
    report.text = flags.placements;
    return FromPlacements(in, shape, report);
  }
  if (!shape) return absl::InvalidArgumentError("expected --shape");
  ASSIGN_OR_RETURN(std::optional<ir::Mesh> mesh, MeshFromFlags(in));
  ir::HloSharding written;
  if (!flags.sharding.empty()) {
    in.notation = Flag("sharding", flags.sharding);
    report.notation = "HloSharding";
    report.text = flags.sharding;
    ASSIGN_OR_RETURN(written, parsers::ParseHloShardingText(*in.notation));
  } else {
    in.notation = Flag("opsharding", flags.opsharding);
    report.notation = "OpSharding";
    report.text = flags.opsharding;
    ASSIGN_OR_RETURN(const std::string bytes, parsers::ParsePythonBytesLiteral(*in.notation));
    absl::StatusOr<ir::HloSharding> decoded = parsers::OpShardingFromBytes(bytes);
    if (!decoded.ok()) return FlagError(*in.notation, FromAbsl(decoded.status().message()));
    written = *std::move(decoded);
  }
  return LayOutHloSharding(in, written, *shape, std::move(mesh), report);
}

}  // namespace

int RunShard(const ShardFlags& flags) {
  viz::ShardReportInput report;
  report.device_label = flags.device_label;
  if (absl::Status built = Build(flags, report); !built.ok()) {
    PrintPrefixed("memplan shard: ", FromAbsl(built.message()));
    return kExitBadInput;
  }
  const std::string rendered =
      flags.format == ShardFormat::kJson ? viz::RenderShardJson(report) : viz::RenderShardText(report);
  if (absl::Status written = WriteOutput(flags.output, rendered); !written.ok()) {
    PrintError(written);
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace memplan::cli
