// The inputs of plan families (docs/plan-format.md, "Family inputs"): a
// program's families.yaml, and a tensor-parallel pattern plan on its own.
//
//   data: [x, y]                       # top-level data arguments
//   min_fsdp_elements: 262144
//   tp: {"*['w_q']": colwise, "*['w_o']": rowwise}
//   ep: ["params['w_in']"]
//
// A tp style is colwise, rowwise or sequence, or PyTorch's ColwiseParallel,
// RowwiseParallel, SequenceParallel (with or without "()").
#ifndef MEMPLAN_PARSERS_FAMILY_INPUTS_PARSER_H_
#define MEMPLAN_PARSERS_FAMILY_INPUTS_PARSER_H_

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/spec_plan.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// A families.yaml (YAML or JSON): every key optional (`data`: none,
// `min_fsdp_elements`: 2^18, `tp`: none, `ep`: none). InvalidArgument with
// file:line:col on an unknown or repeated key, a value of the wrong kind, a
// negative minimum, an unknown tp style, an empty glob.
absl::StatusOr<ir::FamilyInputs> ParseFamilyInputs(std::shared_ptr<const SourceText> source);

// A tensor-parallel pattern plan: a mapping glob -> style, in file order
// (`{"*.attn.q_proj": colwise, "*.mlp.down_proj": rowwise}`).
absl::StatusOr<std::vector<ir::TpRule>> ParseTpPlan(std::shared_ptr<const SourceText> source);

// "colwise", "ColwiseParallel", "ColwiseParallel()", ... ; nullopt otherwise.
std::optional<ir::TpStyle> TpStyleFromName(std::string_view name);

// "colwise" | "rowwise" | "sequence".
std::string_view TpStyleName(ir::TpStyle style);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_FAMILY_INPUTS_PARSER_H_
