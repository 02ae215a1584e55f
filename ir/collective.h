// Collective operations as NCCL and nccl-tests name them, and nccl-tests'
// bus-bandwidth factor: the one definition every stage (parsers of measured
// tables, the simulator's cost model, the executor) shares.
#ifndef MEMPLAN_IR_COLLECTIVE_H_
#define MEMPLAN_IR_COLLECTIVE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace memplan::ir {

enum class CollectiveKind : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kSendRecv,
  kBroadcast,
  kReduce,
};

inline constexpr CollectiveKind kAllCollectiveKinds[] = {
    CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
    CollectiveKind::kAllToAll,  CollectiveKind::kSendRecv,  CollectiveKind::kBroadcast,
    CollectiveKind::kReduce,
};

// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv",
// "broadcast", "reduce".
std::string_view CollectiveName(CollectiveKind kind);

// Looks a name up, ignoring case, '_' and '-': "all_reduce", "AllReduce",
// "all-to-all" and nccl-tests' "alltoall" and "sendrecv" all match.
std::optional<CollectiveKind> CollectiveFromName(std::string_view name);

// busbw / algbw as nccl-tests defines it (doc/PERFORMANCE.md) for `ranks`
// ranks: 2(n-1)/n for all-reduce; (n-1)/n for all-gather, reduce-scatter and
// all-to-all; 1 for broadcast, reduce and send/recv. Precondition: ranks >= 1.
double BusBandwidthFactor(CollectiveKind kind, int64_t ranks);

// True when the factor above depends on the number of ranks.
bool BusFactorDependsOnRanks(CollectiveKind kind);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_COLLECTIVE_H_
