// Compiled with -fno-rtti, like LLVM (it uses LLVM's YAML parser).
#include "parsers/family_inputs_parser.h"

#include <string>
#include <utility>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/yaml_reader.h"

namespace memplan::parsers {
namespace {

namespace yaml = llvm::yaml;

constexpr int kMaxFamilyDepth = 16;

absl::StatusOr<std::string> Glob(const YamlReader& reader, yaml::Node* node) {
  ASSIGN_OR_RETURN(std::string glob, reader.Scalar(node, "an argument glob (a string)"));
  if (glob.empty()) return reader.Error(node, "expected an argument glob, found an empty string");
  return glob;
}

absl::Status TpRules(const YamlReader& reader, yaml::Node* node, std::vector<ir::TpRule>* out) {
  return reader.ForEach(node, "tp", {}, [&](const std::string&, yaml::Node* key, yaml::Node* value) {
    ir::TpRule rule;
    ASSIGN_OR_RETURN(rule.glob, Glob(reader, key));
    ASSIGN_OR_RETURN(const std::string style, reader.Scalar(value, "a tp style"));
    const std::optional<ir::TpStyle> parsed = TpStyleFromName(style);
    if (!parsed.has_value()) {
      return reader.Error(value, StrCat("unknown tp style '", style,
                                        "'; expected colwise, rowwise or sequence (or PyTorch's "
                                        "ColwiseParallel, RowwiseParallel, SequenceParallel)"));
    }
    rule.style = *parsed;
    out->push_back(std::move(rule));
    return absl::OkStatus();
  });
}

}  // namespace

std::optional<ir::TpStyle> TpStyleFromName(std::string_view name) {
  if (name.size() > 2 && name.substr(name.size() - 2) == "()") name.remove_suffix(2);
  if (name == "colwise" || name == "ColwiseParallel") return ir::TpStyle::kColwise;
  if (name == "rowwise" || name == "RowwiseParallel") return ir::TpStyle::kRowwise;
  if (name == "sequence" || name == "SequenceParallel") return ir::TpStyle::kSequence;
  return std::nullopt;
}

std::string_view TpStyleName(ir::TpStyle style) {
  switch (style) {
    case ir::TpStyle::kColwise: return "colwise";
    case ir::TpStyle::kRowwise: return "rowwise";
    case ir::TpStyle::kSequence: return "sequence";
  }
  return "colwise";
}

absl::StatusOr<ir::FamilyInputs> ParseFamilyInputs(std::shared_ptr<const SourceText> source) {
  YamlReader reader(std::move(source), kMaxFamilyDepth);
  ir::FamilyInputs out;
  RETURN_IF_ERROR(reader.Read("family inputs (a mapping)", [&](yaml::Node* root) {
    return reader.ForEach(
        root, "family inputs", {"data", "min_fsdp_elements", "tp", "ep"},
        [&](const std::string& key, yaml::Node*, yaml::Node* value) -> absl::Status {
          if (key == "data") {
            return reader.ForEachElement(value, "data argument names", [&](yaml::Node* element) {
              ASSIGN_OR_RETURN(std::string name, reader.Scalar(element, "a data argument name"));
              out.data.push_back(std::move(name));
              return absl::OkStatus();
            });
          }
          if (key == "min_fsdp_elements") {
            ASSIGN_OR_RETURN(out.min_fsdp_elements,
                             reader.Integer(value, "a number of elements (0 or more)"));
            if (out.min_fsdp_elements < 0) return reader.Error(value, "expected a number of elements (0 or more)");
            return absl::OkStatus();
          }
          if (key == "tp") return TpRules(reader, value, &out.tp);
          return reader.ForEachElement(value, "ep globs", [&](yaml::Node* element) {
            ASSIGN_OR_RETURN(std::string glob, Glob(reader, element));
            out.ep.push_back(std::move(glob));
            return absl::OkStatus();
          });
        });
  }));
  return out;
}

absl::StatusOr<std::vector<ir::TpRule>> ParseTpPlan(std::shared_ptr<const SourceText> source) {
  YamlReader reader(std::move(source), kMaxFamilyDepth);
  std::vector<ir::TpRule> out;
  RETURN_IF_ERROR(reader.Read("a tensor-parallel plan (a mapping glob -> style)",
                              [&](yaml::Node* root) { return TpRules(reader, root, &out); }));
  return out;
}

}  // namespace memplan::parsers
