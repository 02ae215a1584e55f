#include "simulator/candidate_cost.h"

#include <algorithm>
#include <map>
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
    for (const ir::MeshAxis& axis : plan.mesh.axes) axis_sizes.push_back(axis.size);
    std::lock_guard<std::mutex> lock(priced_mutex_);
    for (const auto& p : priced_) {
      if (p->shardings == out.prediction.instruction_shardings && p->axis_sizes == axis_sizes &&
          p->device_ids == device_ids) {
        CandidateCost cost = p->cost;
        cost.prediction = std::move(out.prediction);
        cost.prediction.instruction_shardings = {};
        return cost;
      }
    }
  }
  const predictor::InstructionShardings shardings = out.prediction.instruction_shardings;
  static const std::vector<std::vector<predictor::AxesSharding>> kNoShardings;
  const ir::Module& module = program().module;
  predictor::MeshSizes mesh;
  for (const ir::MeshAxis& axis : plan.mesh.axes) mesh.sizes.push_back(axis.size);

  // Compute: each instruction's work divided by the ways its result is split.
  for (const ExecutedInstruction& e : compute_.executed) {
    const double ways = static_cast<double>(
        WaysOf(module, e.instruction, shardings ? *shardings : kNoShardings, mesh));
    const double share = e.executions / ways;
    out.xla_flops += e.flops / ways;
    out.compute_seconds += share * e.seconds;
    out.flops += share * e.flops;
    out.bytes_accessed += share * e.bytes_accessed;
    PhaseCompute& phase = out.phases.of(e.phase);
    phase.seconds += share * e.seconds;
    phase.flops += share * e.flops;
    phase.bytes_accessed += share * e.bytes_accessed;
  }
  out.phases.training = compute_.phases.training;
  out.prediction.instruction_shardings = {};

  // Collectives by kind, axes and role.
  struct Sum {
    int64_t members = 0;
    double executed = 0;
    double bytes = 0;
    CollectiveOverlap overlap;
  };
  std::map<std::tuple<CollectiveKind, AxisMask, CollectiveRole, PhaseMask>, Sum> sums;
  for (const predictor::PredictedCollective& c : out.prediction.collective_list) {
    const size_t at = static_cast<size_t>(c.at.value());
    const double times = c.at.valid() && at < executions_.size() ? executions_[at] : 1.0;
    const CollectiveOverlap overlap = OverlapOf(overlap_, c);
    Sum& s = sums[{c.kind, c.axes, overlap.role, overlap.window}];
    s.overlap = overlap;
    s.members += 1;
    s.executed += times;
    s.bytes += times * NcclSize(c);
  }
  std::map<AxisMask, std::vector<GroupPlacement>> placements;
  std::vector<TimedCollective> timed;
  for (const auto& [key, sum] : sums) {
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
      for (const predictor::CollectiveGroup& g : out.prediction.collectives) {
        if (g.kind == p.kind && g.axes == p.axes && g.combined > 0) {
          p.operations = static_cast<double>(g.count) * sum.executed / static_cast<double>(g.combined);
        }
      }
    }
    auto found = placements.find(p.axes);
    if (found == placements.end()) {
      ASSIGN_OR_RETURN(std::vector<GroupPlacement> list,
                       Placements(plan.mesh, p.axes, gpus_per_node_));
      found = placements.emplace(p.axes, std::move(list)).first;
    }
    // One operation of the average size, times the operations: exact for
    // the alpha-beta forms, whose bandwidth terms are linear in the size.
    const double each = p.operations > 0 ? p.bytes / p.operations : 0;
    for (const GroupPlacement& placement : found->second) {
      const CollectiveCost c = CostOfCollective(hw_, ToIrCollective(p.kind), each, placement);
      if (c.seconds * p.operations >= p.seconds) {
        p.route = c.route;
        p.seconds = c.seconds * p.operations;
        p.alpha_seconds = c.alpha_seconds * p.operations;
        p.bandwidth_seconds = c.bandwidth_seconds * p.operations;
        p.nvlink_bytes = c.nvlink_bytes * p.operations;
        p.network_bytes = c.network_bytes * p.operations;
      }
    }
    p.overlappable = sum.overlap.overlappable;
    out.bytes_moved += p.nvlink_bytes + p.network_bytes;
    out.network_bytes += p.network_bytes;
    timed.push_back({p.seconds, p.overlappable, p.window});
    out.collectives.push_back(p);
  }
  std::array<double, analyzer::kNumStepPhases> phase_compute{};
  for (analyzer::StepPhase ph : analyzer::kStepPhases) {
    phase_compute[static_cast<size_t>(ph)] = out.phases.of(ph).seconds;
  }
  out.step = CombineStepTime(phase_compute, timed, options_.overlap);
  if (reuse) {
    auto priced = std::make_shared<PricedShare>();
    priced->shardings = shardings;
    priced->axis_sizes = std::move(axis_sizes);
    priced->device_ids = std::move(device_ids);
    predictor::Prediction prediction = std::move(out.prediction);
    priced->cost = out;
    priced->cost.prediction = {};
    out.prediction = std::move(prediction);
    std::lock_guard<std::mutex> lock(priced_mutex_);
    if (priced_.size() >= kPricedShares) priced_.pop_front();
    priced_.push_back(std::move(priced));
  }
  return out;
}

}  // namespace memplan::simulator
