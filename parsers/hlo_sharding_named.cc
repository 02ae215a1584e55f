// The named-mesh form of HloSharding text (newer XLA's NamedSharding):
// {mesh['x'=2,'y'=2], [{'x'}, {}], replicated={'y'}}, {maximal_mesh[device_id=5]}.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/strings.h"
#include "parsers/hlo_sharding_reader.h"
#include "parsers/sharding_limits.h"

namespace memplan::parsers::hlo_sharding_text {

// An axis name: 'quoted' or a bare identifier.
bool Reader::ParseAxisName(std::string* name) {
  SkipSpace();
  if (Peek() == '\'' || Peek() == '"') {
    const char quote = Peek();
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return Fail("expected a closing quote");
    *name = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
    if (name->empty()) return Fail("expected a non-empty axis name");
    pos_ = end + 1;
    return true;
  }
  const size_t start = pos_;
  while (pos_ < text_.size() && IsIdentChar(text_[pos_]) && text_[pos_] != '-') ++pos_;
  if (pos_ == start) return Fail("expected an axis name");
  *name = std::string(text_.substr(start, pos_ - start));
  return true;
}

bool Reader::ParseAxisRef(const NamedSharding& named, AxisRef* out) {
  std::string name;
  const size_t at = pos_;
  if (!ParseAxisName(&name)) return false;
  const std::optional<size_t> index = named.mesh.AxisIndex(name);
  if (!index) {
    pos_ = at;
    SkipSpace();
    return Fail(StrCat("expected an axis of the mesh, not '", name, "'"));
  }
  out->mesh_axis = static_cast<int64_t>(*index);
  if (Peek() == ':') {
    ++pos_;
    int64_t pre, size;
    if (!Expect('(', "expected '(' to start a sub-axis pre-size")) return false;
    if (!ParseNonNegative(&pre, "a sub-axis pre-size")) return false;
    if (!Expect(')', "expected ')' after the sub-axis pre-size")) return false;
    if (!ParseNonNegative(&size, "a sub-axis size")) return false;
    out->pre_size = pre;
    out->sub_size = size;
  }
  return true;
}

bool Reader::ParseAxisRefSet(const NamedSharding& named, std::vector<AxisRef>* out) {
  if (!Expect('{', "expected '{' to start a set of axes")) return false;
  SkipSpace();
  if (Peek() == '}') {
    ++pos_;
    return true;
  }
  while (true) {
    AxisRef ref;
    if (!ParseAxisRef(named, &ref)) return false;
    out->push_back(ref);
    SkipSpace();
    if (Peek() == ',') {
      ++pos_;
      continue;
    }
    return Expect('}', "expected ',' or '}' in a set of axes");
  }
}

// {mesh['x'=2,'y'=2](, device_ids=(..))?, [dims](, replicated={..})...}
// or {mesh[..], replicated|unreduced|manual} or {maximal_mesh[device_id=N]}.
bool Reader::ParseNamedBody(HloSharding* out) {
  NamedSharding named;
  if (ConsumeWord("maximal_mesh")) {
    if (!Expect('[', "expected '[' after maximal_mesh")) return false;
    SkipSpace();
    if (!ConsumeWord("device_id=")) return Fail("expected device_id=");
    if (!ParseNonNegative(&named.maximal_device, "a device id")) return false;
    if (!Expect(']', "expected ']'")) return false;
    named.form = NamedSharding::Form::kMaximal;
  } else {
    if (!ConsumeWord("mesh")) return Fail("expected mesh[");
    if (!ParseMeshAxes(&named.mesh)) return false;
    SkipSpace();
    if (Peek() == ',') {
      const size_t comma = pos_;
      ++pos_;
      SkipSpace();
      if (ConsumeWord("device_ids=")) {
        if (!ParseMeshDeviceIds(&named.mesh)) return false;
      } else {
        pos_ = comma;
      }
    }
    if (!Expect(',', "expected ',' after the mesh")) return false;
    SkipSpace();
    if (ConsumeWord("replicated")) {
      named.form = NamedSharding::Form::kReplicated;
    } else if (ConsumeWord("unreduced")) {
      named.form = NamedSharding::Form::kUnreduced;
    } else if (ConsumeWord("manual")) {
      named.form = NamedSharding::Form::kManual;
    } else {
      if (!ParseDimShardings(&named)) return false;
    }
  }
  while (true) {
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      break;
    }
    if (!Expect(',', "expected ',' or '}' in a named sharding")) return false;
    SkipSpace();
    if (ConsumeWord("replicated=")) {
      if (!ParseAxisRefSet(named, &named.replicated_axes)) return false;
    } else if (ConsumeWord("unreduced=")) {
      if (!ParseAxisRefSet(named, &named.unreduced_axes)) return false;
    } else if (ConsumeWord("manual=")) {
      if (!ParseAxisRefSet(named, &named.manual_axes)) return false;
    } else if (ConsumeWord("metadata=")) {
      if (!ParseMetadata(&out->metadata)) return false;
    } else {
      return Fail("expected replicated=, unreduced=, manual= or metadata=");
    }
  }
  out->kind = HloSharding::Kind::kNamed;
  out->named = std::move(named);
  return true;
}

bool Reader::ParseMeshAxes(ir::Mesh* mesh) {
  if (!Expect('[', "expected '[' after mesh")) return false;
  SkipSpace();
  if (Peek() == ']') {
    ++pos_;
    return true;
  }
  int64_t product = 1;
  while (true) {
    ir::MeshAxis axis;
    const size_t at = pos_;
    if (!ParseAxisName(&axis.name)) return false;
    if (mesh->AxisIndex(axis.name)) {
      pos_ = at;
      SkipSpace();
      return Fail(StrCat("expected distinct axis names; '", axis.name, "' appears twice"));
    }
    SkipSpace();
    if (!Expect('=', "expected '=' after the axis name")) return false;
    SkipSpace();
    const size_t size_at = pos_;
    if (!ParseNonNegative(&axis.size, "an axis size")) return false;
    if (axis.size < 1 || product > kMaxShardingDevices / axis.size) {
      pos_ = size_at;
      return Fail(StrCat("expected an axis size of at least 1 and at most ", kMaxShardingDevices,
                         " devices in all"));
    }
    product *= axis.size;
    mesh->axes.push_back(std::move(axis));
    SkipSpace();
    if (Peek() == ',') {
      ++pos_;
      continue;
    }
    return Expect(']', "expected ',' or ']' in the mesh axes");
  }
}

// After "device_ids=": "(8,3,7,...)" or "([4,16]T(1,0))".
bool Reader::ParseMeshDeviceIds(ir::Mesh* mesh) {
  if (!Expect('(', "expected '(' after device_ids=")) return false;
  SkipSpace();
  const size_t at = pos_;
  if (Peek() == '[') {
    ir::IotaDevices iota;
    for (const ir::MeshAxis& axis : mesh->axes) iota.dims.push_back(axis.size);
    if (!ParseIntList('[', ']', &iota.reshape_dims, "iota reshape dimensions")) return false;
    SkipSpace();
    if (Peek() == 'T') {
      ++pos_;
      if (!ParseIntList('(', ')', &iota.transpose_perm, "iota transpose permutation")) return false;
    }
    if (absl::StatusOr<std::vector<int64_t>> expanded = iota.Expand(); !expanded.ok()) {
      pos_ = at;
      return Fail(StrCat("expected device ids that fit the mesh: ", expanded.status().message()));
    }
    mesh->order = ir::Mesh::DeviceOrder::kIotaForm;
    mesh->iota = std::move(iota);
  } else {
    pos_ = at - 1;
    std::vector<int64_t> ids;
    if (!ParseIntList('(', ')', &ids, "device ids", false, static_cast<size_t>(kMaxShardingDevices))) {
      return false;
    }
    mesh->order = ir::Mesh::DeviceOrder::kList;
    mesh->device_list = std::move(ids);
    if (absl::Status valid = mesh->Validate(); !valid.ok()) {
      pos_ = at;
      return Fail(StrCat("expected device ids that fit the mesh: ", valid.message()));
    }
    return true;
  }
  SkipSpace();
  return Expect(')', "expected ')' after the device ids");
}

bool Reader::ParseDimShardings(NamedSharding* named) {
  if (!Expect('[', "expected '[' to start the dimension shardings, or replicated/unreduced/manual"))
    return false;
  SkipSpace();
  if (Peek() == ']') {
    ++pos_;
    return true;
  }
  while (true) {
    SkipSpace();
    if (named->dims.size() >= kMaxShardingListLength) return Fail("expected fewer dimensions");
    NamedSharding::DimSharding dim;
    if (!Expect('{', "expected '{' to start a dimension sharding")) return false;
    while (true) {
      SkipSpace();
      if (Peek() == '}') {
        ++pos_;
        break;
      }
      if (Peek() == '?') {
        ++pos_;
        dim.closed = false;
        SkipSpace();
        if (!Expect('}', "expected '}' after '?'")) return false;
        break;
      }
      AxisRef ref;
      if (!ParseAxisRef(*named, &ref)) return false;
      dim.axes.push_back(ref);
      SkipSpace();
      if (Peek() == ',') ++pos_;
      else if (Peek() != '}') return Fail("expected ',' or '}' in a dimension sharding");
    }
    named->dims.push_back(std::move(dim));
    SkipSpace();
    if (Peek() == ',') {
      ++pos_;
      continue;
    }
    return Expect(']', "expected ',' or ']' after a dimension sharding");
  }
}

}  // namespace memplan::parsers::hlo_sharding_text
