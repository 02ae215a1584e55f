// Writes a plan file (docs/plan-format.md) in the form the sharded corpus
// holds: a title comment, the mesh in flow style, one line per argument in
// parameter order with its parameter number and shape in a comment,
// `outputs: {}` and the donated arguments. ParsePlan reads it back.
#ifndef MEMPLAN_PARSERS_PLAN_WRITER_H_
#define MEMPLAN_PARSERS_PLAN_WRITER_H_

#include <string>
#include <string_view>

#include "ir/spec_plan.h"

namespace memplan::parsers {

// The plan as YAML text. `title` follows "# memplan plan: " on the first
// line ("mlp_train_step under dp8"); empty: no title line. Arguments without
// a name are keyed by parameter number.
std::string WritePlanYaml(const ir::SpecPlan& plan, std::string_view title);

// A plan key or axis name as YAML: bare when it is an identifier YAML reads
// as a string, double-quoted (with \" and \\ escaped) otherwise.
std::string PlanYamlKey(std::string_view name);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_PLAN_WRITER_H_
