#include "parsers/dtensor_parser.h"

#include <utility>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/python_repr.h"
#include "parsers/sharding_limits.h"

namespace memplan::parsers {
namespace {

using Kind = PyToken::Kind;

bool IsOneOf(const PyToken& t, std::initializer_list<std::string_view> names) {
  if (t.kind != Kind::kName) return false;
  std::string_view text = t.text;
  const size_t dot = text.rfind('.');
  if (dot != std::string_view::npos) text = text.substr(dot + 1);
  for (std::string_view n : names) {
    if (text == n) return true;
  }
  return false;
}

// Arguments of Shard(0), Shard(dim=0), _StridedShard(dim=0, sf=2),
// _StridedShard(0, split_factor=2), _S(0, 2).
absl::Status ParseShardArgs(PyReader& r, bool strided, ir::Placement* out) {
  RETURN_IF_ERROR(r.ExpectPunct("(", "'(' after the placement"));
  size_t positional = 0;
  bool has_dim = false, has_factor = false;
  while (!r.IsPunct(")")) {
    const std::string key = r.TakeArgumentName({"dim", "split_factor"}, &positional);
    if (key == "dim") {
      ASSIGN_OR_RETURN(out->dim, r.ExpectInt("the tensor dimension to shard"));
      has_dim = true;
    } else if (strided && (key == "split_factor" || key == "sf")) {
      ASSIGN_OR_RETURN(out->split_factor, r.ExpectInt("a split factor"));
      if (out->split_factor < 1) return r.ErrorAtNext("expected a split factor of at least 1");
      has_factor = true;
    } else {
      return r.ErrorAtNext(strided ? "expected dim= or split_factor=" : "expected dim=");
    }
    if (!r.TakePunct(",")) break;
  }
  RETURN_IF_ERROR(r.ExpectPunct(")", "')' to close the placement"));
  if (!has_dim) return r.ErrorAtNext("expected the tensor dimension to shard");
  if (strided && !has_factor) return r.ErrorAtNext("expected a split factor");
  return absl::OkStatus();
}

absl::StatusOr<ir::Placement> ParsePlacement(PyReader& r) {
  const PyToken& t = r.Peek();
  ir::Placement p;
  if (IsOneOf(t, {"Shard", "S"})) {
    r.Next();
    p.kind = ir::Placement::Kind::kShard;
    RETURN_IF_ERROR(ParseShardArgs(r, false, &p));
  } else if (IsOneOf(t, {"_StridedShard", "StridedShard", "_S"})) {
    r.Next();
    p.kind = ir::Placement::Kind::kStridedShard;
    RETURN_IF_ERROR(ParseShardArgs(r, true, &p));
  } else if (IsOneOf(t, {"Replicate", "R"})) {
    r.Next();
    p.kind = ir::Placement::Kind::kReplicate;
    if (r.TakePunct("(")) RETURN_IF_ERROR(r.ExpectPunct(")", "')': Replicate() takes no arguments"));
  } else if (IsOneOf(t, {"Partial", "P", "_Partial"})) {
    r.Next();
    p.kind = ir::Placement::Kind::kPartial;
    if (r.TakePunct("(")) {
      if (r.Peek().kind == Kind::kName && r.IsPunct("=", 1)) {
        if (r.Peek().text != "reduce_op") return r.ErrorAtNext("expected reduce_op=");
        r.Next();
        r.Next();
      }
      if (!r.IsPunct(")")) {
        const PyToken& op = r.Peek();
        if (op.kind != Kind::kName && op.kind != Kind::kString) return r.ErrorAt(op, "expected a reduce op such as sum");
        p.reduce_op = op.text;
        r.Next();
      }
      RETURN_IF_ERROR(r.ExpectPunct(")", "')' to close Partial("));
    }
  } else {
    return r.ErrorAt(t, "expected a placement: Shard(dim), Replicate(), Partial(op) or _StridedShard(dim, sf)");
  }
  return p;
}

absl::Status ParsePlacementList(PyReader& r, ParsedPlacements* out) {
  const bool list = r.IsPunct("[") || r.IsPunct("(");
  std::string close;
  if (list) close = r.Next().text == "[" ? "]" : ")";
  while (!list || !r.IsPunct(close)) {
    if (out->placements.size() >= kMaxShardingListLength) return r.ErrorAtNext("expected fewer placements");
    out->offsets.push_back(r.Peek().offset);
    ASSIGN_OR_RETURN(ir::Placement p, ParsePlacement(r));
    out->placements.push_back(std::move(p));
    if (!list || !r.TakePunct(",")) break;
  }
  if (list) RETURN_IF_ERROR(r.ExpectPunct(close, StrCat("',' or '", close, "' after a placement")));
  return absl::OkStatus();
}

// DTensor(local_tensor=..., device_mesh=DeviceMesh(...), placements=(...))
// and DTensorSpec(mesh=DeviceMesh(...), placements=(...), tensor_meta=...).
absl::Status ParseDTensorRepr(PyReader& r, ParsedPlacements* out) {
  const PyToken& call = r.Next();
  RETURN_IF_ERROR(r.ExpectPunct("(", "'('"));
  bool has_placements = false;
  while (!r.IsPunct(")")) {
    if (r.Peek().kind != Kind::kName || !r.IsPunct("=", 1)) {
      RETURN_IF_ERROR(r.SkipValue());
    } else {
      const std::string key = r.Next().text;
      r.Next();
      if (key == "placements") {
        RETURN_IF_ERROR(ParsePlacementList(r, out));
        has_placements = true;
      } else if (key == "device_mesh" || key == "mesh") {
        ParsedMesh mesh;
        RETURN_IF_ERROR(ParseMeshTokens(r, &mesh));
        out->mesh = std::move(mesh);
      } else {
        RETURN_IF_ERROR(r.SkipValue());
      }
    }
    if (!r.TakePunct(",")) break;
  }
  RETURN_IF_ERROR(r.ExpectPunct(")", "',' or ')'"));
  if (!has_placements) return r.ErrorAt(call, "expected placements=");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ParsedPlacements> ParseDTensorPlacements(const SourceText& source) {
  ASSIGN_OR_RETURN(std::vector<PyToken> tokens, TokenizePython(source));
  PyReader r(source, std::move(tokens));
  ParsedPlacements out;
  if (IsOneOf(r.Peek(), {"DTensor", "DTensorSpec"})) {
    RETURN_IF_ERROR(ParseDTensorRepr(r, &out));
  } else {
    RETURN_IF_ERROR(ParsePlacementList(r, &out));
  }
  if (!r.AtEnd()) return r.ErrorAtNext("expected the end of the placements");
  if (out.placements.empty()) return r.ErrorAtNext("expected at least one placement");
  if (out.mesh) {
    if (absl::Status valid = out.mesh->mesh.Validate(); !valid.ok()) {
      return source.ErrorAt(source.text().data(), StrCat("expected a valid mesh: ", valid.message()));
    }
  }
  return out;
}

}  // namespace memplan::parsers
