// The time of one collective, in the alpha-beta forms that nccl-tests' bus
// bandwidth implies (docs/cost-model.md):
//
//   time = alpha * steps + bus_bytes / bus_bandwidth
//
// with, for n ranks and nccl-tests' size S (the full buffer: for all-gather
// the gathered output, for reduce-scatter the input):
//
//   collective       steps     bus bytes per GPU
//   all-reduce       2(n-1)    2(n-1)/n * S
//   all-gather       n-1       (n-1)/n * S
//   reduce-scatter   n-1       (n-1)/n * S
//   all-to-all       n-1       (n-1)/n * S
//   send/recv        1         S
//   broadcast, reduce n-1      S
//
// A group inside one node runs on NVLink; one GPU per node, on the network;
// several GPUs on each of several nodes, hierarchically (NVLink stages
// around a network stage, pipelined).
#ifndef MEMPLAN_SIMULATOR_COLLECTIVE_COST_H_
#define MEMPLAN_SIMULATOR_COLLECTIVE_COST_H_

#include <cstdint>
#include <span>
#include <vector>

#include "ir/collective.h"
#include "simulator/hardware.h"

namespace memplan::simulator {

// Where a group of devices sits, devices numbered d with node d / gpus_per_node.
struct GroupPlacement {
  int64_t ranks = 0;
  int64_t nodes = 0;
  int64_t ranks_per_node = 0;  // the largest count on one node
  bool uniform = true;         // every node holds ranks_per_node of them
};

// Precondition: gpus_per_node >= 1; devices are distinct and not negative.
GroupPlacement PlaceGroup(std::span<const int64_t> devices, int64_t gpus_per_node);

// `ranks` ranks spread `ranks_per_node` to a node (uniform when it divides).
GroupPlacement PlaceEvenly(int64_t ranks, int64_t ranks_per_node);

enum class Route : uint8_t {
  kNone,          // one rank: nothing moves
  kNvlink,        // all ranks in one node
  kNetwork,       // one rank per node, or an uneven spread
  kHierarchical,  // several ranks on each of several nodes
};
std::string_view RouteName(Route route);  // "none", "nvlink", "network", "hierarchical"

// One step of the plan: a collective over `ranks` ranks on one link.
struct CostStage {
  Link link = Link::kNvlink;
  ir::CollectiveKind kind = ir::CollectiveKind::kAllReduce;
  int64_t ranks = 0;
  int64_t steps = 0;         // alpha is charged this many times
  double bus_bytes = 0;      // bytes each GPU moves on the link
  double alpha_seconds = 0;  // steps * alpha
  double bandwidth_seconds = 0;  // bus_bytes / bandwidth
};

// How stage times combine.
enum class Combine : uint8_t {
  kSum,        // one stage
  kPipelined,  // chunks flow through the stages: sum of alphas + max of bandwidth terms
  kConcurrent, // stages run side by side (all-to-all's NVLink and network parts): max of totals
};

struct CollectivePlan {
  Route route = Route::kNone;
  Combine combine = Combine::kSum;
  std::vector<CostStage> stages;  // alpha/bandwidth seconds still zero
};

// The stages a collective of `bytes` over `placement` takes, before pricing.
CollectivePlan PlanCollective(ir::CollectiveKind kind, double bytes,
                              const GroupPlacement& placement);

struct CollectiveCost {
  Route route = Route::kNone;
  double seconds = 0;
  double alpha_seconds = 0;      // the latency part of `seconds`
  double bandwidth_seconds = 0;  // the rest
  double nvlink_bytes = 0;       // bytes each GPU moves on NVLink
  double network_bytes = 0;      // and on its NIC
  std::vector<CostStage> stages;
};

// Prices a plan with the hardware's alpha and bandwidth per link and
// collective (Hardware::ParamsFor).
CollectiveCost PriceCollective(const CollectivePlan& plan, const Hardware& hw);

// PlanCollective then PriceCollective.
CollectiveCost CostOfCollective(const Hardware& hw, ir::CollectiveKind kind, double bytes,
                                const GroupPlacement& placement);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_COLLECTIVE_COST_H_
