#include "cli/family_inputs.h"

#include <algorithm>
#include <memory>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/family_inputs_parser.h"
#include "parsers/source_text.h"

namespace memplan::cli {

using parsers::SourceText;

absl::StatusOr<std::vector<std::string>> CommaList(std::string_view flag, const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    std::string item = value.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) {
      const auto source = SourceText::FromString(StrCat("--", flag), value);
      return source->ErrorAt(source->text().data() + start, "expected a name (comma-separated list)");
    }
    out.push_back(std::move(item));
    start = comma + 1;
  }
  return out;
}

absl::StatusOr<ir::FamilyInputs> ReadFamilyInputs(const FamilyInputFlags& flags) {
  ir::FamilyInputs inputs;
  if (!flags.families_file.empty()) {
    ASSIGN_OR_RETURN(auto source, SourceText::FromFile(flags.families_file));
    ASSIGN_OR_RETURN(inputs, parsers::ParseFamilyInputs(source));
  }
  if (flags.data.has_value()) {
    ASSIGN_OR_RETURN(inputs.data, CommaList("data", *flags.data));
  }
  if (flags.ep.has_value()) {
    ASSIGN_OR_RETURN(inputs.ep, CommaList("ep", *flags.ep));
  }
  if (!flags.tp_plan.empty()) {
    ASSIGN_OR_RETURN(auto source, SourceText::FromFile(flags.tp_plan));
    ASSIGN_OR_RETURN(inputs.tp, parsers::ParseTpPlan(source));
  }
  if (flags.min_fsdp_elements.has_value()) {
    if (*flags.min_fsdp_elements < 0) {
      return absl::InvalidArgumentError("--min-fsdp-elements: expected 0 or more");
    }
    inputs.min_fsdp_elements = *flags.min_fsdp_elements;
  }
  return inputs;
}

std::optional<std::string> MissingFamilyInput(std::string_view family,
                                              const std::vector<std::string>& axes,
                                              const ir::FamilyInputs& inputs) {
  constexpr std::string_view file_flag = "family-inputs";
  auto has = [&](std::string_view axis) { return std::find(axes.begin(), axes.end(), axis) != axes.end(); };
  if ((has("dp") || has("fsdp") || has("ep")) && inputs.data.empty()) {
    return StrCat("family '", family, "' shards the data: expected --data (or `data` in --",
                  file_flag, ")");
  }
  if (has("tp") && inputs.tp.empty()) {
    return StrCat("family '", family, "' needs a tensor-parallel plan: expected --tp-plan (or `tp` in --",
                  file_flag, ")");
  }
  if (has("ep") && inputs.ep.empty()) {
    return StrCat("family '", family, "' needs expert globs: expected --ep (or `ep` in --", file_flag,
                  ")");
  }
  return std::nullopt;
}

std::string PlanTitle(std::string_view module_name, std::string_view label) {
  if (module_name.substr(0, 4) == "jit_") module_name.remove_prefix(4);
  return StrCat(module_name, " under ", label);
}

}  // namespace memplan::cli
