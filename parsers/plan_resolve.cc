// ResolvePlan (parsers/plan_parser.h): a parsed plan matched to a program's
// entry arguments by name, glob or parameter number.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/plan_parser.h"
#include "parsers/plan_spec.h"

namespace memplan::parsers {
namespace {

const char* AtOffset(const SourceText& source, size_t offset) {
  return source.text().data() + std::min(offset, source.text().size());
}

// The arguments `key` selects, in parameter order.
std::vector<int64_t> Select(const PlanKey& key, const std::vector<ir::EntryArgument>& arguments) {
  std::vector<int64_t> out;
  for (const ir::EntryArgument& argument : arguments) {
    bool match = false;
    switch (key.kind) {
      case PlanKey::Kind::kNumber: match = argument.parameter == key.number; break;
      case PlanKey::Kind::kName: match = argument.name == key.text; break;
      case PlanKey::Kind::kGlob: match = ir::GlobMatches(key.text, argument.name); break;
    }
    if (match) out.push_back(argument.parameter);
  }
  return out;
}

// "x, params[0][0], ... (9 arguments)": what a key could have named.
std::string Candidates(const std::vector<ir::EntryArgument>& arguments) {
  std::string out;
  size_t listed = 0;
  for (const ir::EntryArgument& argument : arguments) {
    if (argument.name.empty()) continue;
    if (listed == 6) {
      StrAppend(&out, ", ...");
      break;
    }
    StrAppend(&out, listed == 0 ? "" : ", ", argument.name);
    ++listed;
  }
  if (listed == 0) return StrCat("parameter numbers 0..", static_cast<int64_t>(arguments.size()) - 1);
  return StrCat(out, " or a parameter number below ", arguments.size());
}

absl::Status NoMatch(const SourceText& source, const PlanKey& key,
                     const std::vector<ir::EntryArgument>& arguments) {
  if (key.kind == PlanKey::Kind::kNumber) {
    return source.ErrorAt(AtOffset(source, key.offset),
                          StrCat("parameter ", key.number, " does not exist; expected a number below ",
                                 arguments.size()));
  }
  return source.ErrorAt(AtOffset(source, key.offset),
                        StrCat("'", key.text, "' selects no argument; expected ", Candidates(arguments)));
}

std::string Describe(const ir::EntryArgument& argument) {
  if (argument.name.empty()) {
    return StrCat("argument ", argument.parameter, " (", ir::ShapeToString(argument.shape, false), ")");
  }
  return StrCat("argument ", argument.parameter, " (", argument.name, ", ",
                ir::ShapeToString(argument.shape, false), ")");
}

std::string Stem(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  for (std::string_view suffix : {".plan.yaml", ".plan.json", ".yaml", ".yml", ".json"}) {
    if (path.size() > suffix.size() && path.substr(path.size() - suffix.size()) == suffix) {
      path.remove_suffix(suffix.size());
      break;
    }
  }
  return std::string(path);
}

}  // namespace

absl::StatusOr<ir::ResolvedPlan> ResolvePlan(const PlanFile& plan,
                                             const std::vector<ir::EntryArgument>& arguments,
                                             const std::vector<ir::Shape>& outputs) {
  const SourceText& source = *plan.source;
  ir::ResolvedPlan out;
  out.mesh = plan.mesh;
  out.label = Stem(source.name());
  auto labels = std::make_shared<ir::ArgumentLabels>();
  labels->names.reserve(arguments.size());
  labels->keys.resize(arguments.size());
  labels->spec_locations.resize(arguments.size());
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].parameter != static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError(StrCat("expected the program's arguments in parameter order; "
                                               "argument ", i, " is parameter ", arguments[i].parameter));
    }
    ir::ArgumentPlan argument;
    argument.parameter = arguments[i].parameter;
    labels->names.push_back(arguments[i].name);
    out.arguments.push_back(std::move(argument));
  }
  std::vector<const PlanKey*> chosen_by(arguments.size(), nullptr);
  for (const PlanArgumentEntry& entry : plan.arguments) {
    const std::vector<int64_t> selected = Select(entry.key, arguments);
    if (selected.empty()) return NoMatch(source, entry.key, arguments);
    for (int64_t p : selected) {
      if (const PlanKey* other = chosen_by[p]; other != nullptr) {
        return source.ErrorAt(
            AtOffset(source, entry.key.offset),
            StrCat(Describe(arguments[p]), " is also selected by '", other->text, "' at ",
                   source.LocationString(other->offset), "; expected each argument selected once"));
      }
      chosen_by[p] = &entry.key;
      ASSIGN_OR_RETURN(ir::HloSharding sharding,
                       LowerSpec(source, plan.mesh, entry.spec, arguments[p].shape, Describe(arguments[p])));
      out.SetArgumentSharding(static_cast<size_t>(p), std::move(sharding));
      out.arguments[p].source = ir::PlanSource::kKey;
      labels->keys[p] = entry.key.text;
      labels->spec_locations[p] = source.LocationString(entry.spec.offset);
    }
  }
  for (const PlanKey* key : chosen_by) {
    if (key == nullptr) ++out.unmatched_arguments;
  }
  if (!plan.outputs.empty()) {
    out.outputs.resize(outputs.size());
    out.output_locations.resize(outputs.size());
  }
  for (const PlanOutputEntry& entry : plan.outputs) {
    if (entry.index >= static_cast<int64_t>(outputs.size())) {
      return source.ErrorAt(AtOffset(source, entry.offset),
                            StrCat("output ", entry.index, " does not exist; expected an index below ",
                                   outputs.size()));
    }
    ASSIGN_OR_RETURN(out.outputs[entry.index],
                     LowerSpec(source, plan.mesh, entry.spec, outputs[entry.index],
                               StrCat("output ", entry.index, " (",
                                      ir::ShapeToString(outputs[entry.index], false), ")")));
    out.output_locations[entry.index] = source.LocationString(entry.spec.offset);
  }
  for (const PlanKey& key : plan.donate) {
    const std::vector<int64_t> selected = Select(key, arguments);
    if (selected.empty()) return NoMatch(source, key, arguments);
    for (int64_t p : selected) out.arguments[p].donated = true;
  }
  out.labels = std::move(labels);
  return out;
}

}  // namespace memplan::parsers
