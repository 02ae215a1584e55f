#include "ir/collective.h"

#include <string>

namespace memplan::ir {

std::string_view CollectiveName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
    case CollectiveKind::kSendRecv:
      return "send_recv";
    case CollectiveKind::kBroadcast:
      return "broadcast";
    case CollectiveKind::kReduce:
      return "reduce";
  }
  return "unknown";
}

std::optional<CollectiveKind> CollectiveFromName(std::string_view name) {
  std::string folded;
  for (char c : name) {
    if (c == '_' || c == '-') continue;
    folded += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  for (CollectiveKind kind : kAllCollectiveKinds) {
    std::string canonical;
    for (char c : CollectiveName(kind)) {
      if (c != '_') canonical += c;
    }
    if (folded == canonical) return kind;
  }
  return std::nullopt;
}

double BusBandwidthFactor(CollectiveKind kind, int64_t ranks) {
  const double n = static_cast<double>(ranks);
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return 2.0 * (n - 1.0) / n;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
      return (n - 1.0) / n;
    case CollectiveKind::kSendRecv:
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce:
      return 1.0;
  }
  return 1.0;
}

bool BusFactorDependsOnRanks(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kAllGather ||
         kind == CollectiveKind::kReduceScatter || kind == CollectiveKind::kAllToAll;
}

}  // namespace memplan::ir
