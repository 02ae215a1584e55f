// memplan plan: loads the program, reads the family inputs (families file
// and flags), derives the plan (analyzer/plan_families.h), checks that it
// reads back and resolves, and writes it (parsers/plan_writer.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/plan_families.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/plan_commands.h"
#include "ir/entry_arguments.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/family_inputs_parser.h"
#include "parsers/jax_sharding_parser.h"
#include "parsers/load_program.h"
#include "parsers/plan_parser.h"
#include "parsers/plan_writer.h"
#include "parsers/source_text.h"

namespace memplan::cli {
namespace {

using parsers::SourceText;

std::shared_ptr<const SourceText> Flag(std::string_view name, const std::string& value) {
  return SourceText::FromString(StrCat("--", name), value);
}

// "a,b,c" -> {"a", "b", "c"}, spaces around items dropped, empty items refused.
absl::StatusOr<std::vector<std::string>> List(std::string_view name, const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    std::string item = value.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) {
      const auto source = Flag(name, value);
      return source->ErrorAt(source->text().data() + start, "expected a name (comma-separated list)");
    }
    out.push_back(std::move(item));
    start = comma + 1;
  }
  return out;
}

absl::StatusOr<ir::FamilyInputs> Inputs(const PlanFlags& flags, const std::vector<std::string>& axes) {
  ir::FamilyInputs inputs;
  if (!flags.families.empty()) {
    ASSIGN_OR_RETURN(auto source, SourceText::FromFile(flags.families));
    ASSIGN_OR_RETURN(inputs, parsers::ParseFamilyInputs(source));
  }
  if (flags.data.has_value()) {
    ASSIGN_OR_RETURN(inputs.data, List("data", *flags.data));
  }
  if (flags.ep.has_value()) {
    ASSIGN_OR_RETURN(inputs.ep, List("ep", *flags.ep));
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
  auto has = [&](std::string_view axis) { return std::find(axes.begin(), axes.end(), axis) != axes.end(); };
  if ((has("dp") || has("fsdp") || has("ep")) && inputs.data.empty()) {
    return absl::InvalidArgumentError(StrCat("family '", flags.family,
                                             "' shards the data: expected --data (or `data` in --families)"));
  }
  if (has("tp") && inputs.tp.empty()) {
    return absl::InvalidArgumentError(StrCat("family '", flags.family,
                                             "' needs a tensor-parallel plan: expected --tp-plan (or `tp` in "
                                             "--families)"));
  }
  if (has("ep") && inputs.ep.empty()) {
    return absl::InvalidArgumentError(StrCat("family '", flags.family,
                                             "' needs expert globs: expected --ep (or `ep` in --families)"));
  }
  return inputs;
}

std::string ProgramName(std::string_view module_name) {
  if (module_name.substr(0, 4) == "jit_") module_name.remove_prefix(4);
  return std::string(module_name);
}

absl::StatusOr<std::string> Build(const PlanFlags& flags) {
  if (flags.family.empty()) return absl::InvalidArgumentError("expected --family (dp, fsdp, tp, ep or a '+' of them)");
  if (flags.mesh.empty()) return absl::InvalidArgumentError("expected --mesh, such as dp=2,tp=4");
  absl::StatusOr<std::vector<std::string>> axes = analyzer::FamilyAxes(flags.family);
  if (!axes.ok()) return absl::InvalidArgumentError(StrCat("--family: ", FromAbsl(axes.status().message())));
  ASSIGN_OR_RETURN(parsers::ParsedMesh mesh, parsers::ParseMeshText(*Flag("mesh", flags.mesh)));
  if (absl::Status fits = analyzer::CheckFamilyMesh(*axes, mesh.mesh); !fits.ok()) {
    return absl::InvalidArgumentError(StrCat("--mesh: ", FromAbsl(fits.message())));
  }
  ASSIGN_OR_RETURN(const ir::FamilyInputs inputs, Inputs(flags, *axes));
  parsers::LoadOptions options;
  options.module = flags.module;
  ASSIGN_OR_RETURN(parsers::LoadedProgram loaded, parsers::LoadProgram(flags.path, options));
  ASSIGN_OR_RETURN(const std::vector<ir::EntryArgument> arguments,
                   ir::EntryArguments(loaded.program.module));
  ASSIGN_OR_RETURN(const ir::SpecPlan plan, analyzer::BuildFamilyPlan(arguments, mesh.mesh, inputs));
  const std::string text =
      parsers::WritePlanYaml(plan, StrCat(ProgramName(loaded.program.module.name), " under ", plan.label));
  // What is written must read back and resolve against the program.
  ASSIGN_OR_RETURN(parsers::PlanFile reread,
                   parsers::ParsePlan(SourceText::FromString(StrCat(plan.label, ".plan.yaml"), text)));
  RETURN_IF_ERROR(
      parsers::ResolvePlan(reread, arguments, ir::EntryOutputs(loaded.program.module)).status());
  return text;
}

}  // namespace

int RunPlan(const PlanFlags& flags) {
  absl::StatusOr<std::string> text = Build(flags);
  if (!text.ok()) {
    std::fprintf(stderr, "memplan plan: %.*s\n", static_cast<int>(text.status().message().size()),
                 text.status().message().data());
    return kExitBadInput;
  }
  if (absl::Status written = WriteOutput(flags.output, *text); !written.ok()) {
    std::fprintf(stderr, "memplan: %.*s\n", static_cast<int>(written.message().size()), written.message().data());
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace memplan::cli
