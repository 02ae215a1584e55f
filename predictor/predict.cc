#include "predictor/predict.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "predictor/all_reduce_combiner.h"
#include "predictor/module_checks.h"
#include "predictor/donated_copies.h"
#include "predictor/layout_copy_gathers.h"
#include "predictor/memory_model.h"
#include "predictor/output_reassignment.h"
#include "predictor/shared_predictions.h"
#include "predictor/size_questions.h"

namespace memplan::predictor {

std::string_view CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllGather: return "all-gather";
    case CollectiveKind::kAllReduce: return "all-reduce";
    case CollectiveKind::kReduceScatter: return "reduce-scatter";
    case CollectiveKind::kAllToAll: return "all-to-all";
  }
  return "unknown";
}

std::string_view PeakBufferKindName(PeakBuffer::Kind kind) {
  switch (kind) {
    case PeakBuffer::Kind::kValue: return "value";
    case PeakBuffer::Kind::kCollectiveResult: return "collective_result";
    case PeakBuffer::Kind::kCollectiveOperand: return "collective_operand";
  }
  return "unknown";
}

namespace {

// InvalidArgument with `message`, led by the spec's place in the plan file
// ("plan.yaml:3:16: error: ") when the plan was read from one.
absl::Status PlanError(const std::string& location, const std::string& message) {
  if (location.empty()) return absl::InvalidArgumentError(message);
  return absl::InvalidArgumentError(absl::StrCat(location, ": error: ", message));
}

// The index among `shape`'s array leaves (CollectLeafShapes' order) of the
// array at `index`; -1 when `index` names no array of `shape`.
int64_t ArrayLeafIndex(const ir::Shape& shape, const ir::ShapeIndex& index) {
  int64_t before = 0;
  const ir::Shape* at = &shape;
  for (int64_t k : index) {
    if (!at->IsTuple() || k < 0 || k >= static_cast<int64_t>(at->tuple_elements.size())) return -1;
    for (int64_t e = 0; e < k; ++e) {
      std::vector<const ir::Shape*> leaves;
      CollectLeafShapes(at->tuple_elements[static_cast<size_t>(e)], &leaves);
      before += static_cast<int64_t>(leaves.size());
    }
    at = &at->tuple_elements[static_cast<size_t>(k)];
  }
  return at->IsArray() ? before : -1;
}

// Values sharing memory in place: in one allocation, at one offset, the
// later one starting before (or when) the earlier one ends.
void FindInPlaceSharing(std::vector<Predictor::ValueInfo>* values,
                        const std::vector<int32_t>& in_allocation) {
  std::map<int64_t, std::vector<int32_t>> by_offset;
  for (int32_t v : in_allocation) by_offset[(*values)[v].value->offset].push_back(v);
  for (auto& [offset, list] : by_offset) {
    if (list.size() < 2) continue;
    std::sort(list.begin(), list.end(), [&](int32_t a, int32_t b) {
      return std::make_pair((*values)[a].start, a) < std::make_pair((*values)[b].start, b);
    });
    for (size_t i = 1; i < list.size(); ++i) {
      auto& later = (*values)[list[i]];
      if (later.end < later.start) continue;
      for (size_t j = i; j-- > 0;) {
        const auto& earlier = (*values)[list[j]];
        if (earlier.end >= later.start && earlier.end >= earlier.start) {
          later.share_with = earlier.share_with >= 0 ? earlier.share_with : list[j];
          break;
        }
      }
    }
  }
}

// Reads what the memory model and propagation give over sub-axes on the
// plan's axes: collectives and instruction shardings name whole axes, and
// collective groups that now name the same axes are one.
void MergeSubAxes(const SubAxes& sub, Prediction* scratch,
                  std::vector<PredictedCollective>* collectives, InstructionShardings* leaves) {
  std::map<std::pair<CollectiveKind, AxisMask>, CollectiveGroup> groups;
  for (const CollectiveGroup& g : scratch->collectives) {
    CollectiveGroup& m = groups[{g.kind, sub.Merge(g.axes)}];
    m.kind = g.kind;
    m.axes = sub.Merge(g.axes);
    m.count += g.count;
    m.combined += g.combined;
    m.result_bytes += g.result_bytes;
  }
  scratch->collectives.clear();
  for (auto& [key, g] : groups) scratch->collectives.push_back(g);
  for (PredictedCollective& pc : *collectives) pc.axes = sub.Merge(pc.axes);
  auto merged = std::make_shared<std::vector<std::vector<AxesSharding>>>(**leaves);
  for (std::vector<AxesSharding>& shardings : *merged) {
    for (AxesSharding& s : shardings) s = sub.Merge(s);
  }
  *leaves = std::move(merged);
}
}  // namespace

Predictor::Predictor(const ir::Program& program) : program_(program) {}
Predictor::~Predictor() = default;

void Predictor::IndexSchedule() {
  const ir::Program& program = program_;
  step_of_.assign(program.module.instruction_count(), -1);
  for (size_t s = 0; s < program.schedule.instructions.size(); ++s) {
    const ir::InstructionId id = program.schedule.instructions[s];
    if (program.module.contains(id) && step_of_[static_cast<size_t>(id.value())] < 0) {
      step_of_[static_cast<size_t>(id.value())] = static_cast<ir::ScheduleStep>(s);
    }
  }
  non_parameter_step_.assign(step_of_.size(), -1);
  for (size_t i = 0; i < step_of_.size(); ++i) {
    if (step_of_[i] >= 0 &&
        program.module.instruction(ir::InstructionId(static_cast<int64_t>(i))).opcode !=
            ir::Opcode::kParameter) {
      non_parameter_step_[i] = step_of_[i];
    }
  }
  max_step_ = program.schedule.max_time >= 0
                  ? program.schedule.max_time
                  : static_cast<ir::ScheduleStep>(program.schedule.instructions.size());
  for (const ir::Value& v : program.values) {
    if (v.live_range) max_step_ = std::max(max_step_, v.live_range->end);
  }
}

void Predictor::IndexParameterShapes() {
  const ir::Module& module = program_.module;
  const ir::Computation& entry = *module.entry_computation();
  auto element_bits = [](const ir::Shape& s) { return s.layout ? s.layout->element_size_bits : 0; };
  parameter_shapes_.assign(entry.parameters.size(), nullptr);
  parameter_same_shape_.assign(entry.parameters.size(), 0);
  for (size_t i = 0; i < entry.parameters.size(); ++i) {
    if (!entry.parameters[i].valid()) continue;
    const ir::Shape& shape = module.instruction(entry.parameters[i]).shape;
    parameter_shapes_[i] = &shape;
    const ir::Shape* before = i > 0 ? parameter_shapes_[i - 1] : nullptr;
    parameter_same_shape_[i] = before != nullptr && shape.IsArray() && before->IsArray() &&
                               shape.dtype == before->dtype && shape.dims == before->dims &&
                               element_bits(shape) == element_bits(*before);
  }
}

void Predictor::IndexAliasedParameters() {
  std::set<int64_t> params;
  for (const ir::InputOutputAlias& a : program_.module.header.input_output_aliases) {
    params.insert(a.parameter_number);
  }
  if (params.empty()) {
    for (const ir::Allocation& a : program_.allocations) {
      if (a.is_entry_parameter() && a.maybe_live_out) params.insert(*a.parameter_number);
    }
  }
  aliased_parameters_.clear();
  for (int64_t p : params) {
    if (p < 0 || p >= static_cast<int64_t>(parameter_shapes_.size())) continue;
    if (parameter_shapes_[static_cast<size_t>(p)] == nullptr) continue;
    aliased_parameters_.push_back(static_cast<size_t>(p));
  }
  alias_leaves_.clear();
  const ir::Computation* entry = program_.module.entry_computation();
  if (entry == nullptr || !entry->root.valid()) return;
  const ir::Shape& root = *program_.module.instruction(entry->root).shape;
  for (const ir::InputOutputAlias& a : program_.module.header.input_output_aliases) {
    if (!a.parameter_index.empty() || a.parameter_number < 0 ||
        a.parameter_number >= static_cast<int64_t>(parameter_shapes_.size())) {
      continue;
    }
    const int64_t leaf = ArrayLeafIndex(root, a.output_index);
    if (leaf >= 0) alias_leaves_.emplace_back(static_cast<size_t>(a.parameter_number), leaf);
  }
}

void Predictor::IndexDonatedReaders() {
  const ir::Module& module = program_.module;
  for (ir::InstructionId id : module.entry_computation()->instructions) {
    const int32_t reader = value_of_[static_cast<size_t>(id.value())];
    if (reader < 0) continue;
    for (ir::InstructionId op : module.instruction(id).operands) {
      const int32_t p = op.valid() ? value_of_[static_cast<size_t>(op.value())] : -1;
      if (p >= 0 && values_[p].donated && values_[p].cls == ValueInfo::Class::kParameter) {
        donated_readers_.emplace_back(p, reader);
      }
    }
  }
}

void Predictor::IndexDonatedAllocations() {
  donated_allocations_.assign(program_.allocations.size(), 0);
  for (const ValueInfo& info : values_) {
    if (info.donated) donated_allocations_[static_cast<size_t>(info.allocation)] = 1;
  }
}

void Predictor::BuildValueTable() {
  const ir::Program& program = program_;
  ir::ScheduleStep latest_end = 0;
  for (const ir::Value& v : program.values) {
    if (v.live_range) latest_end = std::max(latest_end, v.live_range->end);
  }
  allocation_values_.resize(program.allocations.size());
  values_.reserve(program.values.size());
  for (const ir::Value& v : program.values) {
    ValueInfo info;
    info.value = &v;
    if (program.module.contains(v.instruction)) {
      const ir::Shape& shape = program.module.instruction(v.instruction).shape;
      info.leaf = LeafNumber(shape, v.index);
      if (info.leaf >= 0) {
        info.leaf_shape = ir::Subshape(shape, v.index);
        if (info.leaf_shape) info.full_bytes = ir::ByteSizeOf(*info.leaf_shape);
      }
    }
    if (v.live_range) {
      info.start = v.live_range->start;
      info.end = v.live_range->end;
      info.live_out = v.live_range->end >= latest_end;
    }
    const ir::Allocation* a = v.allocation.valid() ? program.FindAllocation(v.allocation) : nullptr;
    if (a != nullptr) {
      info.allocation = static_cast<int32_t>(a - program.allocations.data());
      if (a->is_entry_parameter()) {
        info.donated = a->maybe_live_out;
        const bool parameter = program.module.contains(v.instruction) &&
                               program.module.instruction(v.instruction).opcode == ir::Opcode::kParameter;
        info.cls = reassign_outputs_ && info.donated && !parameter ? ValueInfo::Class::kOutput
                                                                   : ValueInfo::Class::kParameter;
      } else if (a->maybe_live_out) {
        info.cls = ValueInfo::Class::kOutput;
      } else if (!a->is_constant && !a->is_thread_local) {
        info.cls = ValueInfo::Class::kTemp;
      }
      allocation_values_[static_cast<size_t>(info.allocation)].push_back(static_cast<int32_t>(values_.size()));
    }
    values_.push_back(info);
  }
  value_of_.assign(program.module.instruction_count(), -1);
  for (size_t v = 0; v < values_.size(); ++v) {
    const ValueInfo& info = values_[v];
    if (info.leaf == 0 && info.value->index.empty() && program.module.contains(info.value->instruction)) {
      value_of_[static_cast<size_t>(info.value->instruction.value())] = static_cast<int32_t>(v);
    }
  }
  for (size_t a = 0; a < program.allocations.size(); ++a) {
    // A donated parameter's allocation too, re-assigning: XLA lets a
    // buffer there take over its operand's memory at the step it ends
    // (ynn_fusion.18 and broadcast_select_fusion in transformer_train_adam's
    // allocation 1), and the re-run moves the pair as one.
    const ir::Allocation& alloc = program.allocations[a];
    if (alloc.is_preallocated_temp || !alloc.maybe_live_out ||
        (reassign_outputs_ && alloc.is_entry_parameter())) {
      FindInPlaceSharing(&values_, allocation_values_[a]);
    }
  }
  for (size_t a = 0; a < allocation_values_.size(); ++a) {
    for (int32_t v : allocation_values_[a]) {
      if (values_[v].cls == ValueInfo::Class::kOutput && values_[v].live_out) {
        live_out_outputs_.emplace_back(static_cast<int32_t>(a), v);
      }
    }
  }
  if (reassign_outputs_) {
    IndexDonatedReaders();
    IndexDonatedAllocations();
  }
  value_walk_.reserve(values_.size());
  for (const ValueInfo& info : values_) {
    value_walk_.push_back({info.start, info.end, info.allocation, info.cls, info.donated, info.live_out});
  }
  value_ends_.reserve(values_.size());
  for (const ValueInfo& info : values_) value_ends_.push_back(info.end);
  value_starts_.reserve(values_.size());
  for (const ValueInfo& info : values_) value_starts_.push_back(info.start);
  for (size_t v = 0; v < values_.size(); ++v) {
    if (values_[v].cls == ValueInfo::Class::kOutput) output_values_.push_back(static_cast<int32_t>(v));
  }
  for (size_t v = 0; v < values_.size(); ++v) {
    if (values_[v].share_with < 0) continue;
    in_place_values_.emplace_back(static_cast<int32_t>(v), values_[v].share_with);
  }
}

absl::StatusOr<std::unique_ptr<Predictor>> Predictor::Create(const ir::Program& program,
                                                             PredictOptions options) {
  if (program.module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError(
        "the program has no module graph with an entry computation to propagate shardings "
        "through");
  }
  RETURN_IF_ERROR(CheckShapesSizable(program.module));
  std::unique_ptr<Predictor> p(new Predictor(program));
  p->options_ = options;
  if (options.share_between_candidates) {
    const size_t instructions = std::max<size_t>(1, program.module.instruction_count());
    const size_t capacity = options.shared_capacity > 0
                                ? options.shared_capacity
                                : std::clamp<size_t>(8'000'000 / instructions, 4, 32);
    p->shared_ = std::make_unique<SharedPredictions>(capacity);
  }
  p->graph_ = PropagationGraph::Build(program.module);
  p->unsharded_ = analyzer::ComputeMemoryStats(program);
  const ir::Computation& entry = *program.module.entry_computation();
  p->parameter_ranks_.reserve(entry.parameters.size());
  for (ir::InstructionId id : entry.parameters) {
    p->parameter_ranks_.push_back(
        id.valid() ? static_cast<int64_t>(program.module.instruction(id).shape->dims.size()) : 0);
  }
  p->IndexParameterShapes();
  p->IndexAliasedParameters();
  p->IndexSchedule();
  p->combiner_schedule_ =
      std::make_unique<const CombinerSchedule>(CombinerSchedule::Of(program, p->step_of_));
  p->reassign_outputs_ = options.reassign_output_allocations &&
                         program.assignment_source != ir::AssignmentSource::kSynthesised;
  p->BuildValueTable();
  p->layout_copies_ = LayoutCopiesOfComputedValues(program.module);
  p->donated_copies_ = FindDonatedCopies(program.module, p->values_, p->value_of_, p->allocation_values_);
  if (p->reassign_outputs_) {
    LoopBufferLeaders(p->values_, p->allocation_values_, p->loop_leader_);
    for (size_t v = 0; v < p->loop_leader_.size(); ++v) {
      if (p->loop_leader_[v] != static_cast<int32_t>(v)) p->loop_followers_.push_back(static_cast<int32_t>(v));
    }
    InstructionPostOrder(program.module, p->post_order_);
    p->IndexValueOrder();
  }
  return p;
}

void Predictor::IndexValueOrder() {
  value_order_.resize(values_.size());
  const int64_t positions = static_cast<int64_t>(post_order_.size());
  for (size_t v = 0; v < values_.size(); ++v) {
    const ir::InstructionId inst = values_[v].value->instruction;
    const int64_t id = inst.valid() ? inst.value() : -1;
    const int64_t pos = id >= 0 && id < positions ? post_order_[static_cast<size_t>(id)] : -1;
    value_order_[v] = pos < 0 ? std::numeric_limits<int64_t>::max() : 2 * pos + 1;
  }
}

absl::StatusOr<std::shared_ptr<const SharedPrediction>> Predictor::SharedFor(
    const ir::ResolvedPlan& plan, const MeshSizes& mesh, const ArgumentAxes& arguments) const {
  std::shared_ptr<const SharedPrediction> shared;
  if (shared_ == nullptr) {
    ASSIGN_OR_RETURN(shared, Share(plan, mesh, SharedList(arguments.Expand()), nullptr));
    computed_.fetch_add(1, std::memory_order_relaxed);
    return shared;
  }
  std::string key = SharedPredictions::Key(mesh, arguments);
  shared = shared_->Find(key);
  if (shared != nullptr) {
    same_sizes_.fetch_add(1, std::memory_order_relaxed);
    return shared;
  }
  const std::string structure_key = SharedPredictions::StructureKey(mesh.sizes.size(), arguments);
  if (auto structure = shared_->FindStructure(structure_key, mesh)) {
    shared = Resize(*structure, plan, mesh);
    same_structure_.fetch_add(1, std::memory_order_relaxed);
  } else {
    ASSIGN_OR_RETURN(shared, Share(plan, mesh, SharedList(arguments.Expand()), &structure));
    if (structure) shared_->InsertStructure(structure_key, std::move(structure));
    computed_.fetch_add(1, std::memory_order_relaxed);
  }
  shared_->Insert(std::move(key), shared);
  return shared;
}

int64_t Predictor::DroppedAliasBytes(const ir::ResolvedPlan& plan, const Prediction& out) const {
  MeshSizes mesh;
  for (const ir::MeshAxis& axis : plan.mesh.axes) mesh.sizes.push_back(axis.size);
  int64_t dropped = 0;
  for (const auto& [p, leaf] : alias_leaves_) {
    if (p >= out.argument_shardings.size() || leaf >= out.output_shardings.size()) continue;
    AxesSharding in = out.argument_shardings[p], result = out.output_shardings[leaf];
    in.partial = 0;
    in.Normalize();
    result.Normalize();
    if (in == result) continue;
    dropped += ShardBytes(*parameter_shapes_[p], out.argument_shardings[p], mesh);
  }
  return dropped;
}

absl::Status Predictor::SetOutputs(const ir::ResolvedPlan& plan, const SharedPrediction& shared,
                                   Prediction& out) const {
  const ir::Module& module = program_.module;
  const SubAxes& sub = shared.sub;
  const ir::Instruction& root = module.instruction(module.entry_computation()->root);
  std::vector<const ir::Shape*> out_shapes;
  CollectLeafShapes(root.shape, &out_shapes);
  out.output_shardings = shared.root_leaves;
  out.output_shardings.resize(out_shapes.size());
  for (size_t k = 0; k < out.output_shardings.size(); ++k) {
    if (k < plan.outputs.size() && plan.outputs[k]) {
      auto axes = AxesFromHloSharding(*plan.outputs[k], plan.mesh,
                                      static_cast<int64_t>(out_shapes[k]->dims.size()));
      if (!axes.ok()) {
        return PlanError(plan.OutputLocation(k), absl::StrCat("output ", k, ": ", axes.status().message()));
      }
      out.output_shardings[k] = sub.Split(*axes);
    }
    out.output_shardings[k].partial = 0;
  }
  DeviceMemory d = shared.device;
  d.output_bytes = OutputShardBytes(module, out.output_shardings, sub.mesh);
  for (AxesSharding& s : out.output_shardings) s = sub.Merge(s);
  d.alias_bytes -= DroppedAliasBytes(plan, out);
  d.device_footprint_bytes = d.argument_bytes + d.output_bytes - d.alias_bytes + d.temp_bytes;
  for (int64_t id : out.mesh.DeviceIds()) {
    d.device = id;
    out.devices.push_back(d);
  }
  out.max_device_footprint_bytes = d.device_footprint_bytes;
  return absl::OkStatus();
}

absl::StatusOr<Prediction> Predictor::Predict(const ir::ResolvedPlan& plan) const {
  const ir::Computation& entry = *program_.module.entry_computation();
  RETURN_IF_ERROR(plan.mesh.Validate());
  if (plan.arguments.size() != entry.parameters.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the plan has ", plan.arguments.size(),
                                                   " arguments; the program has ",
                                                   entry.parameters.size()));
  }
  MeshSizes mesh;
  for (const ir::MeshAxis& axis : plan.mesh.axes) mesh.sizes.push_back(axis.size);
  Prediction out;
  out.mesh = plan.mesh;
  out.label = plan.label;
  out.unsharded = unsharded_;
  out.unmatched_arguments = plan.unmatched_arguments;
  ArgumentAxes arguments;
  RETURN_IF_ERROR(ReadArguments(plan, &arguments));
  ASSIGN_OR_RETURN(const std::shared_ptr<const SharedPrediction> shared, SharedFor(plan, mesh, arguments));
  out.argument_shardings = shared->arguments;
  // Outputs: the root's leaves (a plan's output shardings win), partial sums
  // reduced.
  RETURN_IF_ERROR(SetOutputs(plan, *shared, out));
  out.collectives = shared->collectives;
  out.combined_all_reduces = shared->combined_all_reduces;
  out.collective_list = shared->collective_list;
  out.unknown = shared->unknown;
  out.instruction_shardings = shared->leaves;
  out.live_at_peak = shared->live_at_peak;
  return out;
}

absl::Status Predictor::ReadArguments(const ir::ResolvedPlan& plan, ArgumentAxes* out) const {
  out->of.reserve(plan.arguments.size());
  // A plan keeps each distinct sharding once (ir::ShardingTable): each is
  // read as mesh axes once per rank it is used at, and an argument of the
  // same index and rank as the one before it (every layer's weight) takes
  // the same entry.
  // Per table index + 1 (0: kReplicatedIndex): (rank, index into out->distinct).
  std::vector<absl::InlinedVector<std::pair<int64_t, uint32_t>, 2>> read_at(
      plan.shardings.size() + 1);
  int32_t previous_index = 0;
  int64_t previous_rank = -1;
  for (size_t i = 0; i < plan.arguments.size(); ++i) {
    const int64_t rank = parameter_ranks_[i];
    const int32_t index = plan.arguments[i].sharding_index;
    if (i > 0 && index == previous_index && rank == previous_rank) {
      out->of.push_back(out->of.back());
      continue;
    }
    if (!plan.ValidShardingIndex(i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " (", plan.ArgumentName(i), "): sharding index ", index,
          " is not in the plan's table of ", plan.shardings.size()));
    }
    previous_index = index;
    previous_rank = rank;
    auto& at = read_at[static_cast<size_t>(index + 1)];
    auto known = std::find_if(at.begin(), at.end(), [&](const auto& e) { return e.first == rank; });
    if (known == at.end()) {
      auto axes = AxesFromHloSharding(plan.ArgumentSharding(i), plan.mesh, rank);
      if (!axes.ok()) {
        return PlanError(plan.ArgumentLocation(i), absl::StrCat("argument ", i, " (", plan.ArgumentName(i),
                                                                "): ", axes.status().message()));
      }
      // Two table entries (or ranks) can read as the same mesh axes.
      auto same = std::find(out->distinct.begin(), out->distinct.end(), *axes);
      const auto position = static_cast<uint32_t>(same - out->distinct.begin());
      if (same == out->distinct.end()) out->distinct.push_back(*std::move(axes));
      known = at.insert(at.end(), {rank, position});
    }
    out->of.push_back(known->second);
  }
  return absl::OkStatus();
}

Predictor::SharingCounts Predictor::sharing_counts() const {
  return {same_sizes_.load(), same_structure_.load(), computed_.load(), packing_scaled_.load()};
}

absl::StatusOr<std::shared_ptr<const SharedPrediction>> Predictor::Share(
    const ir::ResolvedPlan& plan, const MeshSizes& plan_mesh,
    const SharedList<AxesSharding>& plan_arguments,
    std::shared_ptr<const StructuralPrediction>* structure) const {
  const ir::Module& module = program_.module;
  std::shared_ptr<StructuralPrediction> kept;
  if (structure != nullptr) kept = std::make_shared<StructuralPrediction>();
  ASSIGN_OR_RETURN(Propagation prop, Propagate(module, graph_, plan_mesh, plan_arguments.items(),
                                               kept ? &kept->answers : nullptr));
  // A reshape that could have kept part of an axis: again, on sub-axes.
  // Which part depends on the sizes beyond the recorded answers, so such a
  // propagation is not kept for candidates of other sizes.
  if (prop.sub_axes_asked) kept = nullptr;
  SubAxes sub = FactorMesh(plan_mesh, prop.wanted_sub_axes);
  SharedList<AxesSharding> split_arguments = plan_arguments;
  if (!sub.identity) {
    std::vector<AxesSharding> split;
    split.reserve(plan_arguments.size());
    for (const AxesSharding& s : plan_arguments) split.push_back(sub.Split(s));
    ASSIGN_OR_RETURN(prop, Propagate(module, graph_, sub.mesh, split, nullptr));
    split_arguments = SharedList(std::move(split));
  }
  const MeshSizes& mesh = sub.mesh;
  const ir::Instruction& root = module.instruction(module.entry_computation()->root);
  std::vector<AxesSharding> root_leaves = prop.leaves[static_cast<size_t>(root.id.value())];
  auto leaves = std::make_shared<const std::vector<std::vector<AxesSharding>>>(
      std::move(prop.leaves));
  PackingMemo* memo = nullptr;
  if (kept) {
    kept->answers.FinishRecording();
    kept->arguments = plan_arguments;
    kept->leaves = leaves;
    kept->root_leaves = root_leaves;
    kept->collective_list = prop.collectives;
    kept->collective_bytes = CollectiveByteTerms::Of(prop.collective_shards);
    kept->unknown = prop.unknown;
    memo = &kept->packing;
    *structure = kept;
  }
  return std::shared_ptr<const SharedPrediction>(
      Model(plan, mesh, plan_arguments, split_arguments, std::move(leaves),
            std::move(root_leaves), std::move(prop.collectives), std::move(prop.unknown), memo,
            sub));
}

std::shared_ptr<const SharedPrediction> Predictor::Resize(
    const StructuralPrediction& structure, const ir::ResolvedPlan& plan,
    const MeshSizes& mesh) const {
  std::vector<PredictedCollective> collectives = structure.collective_list;
  structure.collective_bytes.SetBytes(mesh, collectives);
  SubAxes identity;
  identity.mesh = mesh;
  return Model(plan, mesh, structure.arguments, structure.arguments, structure.leaves,
               structure.root_leaves,
               std::move(collectives), structure.unknown, &structure.packing, identity);
}

std::shared_ptr<SharedPrediction> Predictor::Model(
    const ir::ResolvedPlan& plan, const MeshSizes& mesh, const SharedList<AxesSharding>& arguments,
    const SharedList<AxesSharding>& model_arguments, InstructionShardings leaves,
    std::vector<AxesSharding> root_leaves, std::vector<PredictedCollective> collectives,
    std::vector<UnknownPropagation> unknown, PackingMemo* memo, const SubAxes& sub) const {
  const ir::Module& module = program_.module;
  auto shared = std::make_shared<SharedPrediction>();
  const ir::Instruction& root = module.instruction(module.entry_computation()->root);
  shared->root_leaves = std::move(root_leaves);
  // The memory model on the propagated outputs (their bytes are redone per
  // candidate; nothing else it computes reads them).
  Prediction scratch;
  scratch.mesh = plan.mesh;
  scratch.argument_shardings = model_arguments;
  std::vector<const ir::Shape*> out_shapes;
  CollectLeafShapes(root.shape, &out_shapes);
  scratch.output_shardings = shared->root_leaves;
  scratch.output_shardings.resize(out_shapes.size());
  for (AxesSharding& s : scratch.output_shardings) s.partial = 0;
  MemoryModel model(*this, mesh, *leaves, collectives, scratch);
  model.Run(memo);
  if (model.packing_scaled()) packing_scaled_.fetch_add(1, std::memory_order_relaxed);
  shared->device = scratch.devices.empty() ? DeviceMemory{} : scratch.devices.front();
  shared->live_at_peak = std::move(scratch.live_at_peak);
  if (!sub.identity) MergeSubAxes(sub, &scratch, &collectives, &leaves);
  shared->sub = sub;
  shared->arguments = arguments;
  shared->collectives = std::move(scratch.collectives);
  shared->combined_all_reduces = std::move(scratch.combined_all_reduces);
  shared->collective_list = SharedList(std::move(collectives));
  shared->unknown = std::move(unknown);
  shared->leaves = std::move(leaves);
  return shared;
}

}  // namespace memplan::predictor
