#include "cli/plan_file.h"

#include <memory>
#include <string_view>
#include <vector>

#include "ir/entry_arguments.h"
#include "ir/strings.h"
#include "parsers/plan_parser.h"
#include "parsers/source_text.h"

namespace memplan::cli {

absl::StatusOr<PlannedProgram> LoadPlannedProgram(const std::string& path,
                                                  const std::string& module,
                                                  const ir::JaxprProgramOptions& jaxpr) {
  parsers::LoadOptions load;
  load.module = module;
  load.jaxpr = jaxpr;
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(path, load);
  if (!loaded.ok()) return loaded.status();
  absl::StatusOr<std::vector<ir::EntryArgument>> arguments =
      ir::EntryArguments(loaded->program.module);
  if (!arguments.ok()) {
    return absl::Status(arguments.status().code(),
                        StrCat(path, ": ", FromAbsl(arguments.status().message())));
  }
  return PlannedProgram{*std::move(loaded), *std::move(arguments)};
}

absl::StatusOr<ir::ResolvedPlan> ReadPlanFile(const std::string& path, const ir::Module& module) {
  absl::StatusOr<std::shared_ptr<const parsers::SourceText>> source =
      parsers::SourceText::FromFile(path);
  if (!source.ok()) return source.status();
  absl::StatusOr<parsers::PlanFile> plan = parsers::ParsePlan(*source);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<std::vector<ir::EntryArgument>> arguments = ir::EntryArguments(module);
  if (!arguments.ok()) return arguments.status();
  return parsers::ResolvePlan(*plan, *arguments, ir::EntryOutputs(module));
}

std::string PlanErrorMessage(const std::string& path, std::string_view message) {
  if (message.substr(0, path.size() + 1) == path + ":") return std::string(message);
  return StrCat(path, ": ", message);
}

absl::StatusOr<ir::ResolvedPlan> ReadLabelledPlanFile(const std::string& path,
                                                      const ir::Module& module) {
  absl::StatusOr<ir::ResolvedPlan> plan = ReadPlanFile(path, module);
  if (!plan.ok()) return plan.status();
  std::string stem = path.substr(path.find_last_of('/') + 1);
  for (std::string_view suffix : {".plan.yaml", ".yaml", ".yml", ".json"}) {
    if (stem.size() > suffix.size() && stem.ends_with(suffix)) {
      stem.resize(stem.size() - suffix.size());
      break;
    }
  }
  plan->label = stem;
  return plan;
}

}  // namespace memplan::cli
