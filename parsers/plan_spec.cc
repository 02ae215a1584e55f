#include "parsers/plan_spec.h"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "ir/partition_spec.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/jax_sharding_parser.h"

namespace memplan::parsers {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

const char* AtOffset(const SourceText& source, size_t offset) {
  return source.text().data() + std::min(offset, source.text().size());
}

// Where character `i` of an embedded text stands in the plan.
size_t PlanOffset(const EmbeddedText& text, size_t i) {
  return text.exact ? text.base + std::min(i, text.value.size()) : text.base;
}

absl::Status ParseHloShardingValue(const EmbeddedText& text, PlanSpec* spec) {
  std::string_view value = text.value;
  size_t skipped = 0;
  const size_t start = value.find_first_not_of(" \t");
  if (start != std::string_view::npos && value.substr(start).substr(0, 9) == "sharding=") {
    skipped = start + 9;
    value.remove_prefix(skipped);
  }
  size_t consumed = 0;
  absl::StatusOr<ir::HloSharding> parsed = ParseHloSharding(value, &consumed);
  if (!parsed.ok()) {
    return text.source->ErrorAt(AtOffset(*text.source, PlanOffset(text, skipped + consumed)),
                                FromAbsl(parsed.status().message()));
  }
  if (!Trim(value.substr(consumed)).empty()) {
    return text.source->ErrorAt(AtOffset(*text.source, PlanOffset(text, skipped + consumed)),
                                "expected the end of the HloSharding");
  }
  absl::StatusOr<ir::HloSharding> canonical = ir::CanonicalHloSharding(*parsed);
  if (!canonical.ok()) {
    return text.source->ErrorAt(AtOffset(*text.source, text.base),
                                StrCat("expected a consistent HloSharding: ",
                                       FromAbsl(canonical.status().message())));
  }
  spec->form = PlanSpec::Form::kHloSharding;
  spec->sharding = *std::move(canonical);
  spec->sharding.metadata.clear();
  return absl::OkStatus();
}

absl::Status ParseReprValue(const EmbeddedText& text, PlanSpec* spec) {
  const auto inner = SourceText::FromString(std::string(kEmbeddedName), text.value);
  absl::StatusOr<ParsedJaxSharding> parsed = ParseJaxShardingText(*inner);
  if (!parsed.ok()) return Relocate(parsed.status(), text);
  if (!parsed->spec.unreduced.empty() || !parsed->spec.reduced.empty()) {
    return text.source->ErrorAt(AtOffset(*text.source, text.base),
                                "expected a PartitionSpec without unreduced or reduced axes for an "
                                "argument");
  }
  spec->form = PlanSpec::Form::kPartitionSpec;
  spec->spec = parsed->spec;
  spec->axis_offsets.clear();
  for (const std::vector<size_t>& dim : parsed->axis_offsets) {
    std::vector<size_t> offsets;
    for (size_t offset : dim) offsets.push_back(PlanOffset(text, offset));
    spec->axis_offsets.push_back(std::move(offsets));
  }
  spec->dim_offsets.assign(spec->spec.dims.size(), text.base);
  spec->end_offset = PlanOffset(text, parsed->end_offset);
  if (parsed->mesh.has_value()) spec->repr_mesh = parsed->mesh->mesh;
  return absl::OkStatus();
}

}  // namespace

absl::Status Relocate(const absl::Status& error, const EmbeddedText& text) {
  // The inner message is "<plan value>:LINE:COL: error: MESSAGE\n<line>\n<caret>".
  const std::string_view message = FromAbsl(error.message());
  std::string_view rest = message;
  size_t offset = 0;
  std::string_view what = message;
  if (rest.substr(0, kEmbeddedName.size()) == kEmbeddedName && rest.size() > kEmbeddedName.size() &&
      rest[kEmbeddedName.size()] == ':') {
    rest.remove_prefix(kEmbeddedName.size() + 1);
    const size_t colon1 = rest.find(':');
    const size_t colon2 = colon1 == std::string_view::npos ? colon1 : rest.find(':', colon1 + 1);
    int64_t line = 0, column = 0;
    if (colon2 != std::string_view::npos &&
        absl::SimpleAtoi(ToAbsl(rest.substr(0, colon1)), &line) &&
        absl::SimpleAtoi(ToAbsl(rest.substr(colon1 + 1, colon2 - colon1 - 1)), &column)) {
      if (line == 1 && column >= 1) offset = static_cast<size_t>(column - 1);
      what = rest.substr(colon2 + 1);
      const std::string_view kError = " error: ";
      if (what.substr(0, kError.size()) == kError) what.remove_prefix(kError.size());
    }
  }
  what = what.substr(0, what.find('\n'));
  return text.source->ErrorAt(AtOffset(*text.source, PlanOffset(text, offset)), what);
}

absl::Status ParseSpecText(const EmbeddedText& text, PlanSpec* spec) {
  const std::string_view value = Trim(text.value);
  if (value.empty()) {
    return text.source->ErrorAt(AtOffset(*text.source, text.base),
                                "expected a spec: a list such as [dp, null], a PartitionSpec repr "
                                "or an HloSharding in quotes");
  }
  if (value.front() == '{' || value.substr(0, 9) == "sharding=") {
    return ParseHloShardingValue(text, spec);
  }
  return ParseReprValue(text, spec);
}

absl::Status CheckSpecAxes(const SourceText& source, const ir::Mesh& mesh, const PlanSpec& spec) {
  if (spec.form == PlanSpec::Form::kHloSharding) {
    const ir::HloSharding& sharding = spec.sharding;
    if (sharding.kind == ir::HloSharding::Kind::kReplicated) return absl::OkStatus();
    if (sharding.kind == ir::HloSharding::Kind::kMaximal) {
      if (sharding.maximal_device < mesh.device_count()) return absl::OkStatus();
      return source.ErrorAt(AtOffset(source, spec.offset),
                            StrCat("expected a device below ", mesh.device_count(), " (the mesh ",
                                   mesh.ToString(), ")"));
    }
    if (sharding.kind != ir::HloSharding::Kind::kTiled) {
      return source.ErrorAt(AtOffset(source, spec.offset),
                            "expected a replicated, maximal or tiled HloSharding for an array");
    }
    if (sharding.tiles.device_count() != mesh.device_count()) {
      return source.ErrorAt(AtOffset(source, spec.offset),
                            StrCat("expected an HloSharding over the mesh's ", mesh.device_count(),
                                   " devices, found ", sharding.tiles.device_count()));
    }
    return absl::OkStatus();
  }
  if (spec.repr_mesh.has_value() && spec.repr_mesh->axes != mesh.axes) {
    return source.ErrorAt(AtOffset(source, spec.offset),
                          StrCat("expected the sharding's mesh to be the plan's (", mesh.ToString(),
                                 "), found ", spec.repr_mesh->ToString()));
  }
  std::set<std::string> seen;
  for (size_t d = 0; d < spec.spec.dims.size(); ++d) {
    const ir::SpecDim& dim = spec.spec.dims[d];
    const size_t dim_at = d < spec.dim_offsets.size() ? spec.dim_offsets[d] : spec.offset;
    if (dim.kind == ir::SpecDim::Kind::kUnconstrained) {
      return source.ErrorAt(AtOffset(source, dim_at),
                            "expected None or mesh axes (UNCONSTRAINED is not a placement for an "
                            "argument)");
    }
    for (size_t a = 0; a < dim.axes.size(); ++a) {
      const size_t at = d < spec.axis_offsets.size() && a < spec.axis_offsets[d].size()
                            ? spec.axis_offsets[d][a]
                            : dim_at;
      if (!mesh.AxisIndex(dim.axes[a])) {
        std::string names;
        for (const ir::MeshAxis& axis : mesh.axes) StrAppend(&names, names.empty() ? "" : ", ", axis.name);
        return source.ErrorAt(AtOffset(source, at),
                              StrCat("axis '", dim.axes[a], "' is not in the mesh; expected one of ",
                                     names, " or null"));
      }
      if (!seen.insert(dim.axes[a]).second) {
        return source.ErrorAt(AtOffset(source, at),
                              StrCat("axis '", dim.axes[a],
                                     "' is used twice; expected each mesh axis at most once per spec"));
      }
    }
  }
  return absl::OkStatus();
}

namespace {

// LowerSpec for a spec written as an HloSharding: the sharding itself,
// once its tiles match `shape`'s rank and divide its dimensions.
absl::StatusOr<ir::HloSharding> LowerHloShardingSpec(const SourceText& source, const PlanSpec& spec,
                                                     const ir::Shape& shape,
                                                     std::string_view what) {
  const int64_t rank = static_cast<int64_t>(shape.dims.size());
  const ir::HloSharding& sharding = spec.sharding;
  if (sharding.kind != ir::HloSharding::Kind::kTiled) return sharding;
  if (sharding.TiledDataRank() != rank) {
    return source.ErrorAt(AtOffset(source, spec.offset),
                          StrCat("the HloSharding tiles ", sharding.TiledDataRank(),
                                 " dimensions; expected ", rank, " for ", what));
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (shape.dims[d] % sharding.tiles.dims[d] != 0) {
      return source.ErrorAt(AtOffset(source, spec.offset),
                            StrCat("dimension ", d, " of ", what, " has size ", shape.dims[d],
                                   ", which does not divide by ", sharding.tiles.dims[d],
                                   "; expected a dimension that divides (JAX refuses uneven "
                                   "argument shards)"));
    }
  }
  return sharding;
}

// LowerSpec for a list or PartitionSpec: as many entries as `shape`'s rank
// (a list) or at most that many (a PartitionSpec), each dimension dividing
// by its entry's axes, lowered as JAX would.
absl::StatusOr<ir::HloSharding> LowerPartitionSpec(const SourceText& source, const ir::Mesh& mesh,
                                                   const PlanSpec& spec, const ir::Shape& shape,
                                                   std::string_view what) {
  const int64_t rank = static_cast<int64_t>(shape.dims.size());
  const int64_t entries = static_cast<int64_t>(spec.spec.dims.size());
  if ((spec.form == PlanSpec::Form::kList && entries != rank) || entries > rank) {
    return source.ErrorAt(
        AtOffset(source, spec.form == PlanSpec::Form::kList ? spec.offset : spec.end_offset),
        StrCat("the spec has ", entries, " entries; expected ",
               spec.form == PlanSpec::Form::kList ? "" : "at most ", rank, " (the rank of ", what,
               ")"));
  }
  // Divisibility, located at the offending entry.
  for (int64_t d = 0; d < entries; ++d) {
    int64_t ways = 1;
    for (const std::string& axis : spec.spec.dims[d].axes) ways *= mesh.axes[*mesh.AxisIndex(axis)].size;
    if (shape.dims[d] % ways != 0) {
      return source.ErrorAt(
          AtOffset(source, static_cast<size_t>(d) < spec.dim_offsets.size() ? spec.dim_offsets[d]
                                                                              : spec.offset),
          StrCat("dimension ", d, " of ", what, " has size ", shape.dims[d],
                 ", which does not divide by ", ways, "; expected a dimension that divides (JAX "
                 "refuses uneven argument shards)"));
    }
  }
  ir::JaxNamedSharding named;
  named.mesh = mesh;
  named.spec = spec.spec;
  absl::StatusOr<ir::HloSharding> lowered = ir::PartitionSpecToHloSharding(named, rank);
  if (!lowered.ok()) {
    return source.ErrorAt(AtOffset(source, spec.offset),
                          StrCat("expected a spec JAX can lower: ", FromAbsl(lowered.status().message())));
  }
  return *std::move(lowered);
}

}  // namespace

absl::StatusOr<ir::HloSharding> LowerSpec(const SourceText& source, const ir::Mesh& mesh,
                                          const PlanSpec& spec, const ir::Shape& shape,
                                          std::string_view what) {
  if (!shape.IsArray()) {
    return source.ErrorAt(AtOffset(source, spec.offset),
                          StrCat("expected an array for ", what, ", found a tuple"));
  }
  if (spec.form == PlanSpec::Form::kHloSharding) return LowerHloShardingSpec(source, spec, shape, what);
  return LowerPartitionSpec(source, mesh, spec, shape, what);
}

}  // namespace memplan::parsers
