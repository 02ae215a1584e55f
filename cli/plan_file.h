// A plan file (docs/plan-format.md) read and matched to a program's entry
// arguments: shared by `memplan predict` and `memplan report --plan`.
#ifndef MEMPLAN_CLI_PLAN_FILE_H_
#define MEMPLAN_CLI_PLAN_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "ir/plan.h"

namespace memplan::cli {

// The plan at `path` resolved against `module`'s entry arguments and
// outputs; errors name path:line:column.
absl::StatusOr<ir::ResolvedPlan> ReadPlanFile(const std::string& path, const ir::Module& module);

// ReadPlanFile, the plan labelled by its file name without .plan.yaml,
// .yaml, .yml or .json (how sweeps and rankings name a plan file's row).
absl::StatusOr<ir::ResolvedPlan> ReadLabelledPlanFile(const std::string& path,
                                                      const ir::Module& module);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_PLAN_FILE_H_
