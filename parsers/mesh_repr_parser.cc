// The mesh reprs of parsers/jax_sharding_parser.h: JAX's Mesh and
// AbstractMesh (old and new), mesh.shape dicts, PyTorch's DeviceMesh,
// memplan's x=4,y=1, and device lists.
#include <utility>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "ir/iota.h"
#include "parsers/cursor.h"
#include "parsers/jax_sharding_parser.h"
#include "parsers/python_repr.h"
#include "parsers/sharding_limits.h"

namespace memplan::parsers {
namespace {

using Kind = PyToken::Kind;

absl::StatusOr<std::string> ExpectAxisName(PyReader& r) {
  const PyToken& t = r.Peek();
  if (t.kind != Kind::kString && t.kind != Kind::kName) return r.ErrorAtNext("expected an axis name");
  if (t.text.empty()) return r.ErrorAtNext("expected a non-empty axis name");
  return r.Next().text;
}

absl::Status AddAxis(PyReader& r, const PyToken& at, ParsedMesh* out, std::string name, int64_t size) {
  if (out->mesh.AxisIndex(name)) return r.ErrorAt(at, StrCat("expected distinct axis names; '", name, "' appears twice"));
  if (size < 1) return r.ErrorAt(at, StrCat("expected the size of axis '", name, "' to be at least 1"));
  const int64_t count = out->mesh.axes.empty() ? 1 : out->mesh.device_count();
  if (count > kMaxShardingDevices / size) {
    return r.ErrorAt(at, StrCat("expected a mesh of at most ", kMaxShardingDevices, " devices"));
  }
  out->mesh.axes.push_back(ir::MeshAxis{std::move(name), size});
  return absl::OkStatus();
}

// "(Auto, Explicit)" or "(AxisType.Auto,)".
absl::Status ParseAxisTypes(PyReader& r, std::vector<ir::AxisType>* types) {
  const bool tuple = r.TakePunct("(");
  while (!r.IsPunct(")") && !r.AtEnd()) {
    const PyToken& t = r.Peek();
    if (EndsWithName(t, "Auto")) {
      types->push_back(ir::AxisType::kAuto);
    } else if (EndsWithName(t, "Explicit")) {
      types->push_back(ir::AxisType::kExplicit);
    } else if (EndsWithName(t, "Manual")) {
      types->push_back(ir::AxisType::kManual);
    } else {
      return r.ErrorAt(t, "expected an axis type: Auto, Explicit or Manual");
    }
    r.Next();
    if (!tuple) return absl::OkStatus();
    if (!r.TakePunct(",")) break;
  }
  if (tuple) return r.ExpectPunct(")", "')' after the axis types");
  return absl::OkStatus();
}

absl::Status ParseNameTuple(PyReader& r, std::vector<std::pair<std::string, size_t>>* names) {
  RETURN_IF_ERROR(r.ExpectPunct("(", "'(' to start the axis names"));
  while (!r.IsPunct(")")) {
    const size_t offset = r.Peek().offset;
    ASSIGN_OR_RETURN(std::string name, ExpectAxisName(r));
    names->emplace_back(std::move(name), offset);
    if (!r.TakePunct(",")) break;
  }
  return r.ExpectPunct(")", "',' or ')' in the axis names");
}

absl::Status SetDevices(PyReader& r, const PyToken& at, ParsedMesh* out, std::vector<int64_t> ids) {
  out->mesh.order = ir::Mesh::DeviceOrder::kList;
  out->mesh.device_list = std::move(ids);
  if (out->mesh.IsIotaOrder()) {
    out->mesh.order = ir::Mesh::DeviceOrder::kIota;
    out->mesh.device_list.clear();
  }
  if (absl::Status valid = out->mesh.Validate(); !valid.ok()) return r.ErrorAt(at, StrCat("expected a valid mesh: ", valid.message()));
  return absl::OkStatus();
}

// Mesh(...) with axis_names= (and axis_sizes= or device_ids= giving the
// sizes): one axis per name.
absl::Status AddNamedAxes(PyReader& r, const PyToken& call, const std::vector<std::pair<std::string, size_t>>& names,
                          std::vector<int64_t> sizes, const std::vector<int64_t>& id_shape,
                          const std::optional<PyToken>& ids_at, ParsedMesh* out) {
  if (names.empty()) return r.ErrorAt(call, "expected axis_names=");
  if (ids_at) {
    if (!sizes.empty() && sizes != id_shape) return r.ErrorAt(*ids_at, "expected device_ids of the shape axis_sizes says");
    sizes = id_shape;
  }
  if (sizes.size() != names.size()) {
    return r.ErrorAt(call, StrCat("expected as many axis sizes as axis names (", sizes.size(), " vs ", names.size(), ")"));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    PyToken at;
    at.offset = names[i].second;
    RETURN_IF_ERROR(AddAxis(r, at, out, names[i].first, sizes[i]));
  }
  return absl::OkStatus();
}

// Mesh(...) / AbstractMesh(...): after the name.
absl::Status ParseJaxMeshCall(PyReader& r, ParsedMesh* out) {
  const PyToken& call = r.Peek();
  RETURN_IF_ERROR(r.ExpectPunct("(", "'(' after Mesh"));
  std::vector<int64_t> sizes;
  std::vector<std::pair<std::string, size_t>> names;
  std::vector<int64_t> id_shape, ids;
  std::optional<PyToken> ids_at;
  bool positional_pairs = false;
  while (!r.IsPunct(")")) {
    const PyToken& t = r.Peek();
    if ((t.kind == Kind::kString) && r.IsPunct(":", 1)) {
      // 'x': 4
      positional_pairs = true;
      const std::string name = r.Next().text;
      r.Next();
      ASSIGN_OR_RETURN(int64_t size, r.ExpectInt("an axis size"));
      RETURN_IF_ERROR(AddAxis(r, t, out, name, size));
    } else if (t.kind == Kind::kName && r.IsPunct("=", 1)) {
      const std::string key = r.Next().text;
      r.Next();
      if (key == "axis_sizes" || key == "shape_tuple") {
        std::vector<int64_t> shape;
        RETURN_IF_ERROR(r.ExpectIntArray(&shape, &sizes));
      } else if (key == "axis_names") {
        RETURN_IF_ERROR(ParseNameTuple(r, &names));
      } else if (key == "axis_types") {
        RETURN_IF_ERROR(ParseAxisTypes(r, &out->axis_types));
      } else if (key == "device_ids" || key == "devices") {
        ids_at = r.Peek();
        RETURN_IF_ERROR(r.ExpectIntArray(&id_shape, &ids));
      } else {
        RETURN_IF_ERROR(r.SkipValue());  // device_kind=cpu, num_cores=None, ...
      }
    } else if (t.kind == Kind::kPunct && t.text == "(" && sizes.empty() && names.empty()) {
      // AbstractMesh((4, 2), ('x', 'y'))
      std::vector<int64_t> shape;
      if (r.Peek(1).kind == Kind::kInt) {
        RETURN_IF_ERROR(r.ExpectIntArray(&shape, &sizes));
        if (!r.TakePunct(",")) break;
        RETURN_IF_ERROR(ParseNameTuple(r, &names));
      } else {
        return r.ErrorAt(t, "expected axis sizes");
      }
    } else {
      return r.ErrorAt(t, "expected 'name': size, axis_sizes=, axis_names=, axis_types= or device_ids=");
    }
    if (!r.TakePunct(",")) break;
  }
  RETURN_IF_ERROR(r.ExpectPunct(")", "',' or ')' in Mesh(...)"));
  if (!positional_pairs) RETURN_IF_ERROR(AddNamedAxes(r, call, names, sizes, id_shape, ids_at, out));
  if (out->mesh.axes.empty()) return r.ErrorAt(call, "expected a mesh with at least one axis");
  if (!out->axis_types.empty() && out->axis_types.size() != out->mesh.axes.size()) {
    return r.ErrorAt(call, "expected one axis type per axis");
  }
  if (ids_at) RETURN_IF_ERROR(SetDevices(r, *ids_at, out, std::move(ids)));
  return absl::OkStatus();
}

// DeviceMesh's shape argument, (dp=2, tp=4) or (4,): sizes, and names when
// every dim is named.
absl::Status ParseDeviceMeshShape(PyReader& r, std::vector<int64_t>* sizes, std::vector<std::string>* dim_names) {
  const PyToken& open = r.Next();
  while (!r.IsPunct(")")) {
    if (r.Peek().kind == Kind::kName && r.IsPunct("=", 1)) {
      dim_names->push_back(r.Next().text);
      r.Next();
    }
    ASSIGN_OR_RETURN(int64_t size, r.ExpectInt("a mesh dimension size"));
    sizes->push_back(size);
    if (!r.TakePunct(",")) break;
  }
  RETURN_IF_ERROR(r.ExpectPunct(")", "')' after the mesh shape"));
  if (!dim_names->empty() && dim_names->size() != sizes->size()) {
    return r.ErrorAt(open, "expected every mesh dim to be named");
  }
  return absl::OkStatus();
}

// The ranks of `count` devices in row-major mesh order: at each coordinate
// the dot product with the strides.
std::vector<int64_t> StridedDeviceIds(const std::vector<int64_t>& sizes, const std::vector<int64_t>& stride,
                                      int64_t count) {
  std::vector<int64_t> generated;
  std::vector<int64_t> coordinate(sizes.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t id = 0;
    for (size_t a = 0; a < sizes.size(); ++a) id += coordinate[a] * stride[a];
    generated.push_back(id);
    for (size_t a = sizes.size(); a-- > 0;) {
      if (++coordinate[a] < sizes[a]) break;
      coordinate[a] = 0;
    }
  }
  return generated;
}

// DeviceMesh((dp=2, tp=4), 'cpu', stride=(4, 1)) or
// DeviceMesh('cuda', [[0, 1], [2, 3]], mesh_dim_names=('dp', 'tp')).
absl::Status ParseDeviceMeshCall(PyReader& r, ParsedMesh* out) {
  const PyToken& call = r.Peek();
  RETURN_IF_ERROR(r.ExpectPunct("(", "'(' after DeviceMesh"));
  std::vector<int64_t> sizes, ids, stride;
  std::vector<std::string> dim_names;
  std::vector<std::pair<std::string, size_t>> names;
  std::optional<PyToken> ids_at, stride_at;
  while (!r.IsPunct(")")) {
    const PyToken& t = r.Peek();
    if (t.kind == Kind::kPunct && t.text == "(" && sizes.empty() && !ids_at) {
      RETURN_IF_ERROR(ParseDeviceMeshShape(r, &sizes, &dim_names));
    } else if (t.kind == Kind::kPunct && t.text == "[") {
      ids_at = t;
      RETURN_IF_ERROR(r.ExpectIntArray(&sizes, &ids));
    } else if (t.kind == Kind::kName && r.IsPunct("=", 1)) {
      const std::string key = r.Next().text;
      r.Next();
      if (key == "mesh_dim_names") {
        RETURN_IF_ERROR(ParseNameTuple(r, &names));
      } else if (key == "stride") {
        stride_at = r.Peek();
        std::vector<int64_t> shape;
        RETURN_IF_ERROR(r.ExpectIntArray(&shape, &stride));
      } else if (key == "mesh") {
        ids_at = r.Peek();
        RETURN_IF_ERROR(r.ExpectIntArray(&sizes, &ids));
      } else {
        RETURN_IF_ERROR(r.SkipValue());
      }
    } else if (t.kind == Kind::kString) {
      r.Next();  // the device type
    } else {
      return r.ErrorAt(t, "expected the mesh shape, the device type, a device list or a keyword argument");
    }
    if (!r.TakePunct(",")) break;
  }
  RETURN_IF_ERROR(r.ExpectPunct(")", "',' or ')' in DeviceMesh(...)"));
  if (sizes.empty()) return r.ErrorAt(call, "expected the mesh's shape or devices");
  for (const auto& [name, offset] : names) dim_names.push_back(name);
  if (!dim_names.empty() && dim_names.size() != sizes.size()) {
    return r.ErrorAt(call, "expected one mesh_dim_name per mesh dimension");
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    RETURN_IF_ERROR(AddAxis(r, call, out, dim_names.empty() ? StrCat("dim", i) : dim_names[i], sizes[i]));
  }
  if (ids_at) return SetDevices(r, *ids_at, out, std::move(ids));
  if (stride_at) {
    if (stride.size() != sizes.size()) return r.ErrorAt(*stride_at, "expected one stride per mesh dimension");
    return SetDevices(r, *stride_at, out, StridedDeviceIds(sizes, stride, out->mesh.device_count()));
  }
  return absl::OkStatus();
}

// {'x': 4, 'y': 1} or OrderedDict([('x', 4), ('y', 1)]).
absl::Status ParseDictMesh(PyReader& r, ParsedMesh* out) {
  const bool ordered = r.IsName("OrderedDict") || r.IsName("collections.OrderedDict");
  if (ordered) {
    r.Next();
    RETURN_IF_ERROR(r.ExpectPunct("(", "'(' after OrderedDict"));
    RETURN_IF_ERROR(r.ExpectPunct("[", "'['"));
  } else {
    RETURN_IF_ERROR(r.ExpectPunct("{", "'{'"));
  }
  const std::string close = ordered ? "]" : "}";
  while (!r.IsPunct(close)) {
    if (ordered) RETURN_IF_ERROR(r.ExpectPunct("(", "'(' to start a (name, size) pair"));
    const PyToken at = r.Peek();
    ASSIGN_OR_RETURN(std::string name, ExpectAxisName(r));
    RETURN_IF_ERROR(r.ExpectPunct(ordered ? "," : ":", ordered ? "',' after the axis name" : "':' after the axis name"));
    ASSIGN_OR_RETURN(int64_t size, r.ExpectInt("an axis size"));
    RETURN_IF_ERROR(AddAxis(r, at, out, std::move(name), size));
    if (ordered) RETURN_IF_ERROR(r.ExpectPunct(")", "')' to end the pair"));
    if (!r.TakePunct(",")) break;
  }
  RETURN_IF_ERROR(r.ExpectPunct(close, StrCat("',' or '", close, "'")));
  if (ordered) RETURN_IF_ERROR(r.ExpectPunct(")", "')'"));
  return absl::OkStatus();
}

absl::Status ParseAnyMesh(PyReader& r, ParsedMesh* out) {
  const PyToken& first = r.Peek();
  if (EndsWithName(first, "Mesh") || EndsWithName(first, "AbstractMesh")) {
    r.Next();
    return ParseJaxMeshCall(r, out);
  }
  if (EndsWithName(first, "DeviceMesh")) {
    r.Next();
    return ParseDeviceMeshCall(r, out);
  }
  if (first.kind == Kind::kPunct && first.text == "{") return ParseDictMesh(r, out);
  if (EndsWithName(first, "OrderedDict")) return ParseDictMesh(r, out);
  // x=4,y=1
  while (true) {
    const PyToken at = r.Peek();
    ASSIGN_OR_RETURN(std::string name, ExpectAxisName(r));
    RETURN_IF_ERROR(r.ExpectPunct("=", "'=' after the axis name (a mesh reads x=4,y=2)"));
    ASSIGN_OR_RETURN(int64_t size, r.ExpectInt("an axis size"));
    RETURN_IF_ERROR(AddAxis(r, at, out, std::move(name), size));
    if (!r.TakePunct(",")) break;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseMeshTokens(PyReader& reader, ParsedMesh* out) { return ParseAnyMesh(reader, out); }

absl::StatusOr<ParsedMesh> ParseMeshText(const SourceText& source) {
  ASSIGN_OR_RETURN(PyReader r, OpenPython(source));
  ParsedMesh out;
  RETURN_IF_ERROR(ParseAnyMesh(r, &out));
  RETURN_IF_ERROR(ExpectEnd(r, "mesh"));
  if (absl::Status valid = out.mesh.Validate(); !valid.ok()) {
    return source.ErrorAt(source.text().data(), StrCat("expected a valid mesh: ", valid.message()));
  }
  return out;
}

namespace {

// XLA's iota form of a device order: "<=[8]", "<=[4,2]T(1,0)".
absl::StatusOr<std::vector<int64_t>> ParseIotaDeviceList(const SourceText& source, size_t start) {
  Cursor c(source.text().substr(start + 2));
  auto list = [&](char open, char close, std::vector<int64_t>* out) -> absl::Status {
    if (!c.ConsumeChar(open)) return source.ErrorAt(c.position(), StrCat("expected '", std::string(1, open), "'"));
    while (true) {
      c.SkipSpaces();
      int64_t v = 0;
      if (!c.ConsumeInt(&v) || v < 0 || v > kMaxShardingDevices) {
        return source.ErrorAt(c.position(), "expected a non-negative integer");
      }
      if (out->size() >= kMaxShardingListLength) return source.ErrorAt(c.position(), "expected fewer dimensions");
      out->push_back(v);
      c.SkipSpaces();
      if (c.ConsumeChar(',')) continue;
      if (c.ConsumeChar(close)) return absl::OkStatus();
      return source.ErrorAt(c.position(), StrCat("expected ',' or '", std::string(1, close), "'"));
    }
  };
  ir::IotaDevices iota;
  const char* reshape_at = c.position();
  RETURN_IF_ERROR(list('[', ']', &iota.reshape_dims));
  if (c.ConsumeChar('T')) RETURN_IF_ERROR(list('(', ')', &iota.transpose_perm));
  c.SkipSpaces();
  if (!c.AtEnd()) return source.ErrorAt(c.position(), "expected the end of the device list");
  int64_t count = 1;
  for (int64_t d : iota.reshape_dims) {
    if (d != 0 && count > kMaxShardingDevices / d) return source.ErrorAt(reshape_at, "expected at most 2^20 devices");
    count *= d;
  }
  iota.dims = {count};
  absl::StatusOr<std::vector<int64_t>> ids = iota.Expand();
  if (!ids.ok()) return source.ErrorAt(reshape_at, StrCat("expected an iota device list: ", ids.status().message()));
  return ids;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ParseDeviceList(const SourceText& source) {
  const size_t start = source.text().find_first_not_of(" \t\r\n");
  if (start != std::string_view::npos && source.text().substr(start, 2) == "<=") {
    return ParseIotaDeviceList(source, start);
  }
  ASSIGN_OR_RETURN(PyReader r, OpenPython(source));
  std::vector<int64_t> ids;
  if (r.IsPunct("[") || r.IsPunct("(") || r.IsName("array")) {
    std::vector<int64_t> shape;
    RETURN_IF_ERROR(r.ExpectIntArray(&shape, &ids));
  } else {
    while (true) {
      if (ids.size() >= static_cast<size_t>(kMaxShardingDevices)) return r.ErrorAtNext("expected fewer devices");
      ASSIGN_OR_RETURN(int64_t id, r.ExpectInt("a device id"));
      ids.push_back(id);
      if (!r.TakePunct(",")) break;
    }
  }
  RETURN_IF_ERROR(ExpectEnd(r, "device list"));
  return ids;
}

}  // namespace memplan::parsers
