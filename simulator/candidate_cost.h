// The price of one sharding candidate on some hardware: the predicted
// per-device memory (predictor/predict.h), the compute time of one device,
// the time of the collectives the sharding implies, and the step time under
// an overlap model (docs/cost-model.md, "Pricing a candidate"):
//
//   compute     each instruction with work of its own (simulator/
//               compute_cost.h's roofline time, loops at their trip counts)
//               divided by the ways its result is split: the product of the
//               sizes of the mesh axes that split any dimension of its
//               output or over which it is a partial sum, as propagation
//               left it. A replicated instruction costs every device its
//               full time; a tuple result takes its least-split leaf.
//   collectives the prediction's collectives grouped by kind, mesh axes and
//               role in the step (simulator/overlap.h);
//               each executed as often as the instruction that needs it
//               (loop trip counts), all-reduces combined as the prediction
//               combined them; priced with collective_cost.h over the device
//               groups of their axes (mesh_groups.h), devices placed
//               gpus_per_node to a node; the slowest placement when groups
//               sit differently.
//   phases      compute split into forward, backward and optimizer
//               (analyzer/step_phases.h) where the program is a training step.
//   step        step_time.h's CombineStepTime over the phases' compute;
//               under per-collective overlap each collective hides as what
//               it does allows (simulator/overlap.h: gradient reductions
//               behind backward, prefetchable gathers behind the phases
//               before their reader, anything else not at all).
//
// A CostModel does the per-program work once (the predictor's preparation,
// the unsharded compute cost); Price() is then per candidate.
#ifndef MEMPLAN_SIMULATOR_CANDIDATE_COST_H_
#define MEMPLAN_SIMULATOR_CANDIDATE_COST_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/plan.h"
#include "ir/program.h"
#include "predictor/predict.h"
#include "simulator/collective_cost.h"
#include "simulator/compute_cost.h"
#include "simulator/hardware.h"
#include "simulator/overlap.h"
#include "simulator/step_time.h"

namespace memplan::simulator {

struct PricingOptions {
  ComputeOptions compute;
  OverlapModel overlap = OverlapModel::kPerCollective;
  // Devices on one node; 0: the hardware's gpus_per_node.
  int64_t gpus_per_node = 0;
  predictor::PredictOptions predict;
};

// The collectives of one kind over one set of mesh axes with one role in
// the step, priced.
struct PricedCollective {
  predictor::CollectiveKind kind = predictor::CollectiveKind::kAllGather;
  predictor::AxisMask axes = 0;
  CollectiveRole role = CollectiveRole::kCritical;
  PhaseMask window = 0;  // phases whose compute may hide it (per-collective model)
  int64_t ranks = 1;         // devices in each group
  int64_t members = 0;       // the prediction's collectives of this kind and axes
  double operations = 0;     // executed per step, after combining
  double bytes = 0;          // nccl-tests' size S, summed over the executions, per device
  Route route = Route::kNone;  // of the slowest placement
  double seconds = 0;
  double alpha_seconds = 0;
  double bandwidth_seconds = 0;
  double nvlink_bytes = 0;   // bus bytes each device moves on NVLink
  double network_bytes = 0;  // and on its NIC
  double overlappable = 0;   // 0 or 1 (per-collective model): by role
};

struct CandidateCost {
  // The memory prediction, without its per-instruction shardings.
  predictor::Prediction prediction;
  double flops = 0;            // per device, executed
  // Per device as XLA's cost_analysis() counts it: loop bodies once.
  double xla_flops = 0;
  double bytes_accessed = 0;   // per device, executed
  double compute_seconds = 0;  // per device
  // compute_seconds, flops and bytes_accessed by phase of a training step.
  PhaseSplit phases;
  std::vector<PricedCollective> collectives;  // by kind, then axes, then role
  StepTime step;
  double bytes_moved = 0;  // per device, NVLink and network together
  double network_bytes = 0;
};

class CostModel {
 public:
  // Prepares `program` (which must outlive the model) for pricing on `hw`.
  // InvalidArgument when the hardware's or options' gpus_per_node is below 1,
  // or the predictor refuses the program.
  static absl::StatusOr<std::unique_ptr<CostModel>> Create(const ir::Program& program,
                                                           const Hardware& hw,
                                                           PricingOptions options = {});

  // The price of `plan`. The predictor's errors, and InvalidArgument when
  // the plan's mesh has more than 32 axes.
  absl::StatusOr<CandidateCost> Price(const ir::ResolvedPlan& plan) const;

  const ir::Program& program() const { return predictor_->program(); }
  const Hardware& hardware() const { return hw_; }
  const PricingOptions& options() const { return options_; }
  int64_t gpus_per_node() const { return gpus_per_node_; }
  // The program on one device (no sharding).
  const ComputeCost& unsharded_compute() const { return compute_; }
  // Executions of `id` per step (loop trip counts); 1 outside loops and
  // for an id the module lacks.
  double Executions(ir::InstructionId id) const {
    return id.valid() && static_cast<size_t>(id.value()) < executions_.size()
               ? executions_[static_cast<size_t>(id.value())]
               : 1.0;
  }
  // The phases and input facts collectives' roles are decided from.
  const OverlapFacts& overlap_facts() const { return overlap_; }

 private:
  CostModel() = default;

  // Prices `out`'s predicted collectives on `plan_mesh` (axis sizes `mesh`),
  // appending them to out->collectives and their bytes to its totals; the
  // step-time view of each, in the same order. Placements' errors.
  absl::StatusOr<std::vector<TimedCollective>> PriceCollectives(
      const ir::Mesh& plan_mesh, const predictor::MeshSizes& mesh, CandidateCost* out) const;
  // The remembered price (without its prediction) of a candidate with these
  // shardings, axis sizes and device order; nullopt when none is kept.
  std::optional<CandidateCost> FindPriced(const predictor::InstructionShardings& shardings,
                                          const std::vector<int64_t>& axis_sizes,
                                          const std::vector<int64_t>& device_ids) const;
  // Keeps `cost` (less its prediction, which stays in *cost) for later
  // candidates of the same key, dropping the oldest beyond kPricedShares.
  void RememberPriced(const predictor::InstructionShardings& shardings,
                      std::vector<int64_t> axis_sizes, std::vector<int64_t> device_ids,
                      CandidateCost* cost) const;

  std::unique_ptr<predictor::Predictor> predictor_;
  Hardware hw_;
  PricingOptions options_;
  int64_t gpus_per_node_ = 0;
  ComputeCost compute_;
  // Per instruction: executions per step (1 for one outside loops).
  std::vector<double> executions_;
  OverlapFacts overlap_;
  // Work shared between candidates (when options.predict shares): the
  // price of a candidate whose prediction shares its propagation with an
  // earlier one (the same InstructionShardings) on the same mesh axis sizes
  // and device order is that one's (candidates of other axis sizes share
  // propagations too: predictor/shared_predictions.h). Newest last, at most
  // kPricedShares.
  struct PricedShare {
    predictor::InstructionShardings shardings;  // held: the key's identity
    std::vector<int64_t> axis_sizes;
    std::vector<int64_t> device_ids;
    CandidateCost cost;  // without its prediction
  };
  static constexpr size_t kPricedShares = 32;
  mutable std::mutex priced_mutex_;
  mutable std::deque<std::shared_ptr<const PricedShare>> priced_;
};

// ir's name for a predicted collective's kind.
ir::CollectiveKind ToIrCollective(predictor::CollectiveKind kind);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_CANDIDATE_COST_H_
