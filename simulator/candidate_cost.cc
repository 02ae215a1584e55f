#include "simulator/candidate_cost.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "simulator/mesh_groups.h"

namespace memplan::simulator {
namespace {

using predictor::AxisMask;
using predictor::CollectiveKind;

bool SamePlacement(const GroupPlacement& a, const GroupPlacement& b) {
  return a.ranks == b.ranks && a.nodes == b.nodes && a.ranks_per_node == b.ranks_per_node &&
         a.uniform == b.uniform;
}

// Every distinct placement of the device groups a collective over `axes`
// runs in, devices numbered by the mesh's device order.
absl::StatusOr<std::vector<GroupPlacement>> Placements(const ir::Mesh& mesh, AxisMask axes,
                                                       int64_t gpus_per_node) {
  std::vector<int64_t> shape;
  for (const ir::MeshAxis& axis : mesh.axes) shape.push_back(axis.size);
  std::vector<int> list;
  for (int k = 0; k < static_cast<int>(shape.size()); ++k) {
    if ((axes >> k) & 1u) list.push_back(k);
  }
  ASSIGN_OR_RETURN(const MeshGroups groups, CollectiveGroups(shape, list, gpus_per_node));
  const bool iota = mesh.IsIotaOrder();
  if (iota && groups.same_placement) return std::vector<GroupPlacement>{groups.placement};
  const std::vector<int64_t> ids = mesh.DeviceIds();
  std::vector<GroupPlacement> out;
  std::vector<int64_t> devices;
  for (const std::vector<int64_t>& group : groups.groups) {
    devices.clear();
    for (int64_t position : group) devices.push_back(iota ? position : ids[position]);
    const GroupPlacement p = PlaceGroup(devices, gpus_per_node);
    if (std::none_of(out.begin(), out.end(), [&](const GroupPlacement& q) { return SamePlacement(p, q); })) {
      out.push_back(p);
    }
  }
  return out;
}

// nccl-tests' size S of one predicted collective: the gathered output of an
// all-gather, the input of a reduce-scatter or all-to-all, the buffer of an
// all-reduce.
double NcclSize(const predictor::PredictedCollective& c) {
  switch (c.kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kAllReduce:
      return static_cast<double>(c.result_bytes);
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
      return static_cast<double>(c.operand_bytes);
  }
  return static_cast<double>(c.result_bytes);
}

// Walks the computations the entry runs (not fused ones), recording how
// many times each instruction executes per step.
void CountExecutions(const ir::Module& module, ir::ComputationId computation, double times,
                     int depth, std::vector<double>* executions) {
  if (depth > 64 || !module.contains(computation)) return;
  for (ir::InstructionId id : module.computation(computation).instructions) {
    (*executions)[static_cast<size_t>(id.value())] = times;
    const ir::Instruction& i = module.instruction(id);
    if (i.opcode == ir::Opcode::kFusion) continue;
    double trips = 1;
    bool loop = false;
    if (i.opcode == ir::Opcode::kWhile) {
      const std::optional<int64_t> known = KnownTripCount(module, i);
      trips = static_cast<double>(known.value_or(1));
      loop = known.has_value();
    }
    for (const ir::CalledComputation& c : i.calls) {
      if (i.opcode != ir::Opcode::kWhile && i.opcode != ir::Opcode::kCall &&
          i.opcode != ir::Opcode::kConditional && i.opcode != ir::Opcode::kAsyncStart) {
        continue;  // reducers and comparators run inside their instruction
      }
      const double extra = loop && c.role == ir::CallRole::kWhileCondition ? 1.0 : 0.0;
      CountExecutions(module, c.computation, times * (trips + extra), depth + 1, executions);
    }
  }
}

// The ways an instruction's work is split: its largest result leaf's split
// and partial axes.
int64_t WaysOf(const ir::Module& module, ir::InstructionId id,
               const std::vector<std::vector<predictor::AxesSharding>>& shardings,
               const predictor::MeshSizes& mesh) {
  const size_t index = static_cast<size_t>(id.value());
  if (index >= shardings.size() || shardings[index].empty()) return 1;
  const std::vector<predictor::AxesSharding>& leaves = shardings[index];
  size_t largest = 0;
  if (leaves.size() > 1) {
    std::vector<const ir::Shape*> shapes;
    predictor::CollectLeafShapes(module.instruction(id).shape, &shapes);
    int64_t best = -1;
    for (size_t k = 0; k < shapes.size() && k < leaves.size(); ++k) {
      const int64_t bytes = ir::ByteSizeOf(*shapes[k]);
      if (bytes > best) {
        best = bytes;
        largest = k;
      }
    }
  }
  const predictor::AxesSharding& s = leaves[largest];
  return mesh.Ways(s.UsedAxes() | s.partial);
}

// The sizes of `mesh`'s axes, in order.
std::vector<int64_t> AxisSizes(const ir::Mesh& mesh) {
  std::vector<int64_t> sizes;
  for (const ir::MeshAxis& axis : mesh.axes) sizes.push_back(axis.size);
  return sizes;
}

// The prediction's collectives of one kind, axes, role and window, summed.
struct CollectiveSum {
  int64_t members = 0;
  double executed = 0;
  double bytes = 0;
  CollectiveOverlap overlap;
};
using CollectiveKey = std::tuple<CollectiveKind, AxisMask, CollectiveRole, PhaseMask>;

// Groups `collectives` by kind, axes, role and window, each executed as
// often as `executions` says its instruction runs (once when unknown).
std::map<CollectiveKey, CollectiveSum> SumCollectives(
    const predictor::SharedList<predictor::PredictedCollective>& collectives,
    const std::vector<double>& executions, const OverlapFacts& facts) {
  std::map<CollectiveKey, CollectiveSum> sums;
  for (const predictor::PredictedCollective& c : collectives) {
    const size_t at = static_cast<size_t>(c.at.value());
    const double times = c.at.valid() && at < executions.size() ? executions[at] : 1.0;
    const CollectiveOverlap overlap = OverlapOf(facts, c);
    CollectiveSum& s = sums[{c.kind, c.axes, overlap.role, overlap.window}];
    s.overlap = overlap;
    s.members += 1;
    s.executed += times;
    s.bytes += times * NcclSize(c);
  }
  return sums;
}

// One group of summed collectives, unpriced: its operations per step are
// its executions, all-reduces divided as the prediction combined them.
PricedCollective UnpricedCollective(const CollectiveKey& key, const CollectiveSum& sum,
                                    const predictor::MeshSizes& mesh,
                                    const std::vector<predictor::CollectiveGroup>& groups) {
  PricedCollective p;
  p.kind = std::get<0>(key);
  p.axes = std::get<1>(key);
  p.role = sum.overlap.role;
  p.window = sum.overlap.window;
  p.members = sum.members;
  p.bytes = sum.bytes;
  p.operations = sum.executed;
  p.ranks = mesh.Ways(p.axes);
  if (p.kind == CollectiveKind::kAllReduce) {
    for (const predictor::CollectiveGroup& g : groups) {
      if (g.kind == p.kind && g.axes == p.axes && g.combined > 0) {
        p.operations = static_cast<double>(g.count) * sum.executed / static_cast<double>(g.combined);
      }
    }
  }
  return p;
}

// Sets `p`'s route, times and bytes to those of its slowest placement: one
// operation of the average size, times the operations (exact for the
// alpha-beta forms, whose bandwidth terms are linear in the size).
void PriceOnSlowestPlacement(const Hardware& hw, const std::vector<GroupPlacement>& placements,
                             PricedCollective* p) {
  const double each = p->operations > 0 ? p->bytes / p->operations : 0;
  for (const GroupPlacement& placement : placements) {
    const CollectiveCost c = CostOfCollective(hw, ToIrCollective(p->kind), each, placement);
    if (c.seconds * p->operations >= p->seconds) {
      p->route = c.route;
      p->seconds = c.seconds * p->operations;
      p->alpha_seconds = c.alpha_seconds * p->operations;
      p->bandwidth_seconds = c.bandwidth_seconds * p->operations;
      p->nvlink_bytes = c.nvlink_bytes * p->operations;
      p->network_bytes = c.network_bytes * p->operations;
    }
  }
}

// Adds to `out` each executed instruction's compute divided by the ways
// `shardings` split its result (whole when `shardings` is null).
void AddShardedCompute(const ir::Module& module, const ComputeCost& compute,
                       const predictor::InstructionShardings& shardings,
                       const predictor::MeshSizes& mesh, CandidateCost* out) {
  static const std::vector<std::vector<predictor::AxesSharding>> kNoShardings;
  for (const ExecutedInstruction& e : compute.executed) {
    const double ways = static_cast<double>(
        WaysOf(module, e.instruction, shardings ? *shardings : kNoShardings, mesh));
    const double share = e.executions / ways;
    out->xla_flops += e.flops / ways;
    out->compute_seconds += share * e.seconds;
    out->flops += share * e.flops;
    out->bytes_accessed += share * e.bytes_accessed;
    PhaseCompute& phase = out->phases.of(e.phase);
    phase.seconds += share * e.seconds;
    phase.flops += share * e.flops;
    phase.bytes_accessed += share * e.bytes_accessed;
  }
  out->phases.training = compute.phases.training;
}

// The compute seconds of each step phase, indexed by phase.
std::array<double, analyzer::kNumStepPhases> PhaseComputeSeconds(const PhaseSplit& phases) {
  std::array<double, analyzer::kNumStepPhases> seconds{};
  for (analyzer::StepPhase ph : analyzer::kStepPhases) {
    seconds[static_cast<size_t>(ph)] = phases.of(ph).seconds;
  }
  return seconds;
}

}  // namespace

ir::CollectiveKind ToIrCollective(predictor::CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllGather: return ir::CollectiveKind::kAllGather;
    case CollectiveKind::kAllReduce: return ir::CollectiveKind::kAllReduce;
    case CollectiveKind::kReduceScatter: return ir::CollectiveKind::kReduceScatter;
    case CollectiveKind::kAllToAll: return ir::CollectiveKind::kAllToAll;
  }
  return ir::CollectiveKind::kAllReduce;
}

absl::StatusOr<std::unique_ptr<CostModel>> CostModel::Create(const ir::Program& program,
                                                             const Hardware& hw,
                                                             PricingOptions options) {
  const int64_t gpus_per_node = options.gpus_per_node > 0 ? options.gpus_per_node : hw.gpus_per_node;
  if (gpus_per_node < 1) {
    return absl::InvalidArgumentError("expected at least one GPU per node");
  }
  std::unique_ptr<CostModel> model(new CostModel());
  ASSIGN_OR_RETURN(model->predictor_, predictor::Predictor::Create(program, options.predict));
  model->hw_ = hw;
  model->options_ = std::move(options);
  model->gpus_per_node_ = gpus_per_node;
  model->compute_ = AnalyzeCompute(program.module, hw, model->options_.compute);
  model->executions_.assign(program.module.instruction_count(), 1.0);
  CountExecutions(program.module, program.module.entry, 1.0, 0, &model->executions_);
  model->overlap_ = AnalyzeOverlap(program.module);
  return model;
}

absl::StatusOr<CandidateCost> CostModel::Price(const ir::ResolvedPlan& plan) const {
  if (plan.mesh.axes.size() > 32) {
    return absl::InvalidArgumentError("expected a mesh of at most 32 axes");
  }
  CandidateCost out;
  ASSIGN_OR_RETURN(out.prediction, predictor_->Predict(plan));
  const bool reuse = options_.predict.share_between_candidates &&
                     out.prediction.instruction_shardings != nullptr;
  std::vector<int64_t> device_ids, axis_sizes;
  if (reuse) {
    device_ids = plan.mesh.DeviceIds();
    axis_sizes = AxisSizes(plan.mesh);
    std::optional<CandidateCost> cost =
        FindPriced(out.prediction.instruction_shardings, axis_sizes, device_ids);
    if (cost.has_value()) {
      cost->prediction = std::move(out.prediction);
      cost->prediction.instruction_shardings = {};
      return *std::move(cost);
    }
  }
  const predictor::InstructionShardings shardings = out.prediction.instruction_shardings;
  predictor::MeshSizes mesh;
  mesh.sizes = AxisSizes(plan.mesh);
  AddShardedCompute(program().module, compute_, shardings, mesh, &out);
  out.prediction.instruction_shardings = {};
  ASSIGN_OR_RETURN(const std::vector<TimedCollective> timed,
                   PriceCollectives(plan.mesh, mesh, &out));
  out.step = CombineStepTime(PhaseComputeSeconds(out.phases), timed, options_.overlap);
  if (reuse) RememberPriced(shardings, std::move(axis_sizes), std::move(device_ids), &out);
  return out;
}

absl::StatusOr<std::vector<TimedCollective>> CostModel::PriceCollectives(
    const ir::Mesh& plan_mesh, const predictor::MeshSizes& mesh, CandidateCost* out) const {
  const std::map<CollectiveKey, CollectiveSum> sums =
      SumCollectives(out->prediction.collective_list, executions_, overlap_);
  std::map<AxisMask, std::vector<GroupPlacement>> placements;
  std::vector<TimedCollective> timed;
  for (const auto& [key, sum] : sums) {
    PricedCollective p = UnpricedCollective(key, sum, mesh, out->prediction.collectives);
    auto found = placements.find(p.axes);
    if (found == placements.end()) {
      ASSIGN_OR_RETURN(std::vector<GroupPlacement> list,
                       Placements(plan_mesh, p.axes, gpus_per_node_));
      found = placements.emplace(p.axes, std::move(list)).first;
    }
    PriceOnSlowestPlacement(hw_, found->second, &p);
    p.overlappable = sum.overlap.overlappable;
    out->bytes_moved += p.nvlink_bytes + p.network_bytes;
    out->network_bytes += p.network_bytes;
    timed.push_back({p.seconds, p.overlappable, p.window});
    out->collectives.push_back(p);
  }
  return timed;
}

std::optional<CandidateCost> CostModel::FindPriced(
    const predictor::InstructionShardings& shardings, const std::vector<int64_t>& axis_sizes,
    const std::vector<int64_t>& device_ids) const {
  std::lock_guard<std::mutex> lock(priced_mutex_);
  for (const auto& p : priced_) {
    if (p->shardings == shardings && p->axis_sizes == axis_sizes && p->device_ids == device_ids) {
      return p->cost;
    }
  }
  return std::nullopt;
}

void CostModel::RememberPriced(const predictor::InstructionShardings& shardings,
                               std::vector<int64_t> axis_sizes, std::vector<int64_t> device_ids,
                               CandidateCost* cost) const {
  auto priced = std::make_shared<PricedShare>();
  priced->shardings = shardings;
  priced->axis_sizes = std::move(axis_sizes);
  priced->device_ids = std::move(device_ids);
  predictor::Prediction prediction = std::move(cost->prediction);
  priced->cost = *cost;
  priced->cost.prediction = {};
  cost->prediction = std::move(prediction);
  std::lock_guard<std::mutex> lock(priced_mutex_);
  if (priced_.size() >= kPricedShares) priced_.pop_front();
  priced_.push_back(std::move(priced));
}

}  // namespace memplan::simulator
