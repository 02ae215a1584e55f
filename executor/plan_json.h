// The executor plan as JSON (docs/executor-plan.md): read with llvm::json,
// every problem reported as "file:line:column: error: expected ..." at the
// value that has it; and written back, deterministically.
#ifndef MEMPLAN_EXECUTOR_PLAN_JSON_H_
#define MEMPLAN_EXECUTOR_PLAN_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "executor/plan.h"
#include "parsers/source_text.h"

namespace memplan::executor {

// True when `head` (the first bytes of a file) is a JSON object that names
// the plan schema: the sniff rule that tells a plan from a buffer assignment.
bool LooksLikePlanJson(std::string_view head);

// Parses and checks a plan (CheckPlan, executor/plan_check.h): types,
// ranges, buffer references, and that the ranks' collectives match.
// InvalidArgument naming file:line:column otherwise.
absl::StatusOr<ExecutorPlan> ParsePlanJson(const parsers::SourceText& source);

// The plan as JSON in the schema ParsePlanJson reads (keys in a fixed
// order, two-space indentation, a final newline).
std::string RenderPlanJson(const ExecutorPlan& plan);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_PLAN_JSON_H_
