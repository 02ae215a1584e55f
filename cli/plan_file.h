// A plan file (docs/plan-format.md) read and matched to a program's entry
// arguments: shared by `memplan predict` and `memplan report --plan`.
#ifndef MEMPLAN_CLI_PLAN_FILE_H_
#define MEMPLAN_CLI_PLAN_FILE_H_

#include <string>

#include <vector>

#include "absl/status/statusor.h"
#include "ir/entry_arguments.h"
#include "ir/module.h"
#include "ir/plan.h"
#include "parsers/load_program.h"

namespace memplan::cli {

// A program loaded for planning, and its entry arguments (what plans and
// families are matched against).
struct PlannedProgram {
  parsers::LoadedProgram loaded;
  std::vector<ir::EntryArgument> arguments;
};

// Loads `path` (`module` picks one module of a dump directory, empty for
// the default; a jaxpr file is lowered with `jaxpr`) and reads its entry
// arguments. A load error is returned as
// LoadProgram words it; an argument error is prefixed with `path`.
absl::StatusOr<PlannedProgram> LoadPlannedProgram(const std::string& path,
                                                  const std::string& module,
                                                  const ir::JaxprProgramOptions& jaxpr = {});

// The plan at `path` resolved against `module`'s entry arguments and
// outputs; errors name path:line:column.
absl::StatusOr<ir::ResolvedPlan> ReadPlanFile(const std::string& path, const ir::Module& module);

// A prediction's error under the plan file `path`, led by `path` unless the
// message already names its place in the file ("path:3:16: error: ...").
std::string PlanErrorMessage(const std::string& path, std::string_view message);

// ReadPlanFile, the plan labelled by its file name without .plan.yaml,
// .yaml, .yml or .json (how sweeps and rankings name a plan file's row).
absl::StatusOr<ir::ResolvedPlan> ReadLabelledPlanFile(const std::string& path,
                                                      const ir::Module& module);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_PLAN_FILE_H_
