// memplan plan: loads the program, reads the family inputs (families file
// and flags), derives the plan (analyzer/plan_families.h), checks that it
// reads back and resolves, and writes it (parsers/plan_writer.h).
#include <memory>
#include <string>
#include <vector>

#include "analyzer/plan_families.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/family_inputs.h"
#include "cli/output_file.h"
#include "cli/plan_commands.h"
#include "cli/plan_file.h"
#include "ir/entry_arguments.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
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

absl::StatusOr<ir::FamilyInputs> Inputs(const PlanFlags& flags, const std::vector<std::string>& axes) {
  ASSIGN_OR_RETURN(ir::FamilyInputs inputs, ReadFamilyInputs(flags.inputs));
  if (std::optional<std::string> missing = MissingFamilyInput(flags.family, axes, inputs)) {
    return absl::InvalidArgumentError(*missing);
  }
  return inputs;
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
  ASSIGN_OR_RETURN(const PlannedProgram planned, LoadPlannedProgram(flags.path, flags.module));
  const parsers::LoadedProgram& loaded = planned.loaded;
  const std::vector<ir::EntryArgument>& arguments = planned.arguments;
  ASSIGN_OR_RETURN(const ir::SpecPlan plan, analyzer::BuildFamilyPlan(arguments, mesh.mesh, inputs));
  const std::string text =
      parsers::WritePlanYaml(plan, PlanTitle(loaded.program.module.name, plan.label));
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
    PrintPrefixed("memplan plan: ", FromAbsl(text.status().message()));
    return kExitBadInput;
  }
  if (absl::Status written = WriteOutput(flags.output, *text); !written.ok()) {
    PrintError(written);
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace memplan::cli
