#include "cli/plan_file.h"

#include <memory>
#include <vector>

#include "ir/entry_arguments.h"
#include "parsers/plan_parser.h"
#include "parsers/source_text.h"

namespace memplan::cli {

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

}  // namespace memplan::cli
