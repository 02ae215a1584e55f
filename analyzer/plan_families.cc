#include "analyzer/plan_families.h"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "ir/partition_spec.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::analyzer {
namespace {

constexpr std::string_view kFamilyAxes[] = {"dp", "fsdp", "tp", "ep"};

bool IsDataAxis(std::string_view axis) { return axis == "dp" || axis == "fsdp" || axis == "ep"; }

std::string Describe(const ir::EntryArgument& argument) {
  return StrCat("argument ", argument.parameter, " (",
                argument.name.empty() ? std::string("unnamed") : argument.name, ", ",
                ir::ShapeToString(argument.shape, false), ")");
}

// Ways dimension `d` of `spec` is split on `mesh`.
int64_t Ways(const ir::Mesh& mesh, const ir::SpecDim& dim) {
  int64_t ways = 1;
  for (const std::string& axis : dim.axes) ways *= mesh.axes[*mesh.AxisIndex(axis)].size;
  return ways;
}

void SetAxis(ir::SpecDim& dim, const std::string& axis) {
  dim.kind = ir::SpecDim::Kind::kAxes;
  dim.axes = {axis};
  dim.tuple = false;
}

// Rule 2: the tp rule a parameter matches, if any.
absl::StatusOr<const ir::TpRule*> MatchTp(const ir::EntryArgument& argument,
                                          const std::vector<ir::TpRule>& rules) {
  const ir::TpRule* found = nullptr;
  for (const ir::TpRule& rule : rules) {
    if (!ir::GlobMatches(rule.glob, argument.name)) continue;
    if (found != nullptr) {
      return absl::InvalidArgumentError(StrCat(Describe(argument), " matches the tp globs '", found->glob,
                                               "' and '", rule.glob, "'; expected at most one"));
    }
    found = &rule;
  }
  return found;
}

absl::Status ApplyTp(const ir::EntryArgument& argument, const ir::TpRule& rule, bool is_data,
                     ir::PartitionSpec& spec) {
  const int64_t rank = static_cast<int64_t>(argument.shape.dims.size());
  int64_t dim = -1;
  switch (rule.style) {
    case ir::TpStyle::kColwise:
      if (is_data) return absl::OkStatus();
      if (rank < 1) {
        return absl::InvalidArgumentError(StrCat(Describe(argument), " is a scalar; colwise glob '",
                                                 rule.glob, "' expected an array"));
      }
      dim = rank - 1;
      break;
    case ir::TpStyle::kRowwise:
      if (is_data) return absl::OkStatus();
      if (rank < 2) {
        return absl::InvalidArgumentError(StrCat(Describe(argument), " has rank ", rank,
                                                 "; rowwise glob '", rule.glob,
                                                 "' expected rank 2 or more"));
      }
      dim = rank - 2;
      break;
    case ir::TpStyle::kSequence:
      if (!is_data || rank < 2) return absl::OkStatus();
      dim = 1;
      break;
  }
  SetAxis(spec.dims[dim], "tp");
  return absl::OkStatus();
}

// Rule 4: the largest unsharded dimension divisible by `size`, ties to the
// earliest; -1 when none.
int64_t FsdpDimension(const ir::Shape& shape, const ir::PartitionSpec& spec, int64_t size) {
  int64_t best = -1;
  for (size_t d = 0; d < shape.dims.size(); ++d) {
    if (spec.dims[d].kind != ir::SpecDim::Kind::kNone || shape.dims[d] % size != 0) continue;
    if (best < 0 || shape.dims[d] > shape.dims[best]) best = static_cast<int64_t>(d);
  }
  return best;
}

absl::StatusOr<ir::PartitionSpec> ArgumentSpec(const ir::EntryArgument& argument, const ir::Mesh& mesh,
                                               const ir::FamilyInputs& inputs) {
  const ir::Shape& shape = argument.shape;
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(StrCat(Describe(argument), " is not an array"));
  }
  const size_t rank = shape.dims.size();
  ir::PartitionSpec spec;
  spec.dims.resize(rank);
  const std::string_view top = ir::PytreeTop(argument.name);
  const bool is_data = !argument.name.empty() &&
                       std::find(inputs.data.begin(), inputs.data.end(), top) != inputs.data.end();
  const bool has_tp = mesh.AxisIndex("tp").has_value();
  if (is_data) {
    // Rule 1: the leading dimension over the data axes, in mesh order.
    ir::SpecDim data;
    for (const ir::MeshAxis& axis : mesh.axes) {
      if (IsDataAxis(axis.name)) data.axes.push_back(axis.name);
    }
    if (rank >= 1 && !data.axes.empty()) {
      data.kind = ir::SpecDim::Kind::kAxes;
      data.tuple = data.axes.size() > 1;
      spec.dims[0] = std::move(data);
    }
  } else if (mesh.AxisIndex("ep").has_value()) {
    // Rule 3: expert parameters on their leading dimension.
    const bool expert = std::any_of(inputs.ep.begin(), inputs.ep.end(), [&](const std::string& glob) {
      return ir::GlobMatches(glob, argument.name);
    });
    if (expert && rank >= 1) SetAxis(spec.dims[0], "ep");
  }
  if (has_tp) {
    ASSIGN_OR_RETURN(const ir::TpRule* rule, MatchTp(argument, inputs.tp));
    if (rule != nullptr) {
      const ir::PartitionSpec before = spec;
      RETURN_IF_ERROR(ApplyTp(argument, *rule, is_data, spec));
      for (size_t d = 0; d < rank; ++d) {
        if (before.dims[d].kind != ir::SpecDim::Kind::kNone && !(before.dims[d] == spec.dims[d])) {
          return absl::InvalidArgumentError(StrCat(Describe(argument), ": tp glob '", rule->glob,
                                                   "' wants dimension ", d,
                                                   ", already sharded; expected another dimension"));
        }
      }
    }
  }
  if (const auto fsdp = mesh.AxisIndex("fsdp"); fsdp.has_value() && !is_data &&
                                                 shape.ElementCount() >= inputs.min_fsdp_elements) {
    const int64_t d = FsdpDimension(shape, spec, mesh.axes[*fsdp].size);
    if (d >= 0) SetAxis(spec.dims[d], "fsdp");
  }
  for (size_t d = 0; d < rank; ++d) {
    const int64_t ways = Ways(mesh, spec.dims[d]);
    if (shape.dims[d] % ways != 0) {
      return absl::InvalidArgumentError(StrCat(Describe(argument), ": dimension ", d, " of size ",
                                               shape.dims[d], " does not divide by ", ways,
                                               "; expected a dimension that divides"));
    }
  }
  return spec;
}

// A plan key of an argument: its name, or its parameter number when unnamed
// (what a written plan file keys it by).
std::string Key(int64_t parameter, const std::string& name) {
  return name.empty() ? StrCat(parameter) : name;
}

// Specs lowered to HloShardings on one mesh, each distinct (spec, rank)
// once, interned into a plan's table.
class LoweredSpecs {
 public:
  explicit LoweredSpecs(const ir::Mesh& mesh) { named_.mesh = mesh; }

  absl::StatusOr<int32_t> Index(const ir::PartitionSpec& spec, int64_t rank, ir::ShardingTable& table) {
    for (const Entry& e : done_) {
      if (e.rank == rank && e.spec == spec) return e.index;
    }
    named_.spec = spec;
    ASSIGN_OR_RETURN(ir::HloSharding sharding, ir::PartitionSpecToHloSharding(named_, rank));
    const int32_t index = table.Intern(std::move(sharding));
    done_.push_back({spec, rank, index});
    return index;
  }

 private:
  struct Entry {
    ir::PartitionSpec spec;
    int64_t rank;
    int32_t index;
  };
  ir::JaxNamedSharding named_;
  std::vector<Entry> done_;
};

// What ArgumentSpec reads of an argument: its shape's array-ness and
// dimensions, and which data, expert and tp rules its name matches (the
// first two tp globs: a second is an error).
using ClassKey = std::tuple<bool, std::vector<int64_t>, bool, bool, int, int>;

ClassKey KeyOf(const ir::EntryArgument& argument, const ir::FamilyInputs& inputs) {
  const std::string_view top = ir::PytreeTop(argument.name);
  const bool is_data = !argument.name.empty() &&
                       std::find(inputs.data.begin(), inputs.data.end(), top) != inputs.data.end();
  const bool expert = std::any_of(inputs.ep.begin(), inputs.ep.end(), [&](const std::string& glob) {
    return ir::GlobMatches(glob, argument.name);
  });
  int tp[2] = {-1, -1};
  int found = 0;
  for (size_t r = 0; r < inputs.tp.size() && found < 2; ++r) {
    if (ir::GlobMatches(inputs.tp[r].glob, argument.name)) tp[found++] = static_cast<int>(r);
  }
  return {argument.shape.IsArray(), argument.shape.dims, is_data, expert, tp[0], tp[1]};
}

// BuildFamilyPlan's checks of the mesh.
absl::Status CheckRuleMesh(const ir::Mesh& mesh) {
  RETURN_IF_ERROR(mesh.Validate());
  for (const ir::MeshAxis& axis : mesh.axes) {
    if (std::find(std::begin(kFamilyAxes), std::end(kFamilyAxes), axis.name) == std::end(kFamilyAxes)) {
      return absl::InvalidArgumentError(StrCat("mesh axis '", axis.name,
                                               "' names no family rule; expected dp, fsdp, tp or ep"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> FamilyAxes(std::string_view family) {
  std::vector<std::string> axes;
  size_t start = 0;
  while (true) {
    const size_t plus = family.find('+', start);
    const std::string_view part =
        family.substr(start, plus == std::string_view::npos ? std::string_view::npos : plus - start);
    if (std::find(std::begin(kFamilyAxes), std::end(kFamilyAxes), part) == std::end(kFamilyAxes)) {
      return absl::InvalidArgumentError(StrCat("unknown family part '", part,
                                               "'; expected dp, fsdp, tp or ep joined by '+'"));
    }
    if (std::find(axes.begin(), axes.end(), part) != axes.end()) {
      return absl::InvalidArgumentError(StrCat("family part '", part, "' is named twice"));
    }
    axes.emplace_back(part);
    if (plus == std::string_view::npos) break;
    start = plus + 1;
  }
  return axes;
}

absl::Status CheckFamilyMesh(const std::vector<std::string>& family_axes, const ir::Mesh& mesh) {
  std::vector<std::string> names;
  for (const ir::MeshAxis& axis : mesh.axes) names.push_back(axis.name);
  std::vector<std::string> want = family_axes;
  std::sort(names.begin(), names.end());
  std::sort(want.begin(), want.end());
  if (names == want) return absl::OkStatus();
  std::string list;
  for (const std::string& axis : family_axes) StrAppend(&list, list.empty() ? "" : ", ", axis);
  return absl::InvalidArgumentError(StrCat("the mesh ", mesh.ToString(), " does not have the family's axes; ",
                                           "expected exactly ", list));
}

std::string FamilyLabel(const ir::Mesh& mesh) {
  std::string label;
  for (const ir::MeshAxis& axis : mesh.axes) StrAppend(&label, label.empty() ? "" : "_", axis.name, axis.size);
  return label;
}

absl::StatusOr<ir::SpecPlan> BuildFamilyPlan(const std::vector<ir::EntryArgument>& arguments,
                                             const ir::Mesh& mesh, const ir::FamilyInputs& inputs) {
  RETURN_IF_ERROR(CheckRuleMesh(mesh));
  ir::SpecPlan plan;
  plan.mesh = mesh;
  plan.label = FamilyLabel(mesh);
  plan.arguments.reserve(arguments.size());
  for (const ir::EntryArgument& argument : arguments) {
    ir::SpecPlanArgument out;
    out.parameter = argument.parameter;
    out.name = argument.name;
    out.shape = argument.shape;
    out.donated = argument.donated;
    ASSIGN_OR_RETURN(out.spec, ArgumentSpec(argument, mesh, inputs));
    plan.arguments.push_back(std::move(out));
  }
  return plan;
}

absl::StatusOr<ir::ResolvedPlan> LowerSpecPlan(const ir::SpecPlan& plan) {
  RETURN_IF_ERROR(plan.mesh.Validate());
  ir::ResolvedPlan out;
  out.mesh = plan.mesh;
  out.label = plan.label;
  auto labels = std::make_shared<ir::ArgumentLabels>();
  labels->names.reserve(plan.arguments.size());
  labels->keys.reserve(plan.arguments.size());
  out.arguments.reserve(plan.arguments.size());
  LoweredSpecs lowered(plan.mesh);
  for (const ir::SpecPlanArgument& argument : plan.arguments) {
    ir::ArgumentPlan a;
    a.parameter = argument.parameter;
    a.source = ir::PlanSource::kKey;
    a.donated = argument.donated;
    absl::StatusOr<int32_t> index =
        lowered.Index(argument.spec, static_cast<int64_t>(argument.shape.dims.size()), out.shardings);
    if (!index.ok()) {
      return absl::InvalidArgumentError(StrCat("argument ", argument.parameter, " (", argument.name,
                                               "): ", FromAbsl(index.status().message())));
    }
    a.sharding_index = *index;
    out.arguments.push_back(a);
    labels->names.push_back(argument.name);
    labels->keys.push_back(Key(argument.parameter, argument.name));
  }
  out.labels = std::move(labels);
  return out;
}

FamilyArguments::FamilyArguments(const std::vector<ir::EntryArgument>& arguments,
                                 ir::FamilyInputs inputs)
    : inputs_(std::move(inputs)) {
  auto labels = std::make_shared<ir::ArgumentLabels>();
  std::map<ClassKey, int32_t> classes;
  for (const ir::EntryArgument& argument : arguments) {
    auto [it, added] = classes.try_emplace(KeyOf(argument, inputs_),
                                           static_cast<int32_t>(representatives_.size()));
    if (added) representatives_.push_back(argument);
    class_of_.push_back(it->second);
    parameters_.push_back(argument.parameter);
    donated_.push_back(argument.donated);
    labels->names.push_back(argument.name);
    labels->keys.push_back(Key(argument.parameter, argument.name));
  }
  labels_ = std::move(labels);
}

absl::StatusOr<ir::ResolvedPlan> FamilyArguments::Plan(const ir::Mesh& mesh) const {
  RETURN_IF_ERROR(CheckRuleMesh(mesh));
  // Every class's spec first, then the lowering: BuildFamilyPlan's errors
  // come before LowerSpecPlan's. A class's first argument is the first of
  // its class, so the first class that fails names the first argument that
  // would.
  std::vector<ir::PartitionSpec> specs;
  specs.reserve(representatives_.size());
  for (const ir::EntryArgument& argument : representatives_) {
    ASSIGN_OR_RETURN(ir::PartitionSpec spec, ArgumentSpec(argument, mesh, inputs_));
    specs.push_back(std::move(spec));
  }
  ir::ResolvedPlan out;
  out.mesh = mesh;
  out.label = FamilyLabel(mesh);
  // Classes in order of first appearance: the table's entries come in the
  // order the arguments first use them, as LowerSpecPlan interns them.
  LoweredSpecs lowered(mesh);
  std::vector<int32_t> index_of(representatives_.size());
  for (size_t k = 0; k < representatives_.size(); ++k) {
    const ir::EntryArgument& a = representatives_[k];
    absl::StatusOr<int32_t> index =
        lowered.Index(specs[k], static_cast<int64_t>(a.shape.dims.size()), out.shardings);
    if (!index.ok()) {
      return absl::InvalidArgumentError(StrCat("argument ", a.parameter, " (", a.name, "): ",
                                               FromAbsl(index.status().message())));
    }
    index_of[k] = *index;
  }
  out.arguments.resize(class_of_.size());
  for (size_t i = 0; i < class_of_.size(); ++i) {
    ir::ArgumentPlan& a = out.arguments[i];
    a.parameter = parameters_[i];
    a.sharding_index = index_of[static_cast<size_t>(class_of_[i])];
    a.source = ir::PlanSource::kKey;
    a.donated = donated_[i];
  }
  out.labels = labels_;
  return out;
}

}  // namespace memplan::analyzer
