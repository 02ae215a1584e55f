#include "parsers/jax_sharding_parser.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/python_repr.h"
#include "parsers/sharding_limits.h"

namespace memplan::parsers {
namespace {

using Kind = PyToken::Kind;

std::optional<ir::DType> NumpyDType(std::string_view name) {
  static const auto* const kNames = new absl::flat_hash_map<std::string, ir::DType>{
      {"bool", ir::DType::kPred},         {"bool_", ir::DType::kPred},
      {"int4", ir::DType::kS4},           {"int8", ir::DType::kS8},
      {"int16", ir::DType::kS16},         {"int32", ir::DType::kS32},
      {"int64", ir::DType::kS64},         {"uint4", ir::DType::kU4},
      {"uint8", ir::DType::kU8},          {"uint16", ir::DType::kU16},
      {"uint32", ir::DType::kU32},        {"uint64", ir::DType::kU64},
      {"float16", ir::DType::kF16},       {"bfloat16", ir::DType::kBF16},
      {"float32", ir::DType::kF32},       {"float64", ir::DType::kF64},
      {"complex64", ir::DType::kC64},     {"complex128", ir::DType::kC128},
      {"float8_e4m3fn", ir::DType::kF8E4M3FN}, {"float8_e5m2", ir::DType::kF8E5M2},
      {"float8_e4m3", ir::DType::kF8E4M3}, {"float8_e4m3fnuz", ir::DType::kF8E4M3FNUZ},
      {"float8_e5m2fnuz", ir::DType::kF8E5M2FNUZ}, {"float8_e4m3b11fnuz", ir::DType::kF8E4M3B11FNUZ},
      {"float4_e2m1fn", ir::DType::kF4E2M1FN}, {"float8_e8m0fnu", ir::DType::kF8E8M0FNU},
      {"float8_e3m4", ir::DType::kF8E3M4}};
  size_t dot = name.rfind('.');
  if (dot != std::string_view::npos) name = name.substr(dot + 1);
  auto it = kNames->find(std::string(name));
  if (it == kNames->end()) return std::nullopt;
  return it->second;
}

// The set of axis names after "unreduced=" or "reduced=": {'x', ...},
// frozenset({...}) or set({...}); the names go to out->spec.unreduced (with
// their offsets in out->unreduced_offsets) or out->spec.reduced.
absl::Status ParseAxisSet(PyReader& r, bool unreduced, ParsedJaxSharding* out) {
  const bool call = r.IsName("frozenset") || r.IsName("set");
  if (call) {
    r.Next();
    RETURN_IF_ERROR(r.ExpectPunct("(", "'('"));
  }
  RETURN_IF_ERROR(r.ExpectPunct("{", "'{' to start a set of axis names"));
  while (!r.IsPunct("}")) {
    if (r.Peek().kind != Kind::kString) return r.ErrorAtNext("expected an axis name in quotes");
    const size_t offset = r.Peek().offset;
    std::string name = r.Next().text;
    if (unreduced) {
      out->spec.unreduced.push_back(std::move(name));
      out->unreduced_offsets.push_back(offset);
    } else {
      out->spec.reduced.push_back(std::move(name));
    }
    if (!r.TakePunct(",")) break;
  }
  RETURN_IF_ERROR(r.ExpectPunct("}", "',' or '}' in the set of axis names"));
  if (call) RETURN_IF_ERROR(r.ExpectPunct(")", "')' to close the set"));
  return absl::OkStatus();
}

// One entry of P(...), starting at `t` (the next token): None,
// UNCONSTRAINED, 'x' or a tuple ('x', 'y') (() reads as None), into `dim`,
// with the offset of each axis name in `offsets`.
absl::Status ParseSpecDim(PyReader& r, const PyToken& t, ir::SpecDim* dim,
                          std::vector<size_t>* offsets) {
  if (t.kind == Kind::kName && (t.text == "None")) {
    r.Next();
  } else if (EndsWithName(t, "UNCONSTRAINED")) {
    r.Next();
    dim->kind = ir::SpecDim::Kind::kUnconstrained;
  } else if (t.kind == Kind::kString) {
    dim->kind = ir::SpecDim::Kind::kAxes;
    dim->axes.push_back(t.text);
    offsets->push_back(t.offset);
    r.Next();
  } else if (t.kind == Kind::kPunct && t.text == "(") {
    r.Next();
    dim->kind = ir::SpecDim::Kind::kAxes;
    dim->tuple = true;
    while (!r.IsPunct(")")) {
      if (r.Peek().kind != Kind::kString) return r.ErrorAtNext("expected an axis name in quotes");
      offsets->push_back(r.Peek().offset);
      dim->axes.push_back(r.Next().text);
      if (!r.TakePunct(",")) break;
    }
    RETURN_IF_ERROR(r.ExpectPunct(")", "',' or ')' in a tuple of axis names"));
    if (dim->axes.empty()) dim->kind = ir::SpecDim::Kind::kNone;  // () is None
  } else {
    return r.ErrorAt(t, "expected None, UNCONSTRAINED, an axis name in quotes or a tuple of them");
  }
  return absl::OkStatus();
}

// The entries of P(...) after its '('.
absl::Status ParseSpecEntries(PyReader& r, std::string_view close, ParsedJaxSharding* out) {
  while (!r.IsPunct(close)) {
    const PyToken& t = r.Peek();
    if (t.kind == Kind::kName && (t.text == "unreduced" || t.text == "reduced") && r.IsPunct("=", 1)) {
      const bool unreduced = t.text == "unreduced";
      r.Next();
      r.Next();
      RETURN_IF_ERROR(ParseAxisSet(r, unreduced, out));
      if (!r.TakePunct(",")) break;
      continue;
    }
    ir::SpecDim dim;
    std::vector<size_t> offsets;
    RETURN_IF_ERROR(ParseSpecDim(r, t, &dim, &offsets));
    if (out->spec.dims.size() >= kMaxShardingListLength) return r.ErrorAt(t, "expected fewer spec entries");
    out->spec.dims.push_back(std::move(dim));
    out->axis_offsets.push_back(std::move(offsets));
    if (!r.TakePunct(",")) break;
  }
  out->end_offset = r.Peek().offset;
  return r.ExpectPunct(close, StrCat("',' or '", close, "' in the partition spec"));
}

absl::Status ParseSpec(PyReader& r, ParsedJaxSharding* out) {
  const PyToken& t = r.Peek();
  if (EndsWithName(t, "PartitionSpec") || EndsWithName(t, "P")) {
    r.Next();
    RETURN_IF_ERROR(r.ExpectPunct("(", "'(' after PartitionSpec"));
    return ParseSpecEntries(r, ")", out);
  }
  if (t.kind == Kind::kPunct && (t.text == "(" || t.text == "[")) {
    r.Next();
    return ParseSpecEntries(r, t.text == "(" ? ")" : "]", out);
  }
  return r.ErrorAt(t, "expected PartitionSpec(...), P(...) or a tuple of axis names");
}

absl::Status ParseNamedShardingCall(PyReader& r, ParsedJaxSharding* out) {
  const PyToken& call = r.Peek();
  RETURN_IF_ERROR(r.ExpectPunct("(", "'(' after NamedSharding"));
  bool has_spec = false;
  size_t positional = 0;
  while (!r.IsPunct(")")) {
    const std::string key = r.TakeArgumentName({"mesh", "spec"}, &positional);
    if (key == "mesh") {
      ParsedMesh mesh;
      RETURN_IF_ERROR(ParseMeshTokens(r, &mesh));
      out->mesh = std::move(mesh);
    } else if (key == "spec") {
      RETURN_IF_ERROR(ParseSpec(r, out));
      has_spec = true;
    } else if (key == "memory_kind") {
      const PyToken& v = r.Peek();
      if (v.kind != Kind::kName && v.kind != Kind::kString) return r.ErrorAt(v, "expected a memory kind");
      out->memory_kind = v.text == "None" ? "" : v.text;
      r.Next();
    } else if (key == "logical_device_ids" || key == "_logical_device_ids") {
      std::vector<int64_t> shape;
      if (r.IsName("None")) {
        r.Next();
      } else {
        RETURN_IF_ERROR(r.ExpectIntArray(&shape, &out->logical_device_ids));
      }
    } else {
      RETURN_IF_ERROR(r.SkipValue());
    }
    if (!r.TakePunct(",")) break;
  }
  RETURN_IF_ERROR(r.ExpectPunct(")", "',' or ')' in NamedSharding(...)"));
  if (!out->mesh) return r.ErrorAt(call, "expected mesh= in NamedSharding(...)");
  if (!has_spec) return r.ErrorAt(call, "expected spec= in NamedSharding(...)");
  return absl::OkStatus();
}

absl::Status ParseShapeDtypeStruct(PyReader& r, ParsedJaxSharding* out) {
  const PyToken& call = r.Peek();
  RETURN_IF_ERROR(r.ExpectPunct("(", "'(' after ShapeDtypeStruct"));
  ir::Shape shape;
  bool has_shape = false, has_sharding = false;
  while (!r.IsPunct(")")) {
    if (r.Peek().kind != Kind::kName || !r.IsPunct("=", 1)) return r.ErrorAtNext("expected shape=, dtype= or sharding=");
    const std::string key = r.Next().text;
    r.Next();
    if (key == "shape") {
      std::vector<int64_t> nesting;
      RETURN_IF_ERROR(r.ExpectPunct("(", "'(' to start the shape"));
      while (!r.IsPunct(")")) {
        ASSIGN_OR_RETURN(int64_t d, r.ExpectInt("a dimension size"));
        if (d < 0) return r.ErrorAtNext("expected non-negative dimensions");
        shape.dims.push_back(d);
        if (!r.TakePunct(",")) break;
      }
      RETURN_IF_ERROR(r.ExpectPunct(")", "',' or ')' in the shape"));
      has_shape = true;
    } else if (key == "dtype") {
      const PyToken& v = r.Peek();
      std::string name = v.text;
      if (v.kind == Kind::kName && (v.text == "dtype" || v.text == "np.dtype") && r.IsPunct("(", 1)) {
        r.Next();
        r.Next();
        name = r.Peek().text;
        r.Next();
        RETURN_IF_ERROR(r.ExpectPunct(")", "')'"));
      } else {
        r.Next();
      }
      std::optional<ir::DType> dtype = NumpyDType(name);
      if (!dtype) return r.ErrorAt(v, StrCat("expected a numpy dtype name such as float32, not '", name, "'"));
      shape.dtype = *dtype;
    } else if (key == "sharding") {
      const PyToken& s = r.Peek();
      if (!EndsWithName(s, "NamedSharding")) return r.ErrorAt(s, "expected NamedSharding(...)");
      r.Next();
      RETURN_IF_ERROR(ParseNamedShardingCall(r, out));
      has_sharding = true;
    } else {
      RETURN_IF_ERROR(r.SkipValue());
    }
    if (!r.TakePunct(",")) break;
  }
  RETURN_IF_ERROR(r.ExpectPunct(")", "',' or ')' in ShapeDtypeStruct(...)"));
  if (!has_shape || shape.dtype == ir::DType::kInvalid) return r.ErrorAt(call, "expected shape= and dtype=");
  if (!has_sharding) return r.ErrorAt(call, "expected sharding=NamedSharding(...)");
  out->shape = std::move(shape);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ParsedJaxSharding> ParseJaxShardingText(const SourceText& source) {
  ASSIGN_OR_RETURN(PyReader r, OpenPython(source));
  ParsedJaxSharding out;
  const PyToken& first = r.Peek();
  if (EndsWithName(first, "NamedSharding")) {
    r.Next();
    RETURN_IF_ERROR(ParseNamedShardingCall(r, &out));
  } else if (EndsWithName(first, "ShapeDtypeStruct")) {
    r.Next();
    RETURN_IF_ERROR(ParseShapeDtypeStruct(r, &out));
  } else {
    RETURN_IF_ERROR(ParseSpec(r, &out));
  }
  RETURN_IF_ERROR(ExpectEnd(r, "sharding"));
  return out;
}

absl::Status CheckPartitionSpec(const SourceText& source, const ParsedJaxSharding& parsed,
                                const ir::Mesh& mesh, int64_t rank) {
  const char* base = source.text().data();
  absl::flat_hash_map<std::string, bool> seen;
  auto check = [&](const std::string& axis, size_t offset) -> absl::Status {
    if (!mesh.AxisIndex(axis)) {
      return source.ErrorAt(base + offset, StrCat("axis '", axis, "' is not in the mesh (", mesh.ToString(),
                                                  "); expected one of its axes"));
    }
    if (seen[axis]) {
      return source.ErrorAt(base + offset, StrCat("axis '", axis,
                                                  "' is used twice; expected each mesh axis at most once"));
    }
    seen[axis] = true;
    return absl::OkStatus();
  };
  for (size_t d = 0; d < parsed.spec.dims.size(); ++d) {
    for (size_t a = 0; a < parsed.spec.dims[d].axes.size(); ++a) {
      const size_t offset = d < parsed.axis_offsets.size() && a < parsed.axis_offsets[d].size()
                                ? parsed.axis_offsets[d][a]
                                : 0;
      RETURN_IF_ERROR(check(parsed.spec.dims[d].axes[a], offset));
    }
  }
  for (size_t i = 0; i < parsed.spec.unreduced.size(); ++i) {
    RETURN_IF_ERROR(check(parsed.spec.unreduced[i],
                          i < parsed.unreduced_offsets.size() ? parsed.unreduced_offsets[i] : 0));
  }
  if (static_cast<int64_t>(parsed.spec.dims.size()) > rank) {
    return source.ErrorAt(base + parsed.end_offset,
                          StrCat("the spec has ", parsed.spec.dims.size(), " entries but the array has rank ", rank,
                                 "; expected at most ", rank));
  }
  return absl::OkStatus();
}

}  // namespace memplan::parsers
