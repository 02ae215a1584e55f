#include "ir/collective_measurements.h"

#include <set>

namespace memplan::ir {

int64_t CollectiveRun::NodeCount() const {
  const std::set<std::string> hosts(rank_hosts.begin(), rank_hosts.end());
  return static_cast<int64_t>(hosts.size());
}

}  // namespace memplan::ir
