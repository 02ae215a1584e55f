// Family inputs from the command line (`memplan plan`, `predict` and `rank`): a
// families.yaml, overridden by --data, --ep, --tp-plan and
// --min-fsdp-elements; and the check that a family has what it needs.
#ifndef MEMPLAN_CLI_FAMILY_INPUTS_H_
#define MEMPLAN_CLI_FAMILY_INPUTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/spec_plan.h"

namespace memplan::cli {

struct FamilyInputFlags {
  std::string families_file;        // a families.yaml; empty: none
  std::optional<std::string> data;  // "x,y"
  std::optional<std::string> ep;    // "glob,glob"
  std::string tp_plan;              // glob -> style file; empty: none
  std::optional<int64_t> min_fsdp_elements;
};

// "a,b,c" -> {"a", "b", "c"}, spaces around items dropped; an empty item is
// an error located in the flag's value (`flag` names it without dashes).
absl::StatusOr<std::vector<std::string>> CommaList(std::string_view flag, const std::string& value);

// The inputs the flags give, the file first and each flag over it.
absl::StatusOr<ir::FamilyInputs> ReadFamilyInputs(const FamilyInputFlags& flags);

// Why `family` (with mesh axes `axes`) cannot be built from `inputs`: the
// flag that would give what is missing (or --family-inputs, the file that
// would); nullopt when nothing is.
std::optional<std::string> MissingFamilyInput(std::string_view family,
                                              const std::vector<std::string>& axes,
                                              const ir::FamilyInputs& inputs);

// The title line of a written plan file: "mlp_train_step under dp8" (the
// module name without jit_).
std::string PlanTitle(std::string_view module_name, std::string_view label);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_FAMILY_INPUTS_H_
