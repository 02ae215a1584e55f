#include "ir/hlo_attributes.h"

#include "ir/status_macros.h"

namespace memplan::ir {

absl::StatusOr<std::vector<std::vector<int64_t>>> ReplicaGroups::Groups() const {
  if (!iota) return explicit_groups;
  if (iota->dims.size() != 2) {
    return absl::InvalidArgumentError(
        "expected iota replica groups of shape [number of groups, group size]");
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> devices, iota->Expand());
  std::vector<std::vector<int64_t>> groups(static_cast<size_t>(iota->dims[0]));
  const int64_t size = iota->dims[1];
  for (size_t g = 0; g < groups.size(); ++g) {
    groups[g].assign(devices.begin() + static_cast<int64_t>(g) * size,
                     devices.begin() + static_cast<int64_t>(g + 1) * size);
  }
  return groups;
}

}  // namespace memplan::ir
