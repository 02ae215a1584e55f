#include "predictor/propagation.h"

#include <algorithm>
#include <utility>

#include "predictor/module_checks.h"
#include "predictor/propagator.h"

namespace memplan::predictor {
namespace {

constexpr int kBackwardRounds = 1;

int32_t CountLeaves(const ir::Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int32_t n = 0;
  for (const ir::Shape& e : shape.tuple_elements) n += CountLeaves(e);
  return n;
}

// First leaf and leaf count of tuple element `index` of `shape`.
std::pair<int64_t, int64_t> ElementLeaves(const ir::Shape& shape, int64_t index) {
  int64_t offset = 0;
  for (int64_t i = 0; i < index && i < static_cast<int64_t>(shape.tuple_elements.size()); ++i) {
    offset += CountLeaves(shape.tuple_elements[static_cast<size_t>(i)]);
  }
  int64_t count = index < static_cast<int64_t>(shape.tuple_elements.size())
                      ? CountLeaves(shape.tuple_elements[static_cast<size_t>(index)])
                      : 0;
  return {offset, count};
}

void MarkFusedBodies(const ir::Module& module, ir::ComputationId c, ir::InstructionId fusion,
                     std::vector<ir::InstructionId>* scheduled_as, int depth) {
  if (depth > 64) return;
  for (ir::InstructionId id : module.computation(c).instructions) {
    (*scheduled_as)[static_cast<size_t>(id.value())] = fusion;
    for (const ir::CalledComputation& call : module.instruction(id).calls) {
      if (module.contains(call.computation)) {
        MarkFusedBodies(module, call.computation, fusion, scheduled_as, depth + 1);
      }
    }
  }
}

}  // namespace

int64_t LeafNumber(const ir::Shape& shape, const ir::ShapeIndex& index) {
  const ir::Shape* s = &shape;
  int64_t leaf = 0;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= static_cast<int64_t>(s->tuple_elements.size())) return -1;
    leaf += ElementLeaves(*s, i).first;
    s = &s->tuple_elements[static_cast<size_t>(i)];
  }
  return s->IsTuple() ? -1 : leaf;
}

void CollectLeafShapes(const ir::Shape& shape, std::vector<const ir::Shape*>* out) {
  if (!shape.IsTuple()) {
    out->push_back(&shape);
    return;
  }
  for (const ir::Shape& e : shape.tuple_elements) CollectLeafShapes(e, out);
}

PropagationGraph PropagationGraph::Build(const ir::Module& module) {
  PropagationGraph graph;
  const size_t n = module.instruction_count();
  graph.leaf_count.resize(n);
  graph.scheduled_as.resize(n);
  graph.rank.resize(n);
  graph.is_array.resize(n);
  graph.dimensions_fit.resize(n);
  for (const ir::Instruction& inst : module.instructions()) {
    const size_t i = static_cast<size_t>(inst.id.value());
    graph.leaf_count[i] = CountLeaves(inst.shape);
    graph.scheduled_as[i] = inst.id;
    graph.rank[i] = static_cast<uint32_t>(inst.shape->dims.size());
    graph.is_array[i] = inst.shape->IsArray();
    graph.dimensions_fit[i] = DimensionNumbersFit(module, inst);
  }
  graph.leaf_offset.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    graph.leaf_offset[i + 1] = graph.leaf_offset[i] + graph.leaf_count[i];
  }
  for (const ir::Instruction& inst : module.instructions()) {
    if (inst.opcode != ir::Opcode::kFusion) continue;
    // Only top-level fusions: a fusion inside a fused body is marked by its
    // outer fusion's walk (which runs after, as outer fusions come later or
    // earlier; the outermost wins because nested ones are re-marked below).
    for (const ir::CalledComputation& call : inst.calls) {
      if (module.contains(call.computation)) {
        MarkFusedBodies(module, call.computation, inst.id, &graph.scheduled_as, 0);
      }
    }
  }
  // Resolve chains (a nested fusion marked as its own fusion, which is itself
  // fused) to the outermost.
  for (size_t i = 0; i < n; ++i) {
    ir::InstructionId at = graph.scheduled_as[i];
    for (int guard = 0; guard < 64 && graph.scheduled_as[static_cast<size_t>(at.value())] != at;
         ++guard) {
      at = graph.scheduled_as[static_cast<size_t>(at.value())];
    }
    graph.scheduled_as[i] = at;
  }
  for (const ir::Instruction& inst : module.instructions()) {
    if (inst.opcode != ir::Opcode::kGather && inst.opcode != ir::Opcode::kScatter) continue;
    if (!graph.dimensions_fit[static_cast<size_t>(inst.id.value())]) continue;
    std::vector<LoweredBatchingDim> dims = FindLoweredBatchingDims(module, graph.scheduled_as, inst);
    if (!dims.empty()) graph.lowered_batching.emplace(inst.id.value(), std::move(dims));
  }
  return graph;
}

// Results the backward hints refine after the rule ran: not the ones that
// pass their operands' leaves through (tuples, loops, calls, whose bodies
// are refined inside), nor those whose rules refine before resharding
// their operands (elementwise, dynamic-update-slice).
bool RefinesResult(ir::Opcode opcode) {
  using ir::Opcode;
  if (IsElementwise(opcode)) return false;
  switch (opcode) {
    case Opcode::kParameter: case Opcode::kTuple: case Opcode::kGetTupleElement:
    case Opcode::kWhile: case Opcode::kCall: case Opcode::kFusion: case Opcode::kConditional:
    case Opcode::kOptimizationBarrier: case Opcode::kDynamicUpdateSlice:
    case Opcode::kConcatenate:
      return false;
    default:
      return true;
  }
}

const AxesSharding* Propagation::Find(ir::InstructionId id, int64_t leaf) const {
  if (!id.valid() || id.value() >= static_cast<int64_t>(leaves.size())) return nullptr;
  const auto& l = leaves[static_cast<size_t>(id.value())];
  if (leaf < 0 || leaf >= static_cast<int64_t>(l.size())) return nullptr;
  return &l[static_cast<size_t>(leaf)];
}

absl::StatusOr<Propagation> Propagate(const ir::Module& module, const PropagationGraph& graph,
                                      const MeshSizes& mesh,
                                      const std::vector<AxesSharding>& parameters,
                                      SizeAnswers* record) {
  const ir::Computation* entry = module.entry_computation();
  if (entry == nullptr) return absl::InvalidArgumentError("the module has no entry computation");
  if (entry->parameters.size() != parameters.size()) {
    return absl::InvalidArgumentError("the plan's argument count differs from the program's");
  }
  Propagation out;
  out.leaves.resize(module.instruction_count());
  std::vector<std::vector<AxesSharding>> params;
  params.reserve(parameters.size());
  for (const AxesSharding& p : parameters) params.push_back({p});
  Propagator propagator(module, graph, mesh, &out, record);
  // Shardy's first stage: pass-through ops settle what the arguments
  // reach through them before any other rule decides.
  propagator.SettlePassThrough(entry->id, parameters);
  propagator.RunComputation(entry->id, params);
  // Backward from the uses, then forward again with the hints. One round:
  // a second changes no figure of samples/sharded and costs a third
  // forward pass per candidate.
  for (int round = 0; round < kBackwardRounds; ++round) {
    propagator.Backward(entry->id, {});
    propagator.ResetForwardState();
    propagator.RunComputation(entry->id, params);
  }
  return out;
}

std::vector<AxesSharding> Propagator::RunComputation(
    ir::ComputationId c, const std::vector<std::vector<AxesSharding>>& params) {
  const ir::Computation& comp = module_.computation(c);
  for (size_t p = 0; p < comp.parameters.size(); ++p) {
    if (!comp.parameters[p].valid()) continue;
    const ir::Instruction& param = module_.instruction(comp.parameters[p]);
    std::vector<AxesSharding> leaves =
        p < params.size() ? params[p] : Replicated(param.shape);
    leaves.resize(static_cast<size_t>(graph_.leaf_count[static_cast<size_t>(param.id.value())]));
    out_.leaves[static_cast<size_t>(param.id.value())] = std::move(leaves);
  }
  for (ir::InstructionId id : comp.instructions) {
    const ir::Instruction& inst = module_.instruction(id);
    if (inst.opcode == ir::Opcode::kParameter) continue;
    // Written in place: a later pass reuses the vector an earlier one left.
    std::vector<AxesSharding>& leaves = out_.leaves[static_cast<size_t>(id.value())];
    Rule(inst, leaves);
    leaves.resize(static_cast<size_t>(graph_.leaf_count[static_cast<size_t>(id.value())]));
    if (RefinesResult(inst.opcode) && leaves.size() == 1) Refine(inst, 0, inst.shape, leaves[0]);
    for (AxesSharding& l : leaves) l.Normalize();
  }
  if (!comp.root.valid()) return {};
  return out_.leaves[static_cast<size_t>(comp.root.value())];
}

std::vector<AxesSharding> Propagator::Replicated(const ir::Shape& shape) const {
  return std::vector<AxesSharding>(static_cast<size_t>(CountLeaves(shape)));
}

const std::vector<AxesSharding>& Propagator::OperandLeaves(const ir::Instruction& inst,
                                                           size_t k) const {
  return out_.leaves[static_cast<size_t>(inst.operands[k].value())];
}

AxesSharding Propagator::Operand(const ir::Instruction& inst, size_t k) const {
  if (k >= inst.operands.size()) return {};
  const auto& leaves = OperandLeaves(inst, k);
  return leaves.size() == 1 ? leaves[0] : AxesSharding{};
}

const ir::Shape& Propagator::OperandShape(const ir::Instruction& inst, size_t k) const {
  return module_.instruction(inst.operands[k]).shape;
}

size_t Propagator::OperandRank(const ir::Instruction& inst, size_t k) const {
  return graph_.rank[static_cast<size_t>(inst.operands[k].value())];
}

void Propagator::Rule(const ir::Instruction& inst, std::vector<AxesSharding>& leaves) {
  if (!graph_.dimensions_fit[static_cast<size_t>(inst.id.value())]) {
    leaves = Unknown(inst);
    return;
  }
  if (ArrayRule(inst, leaves)) return;
  using ir::Opcode;
  switch (inst.opcode) {
    case Opcode::kConstant:
    case Opcode::kIota:
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
    case Opcode::kRngGetAndUpdateState:
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
    case Opcode::kAfterAll:
    case Opcode::kGetDimensionSize:
      leaves.clear();  // replicated (RunComputation sizes it)
      return;
    case Opcode::kTuple:
      leaves.clear();
      for (size_t k = 0; k < inst.operands.size(); ++k) {
        const auto& l = OperandLeaves(inst, k);
        leaves.insert(leaves.end(), l.begin(), l.end());
      }
      return;
    case Opcode::kGetTupleElement: {
      const auto& l = OperandLeaves(inst, 0);
      const int64_t index = module_.attributes(inst).tuple_index;
      auto [offset, count] = ElementLeaves(OperandShape(inst, 0), index);
      if (offset + count > static_cast<int64_t>(l.size())) {
        leaves.clear();
      } else {
        leaves.assign(l.begin() + offset, l.begin() + offset + count);
      }
      return;
    }
    case Opcode::kOptimizationBarrier:
    case Opcode::kAddDependency:
    case Opcode::kCopyStart:
    case Opcode::kCopyDone:
      leaves = OperandLeaves(inst, 0);
      return;
    default:
      leaves = LeafRule(inst);
  }
}

bool Propagator::ArrayRule(const ir::Instruction& inst, std::vector<AxesSharding>& leaves) {
  using ir::Opcode;
  AxesSharding one;
  if (IsElementwise(inst.opcode)) {
    one = Elementwise(inst);
  } else {
    switch (inst.opcode) {
      case Opcode::kBitcast:
        one = OperandShape(inst, 0).dims == inst.shape->dims ? Operand(inst, 0) : Reshape(inst);
        break;
      case Opcode::kReshape: case Opcode::kDynamicReshape: one = Reshape(inst); break;
      case Opcode::kBroadcast: one = Broadcast(inst); break;
      case Opcode::kTranspose: one = Transpose(inst); break;
      case Opcode::kDot: one = Dot(inst); break;
      case Opcode::kConvolution: one = Convolution(inst); break;
      case Opcode::kConcatenate: one = Concatenate(inst); break;
      case Opcode::kSlice:
      case Opcode::kPad:
      case Opcode::kReverse:
      case Opcode::kReduceWindow:
      case Opcode::kSelectAndScatter:
        one = KeepOperandShape(inst);
        break;
      case Opcode::kDynamicSlice: one = DynamicSlice(inst); break;
      case Opcode::kDynamicUpdateSlice: one = DynamicUpdateSlice(inst); break;
      case Opcode::kGather: one = Gather(inst); break;
      default: return false;
    }
  }
  leaves.resize(1);
  leaves[0] = std::move(one);
  return true;
}

std::vector<AxesSharding> Propagator::LeafRule(const ir::Instruction& inst) {
  using ir::Opcode;
  switch (inst.opcode) {
    case Opcode::kReduce: return Reduce(inst);
    case Opcode::kScatter: return Scatter(inst);
    case Opcode::kSort: return Sort(inst);
    case Opcode::kWhile: return While(inst);
    case Opcode::kConditional: return Conditional(inst);
    case Opcode::kCall:
    case Opcode::kFusion:
      return CallBody(inst);
    default:
      return Unknown(inst);
  }
}

std::vector<AxesSharding> Propagator::Unknown(const ir::Instruction& inst) {
  UnknownPropagation u;
  u.instruction = inst.id;
  for (size_t k = 0; k < inst.operands.size(); ++k) {
    const auto& leaves = OperandLeaves(inst, k);
    if (leaves.size() != 1) continue;
    if (!leaves[0].IsReplicated()) {
      u.had_sharded_operand = true;
      Reshard(inst, k, AxesSharding{});
    }
  }
  out_.unknown.push_back(u);
  return Replicated(inst.shape);
}

std::vector<AxesSharding> Propagator::CallBody(const ir::Instruction& inst) {
  ir::ComputationId body;
  for (const ir::CalledComputation& call : inst.calls) {
    if (call.role == ir::CallRole::kFused || call.role == ir::CallRole::kToApply ||
        call.role == ir::CallRole::kCalled) {
      body = call.computation;
      break;
    }
  }
  if (!module_.contains(body)) return Unknown(inst);
  std::vector<std::vector<AxesSharding>> params;
  for (size_t k = 0; k < inst.operands.size(); ++k) params.push_back(OperandLeaves(inst, k));
  const ir::InstructionId saved = fusion_context_;
  if (inst.opcode == ir::Opcode::kFusion && !fusion_context_.valid()) fusion_context_ = inst.id;
  std::vector<AxesSharding> root = RunComputation(body, params);
  fusion_context_ = saved;
  return root;
}

std::vector<AxesSharding> Propagator::While(const ir::Instruction& inst) {
  ir::ComputationId body, condition;
  for (const ir::CalledComputation& call : inst.calls) {
    if (call.role == ir::CallRole::kWhileBody) body = call.computation;
    if (call.role == ir::CallRole::kWhileCondition) condition = call.computation;
  }
  if (!module_.contains(body) || inst.operands.size() != 1) return Unknown(inst);
  std::vector<AxesSharding> carry = OperandLeaves(inst, 0);
  // The loop state's sharding: what the body makes of its input, iterated
  // until it repeats (at most 3 passes); the last pass's collectives are
  // what the body does on every iteration.
  const size_t mark = out_.collectives.size();
  const auto resolved_at_mark = resolved_;
  std::vector<AxesSharding> result;
  for (int pass = 0; pass < 3; ++pass) {
    if (pass > 0) {
      out_.collectives.resize(mark);
      out_.collective_shards.resize(mark);
      resolved_ = resolved_at_mark;  // the body's all-reduces are recorded again
    }
    result = RunComputation(body, {carry});
    for (AxesSharding& l : result) l.partial = 0;
    for (AxesSharding& l : result) l.Normalize();
    if (result == carry) break;
    carry = result;
  }
  if (module_.contains(condition)) RunComputation(condition, {carry});
  ShardInitialState(inst, carry);
  return carry;
}

// A loop state element initialised by a broadcast (zeros for an accumulator)
// is made in the loop's sharding: XLA's propagation reaches it backwards
// from the loop, and each device fills only its shard.
void Propagator::ShardInitialState(const ir::Instruction& loop,
                                   const std::vector<AxesSharding>& carry) {
  const ir::Instruction& init = module_.instruction(loop.operands[0]);
  if (init.opcode != ir::Opcode::kTuple) return;
  auto& tuple_leaves = out_.leaves[static_cast<size_t>(init.id.value())];
  size_t leaf = 0;
  for (ir::InstructionId element : init.operands) {
    const size_t count = static_cast<size_t>(graph_.leaf_count[static_cast<size_t>(element.value())]);
    const ir::Instruction& producer = module_.instruction(element);
    auto& leaves = out_.leaves[static_cast<size_t>(element.value())];
    if (count == 1 && leaf < carry.size() && !carry[leaf].IsReplicated() && leaves.size() == 1 &&
        leaves[0].IsReplicated() && IsBroadcastOfScalars(producer)) {
      leaves[0] = carry[leaf];
      if (leaf < tuple_leaves.size()) tuple_leaves[leaf] = carry[leaf];
    }
    leaf += count;
  }
}

bool Propagator::IsBroadcastOfScalars(const ir::Instruction& inst) const {
  if (inst.opcode != ir::Opcode::kBroadcast && inst.opcode != ir::Opcode::kFusion &&
      inst.opcode != ir::Opcode::kConstant && inst.opcode != ir::Opcode::kIota) {
    return false;
  }
  for (ir::InstructionId op : inst.operands) {
    if (!module_.instruction(op).shape->dims.empty()) return false;
  }
  return true;
}

std::vector<AxesSharding> Propagator::Conditional(const ir::Instruction& inst) {
  std::vector<AxesSharding> result;
  size_t branch = 0;
  for (const ir::CalledComputation& call : inst.calls) {
    if (call.role != ir::CallRole::kBranch) continue;
    ++branch;
    std::vector<std::vector<AxesSharding>> params;
    if (branch < inst.operands.size()) params.push_back(OperandLeaves(inst, branch));
    std::vector<AxesSharding> root = RunComputation(call.computation, params);
    if (result.empty()) result = std::move(root);
  }
  if (result.empty()) return Unknown(inst);
  return result;
}

}  // namespace memplan::predictor
