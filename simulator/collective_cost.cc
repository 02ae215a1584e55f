#include "simulator/collective_cost.h"

#include <algorithm>
#include <map>

namespace memplan::simulator {
namespace {

using ir::CollectiveKind;

int64_t Steps(CollectiveKind kind, int64_t n) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return 2 * (n - 1);
    case CollectiveKind::kSendRecv:
      return 1;
    default:
      return n - 1;
  }
}

// A flat stage: the nccl-tests forms above for n ranks on one link.
CostStage Flat(Link link, CollectiveKind kind, int64_t n, double bytes) {
  CostStage s;
  s.link = link;
  s.kind = kind;
  s.ranks = n;
  s.steps = Steps(kind, n);
  s.bus_bytes = ir::BusBandwidthFactor(kind, n) * bytes;
  return s;
}

}  // namespace

GroupPlacement PlaceGroup(std::span<const int64_t> devices, int64_t gpus_per_node) {
  GroupPlacement p;
  p.ranks = static_cast<int64_t>(devices.size());
  std::map<int64_t, int64_t> per_node;
  for (int64_t d : devices) ++per_node[d / gpus_per_node];
  p.nodes = static_cast<int64_t>(per_node.size());
  for (const auto& [node, count] : per_node) p.ranks_per_node = std::max(p.ranks_per_node, count);
  for (const auto& [node, count] : per_node) p.uniform &= count == p.ranks_per_node;
  return p;
}

GroupPlacement PlaceEvenly(int64_t ranks, int64_t ranks_per_node) {
  GroupPlacement p;
  p.ranks = ranks;
  p.ranks_per_node = std::min(ranks, ranks_per_node);
  p.nodes = p.ranks_per_node > 0 ? (ranks + p.ranks_per_node - 1) / p.ranks_per_node : 0;
  p.uniform = p.ranks_per_node > 0 && ranks % p.ranks_per_node == 0;
  return p;
}

std::string_view RouteName(Route route) {
  switch (route) {
    case Route::kNone:
      return "none";
    case Route::kNvlink:
      return "nvlink";
    case Route::kNetwork:
      return "network";
    case Route::kHierarchical:
      return "hierarchical";
  }
  return "unknown";
}

namespace {

// An all-to-all across nodes: each GPU sends S/n to every peer, g-1 of
// them in its node over NVLink and n-g on other nodes over the network, at
// once.
void AllToAllStages(CollectiveKind kind, double bytes, int64_t n, int64_t g, CollectivePlan& plan) {
  plan.combine = Combine::kConcurrent;
  const double share = bytes / static_cast<double>(n);
  CostStage local;
  local.link = Link::kNvlink;
  local.kind = kind;
  local.ranks = g;
  local.steps = g - 1;
  local.bus_bytes = static_cast<double>(g - 1) * share;
  CostStage remote;
  remote.link = Link::kNetwork;
  remote.kind = kind;
  remote.ranks = n;
  remote.steps = n - g;
  remote.bus_bytes = static_cast<double>(n - g) * share;
  plan.stages.push_back(local);
  plan.stages.push_back(remote);
}

// The stages of a collective of n ranks over m nodes of g GPUs each,
// pipelined (an all-to-all's run at once).
void HierarchicalStages(CollectiveKind kind, double bytes, int64_t n, int64_t g, int64_t m,
                        CollectivePlan& plan) {
  plan.route = Route::kHierarchical;
  plan.combine = Combine::kPipelined;
  const double per_node_share = bytes / static_cast<double>(g);
  switch (kind) {
    case CollectiveKind::kAllReduce:
      // Reduce-scatter in the node, all-reduce of each GPU's 1/g share with
      // its peers on the other nodes, all-gather in the node.
      plan.stages.push_back(Flat(Link::kNvlink, CollectiveKind::kReduceScatter, g, bytes));
      plan.stages.push_back(Flat(Link::kNetwork, CollectiveKind::kAllReduce, m, per_node_share));
      plan.stages.push_back(Flat(Link::kNvlink, CollectiveKind::kAllGather, g, bytes));
      break;
    case CollectiveKind::kAllGather:
      // Gather the m shards of the same local rank over the network (S/g
      // each), then all-gather those in the node.
      plan.stages.push_back(Flat(Link::kNetwork, CollectiveKind::kAllGather, m, per_node_share));
      plan.stages.push_back(Flat(Link::kNvlink, CollectiveKind::kAllGather, g, bytes));
      break;
    case CollectiveKind::kReduceScatter:
      plan.stages.push_back(Flat(Link::kNvlink, CollectiveKind::kReduceScatter, g, bytes));
      plan.stages.push_back(
          Flat(Link::kNetwork, CollectiveKind::kReduceScatter, m, per_node_share));
      break;
    case CollectiveKind::kAllToAll:
      AllToAllStages(kind, bytes, n, g, plan);
      break;
    default:
      break;
  }
}

}  // namespace

CollectivePlan PlanCollective(CollectiveKind kind, double bytes, const GroupPlacement& p) {
  CollectivePlan plan;
  const int64_t n = p.ranks;
  if (n <= 1 && kind != CollectiveKind::kSendRecv) return plan;  // nothing to move
  if (p.nodes <= 1) {
    plan.route = Route::kNvlink;
    plan.stages.push_back(Flat(Link::kNvlink, kind, n, bytes));
    return plan;
  }
  const int64_t g = p.ranks_per_node;
  const bool hierarchical = p.uniform && g > 1 && kind != CollectiveKind::kSendRecv &&
                            kind != CollectiveKind::kBroadcast && kind != CollectiveKind::kReduce;
  if (!hierarchical) {
    plan.route = Route::kNetwork;
    plan.stages.push_back(Flat(Link::kNetwork, kind, n, bytes));
    return plan;
  }
  HierarchicalStages(kind, bytes, n, g, p.nodes, plan);
  return plan;
}

CollectiveCost PriceCollective(const CollectivePlan& plan, const Hardware& hw) {
  CollectiveCost cost;
  cost.route = plan.route;
  cost.stages = plan.stages;
  double max_bandwidth = 0;
  double max_total = 0;
  for (CostStage& s : cost.stages) {
    const AlphaBeta ab = hw.ParamsFor(s.link, s.kind);
    s.alpha_seconds = static_cast<double>(s.steps) * ab.alpha;
    s.bandwidth_seconds = ab.bandwidth > 0 ? s.bus_bytes / ab.bandwidth : 0;
    cost.alpha_seconds += s.alpha_seconds;
    max_bandwidth = std::max(max_bandwidth, s.bandwidth_seconds);
    max_total = std::max(max_total, s.alpha_seconds + s.bandwidth_seconds);
    (s.link == Link::kNvlink ? cost.nvlink_bytes : cost.network_bytes) += s.bus_bytes;
  }
  switch (plan.combine) {
    case Combine::kSum:
    case Combine::kPipelined:
      cost.bandwidth_seconds = max_bandwidth;
      cost.seconds = cost.alpha_seconds + cost.bandwidth_seconds;
      break;
    case Combine::kConcurrent: {
      // The longer part sets the time; report its alpha and bandwidth split.
      cost.seconds = max_total;
      cost.alpha_seconds = 0;
      for (const CostStage& s : cost.stages) {
        if (s.alpha_seconds + s.bandwidth_seconds == max_total) {
          cost.alpha_seconds = s.alpha_seconds;
          cost.bandwidth_seconds = s.bandwidth_seconds;
          break;
        }
      }
      break;
    }
  }
  return cost;
}

CollectiveCost CostOfCollective(const Hardware& hw, CollectiveKind kind, double bytes,
                                const GroupPlacement& placement) {
  return PriceCollective(PlanCollective(kind, bytes, placement), hw);
}

}  // namespace memplan::simulator
