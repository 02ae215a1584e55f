// The backward pass of sharding propagation: from users to operands, as
// XLA's ShardingPropagation runs backward as well as forward. Each user
// says which sharding it would take an operand in (from its own sharding,
// refined by its own hint); the operand keeps, as its hint, the want that
// splits over the most devices. The next forward pass refines each result
// with its hint on the dimensions it leaves unsplit, so what the arguments
// make of a value is never overridden, only split on free dimensions: a
// zero accumulator takes the sharding of the loop state it starts, a scaled
// gradient the sharding of the parameter it updates (its partial sum then
// reduced there and sliced).
#include <algorithm>

#include "absl/types/span.h"
#include "predictor/propagator.h"
#include "predictor/reshape_groups.h"

namespace memplan::predictor {
namespace {

bool Listed(absl::Span<const int64_t> v, int64_t d) {
  return std::find(v.begin(), v.end(), d) != v.end();
}

int64_t CountLeavesOf(const ir::Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const ir::Shape& e : shape.tuple_elements) n += CountLeavesOf(e);
  return n;
}

}  // namespace

void Propagator::ResetForwardState() {
  out_.collectives.clear();
  out_.collective_shards.clear();
  out_.unknown.clear();
  resolved_.clear();
  fusion_context_ = ir::InstructionId();
}

void Propagator::AddHint(ir::InstructionId id, size_t leaf, const AxesSharding& want) {
  if (want.UsedAxes() == 0 || IsEntryParameterOrCopy(id)) return;
  const size_t count = static_cast<size_t>(graph_.leaf_count[static_cast<size_t>(id.value())]);
  if (leaf >= count) return;
  AxesSharding& hint = HintsOf(id)[leaf];
  AxesSharding w = want;
  w.partial = 0;
  w.Normalize();
  // A settled value only takes a want that refines it (Shardy's later
  // stages make a sharding more specific, never another).
  if (count == 1 && Settled(id) && !RefinesSettled(hint, w)) return;
  if (sizes_.MoreWays(w.UsedAxes(), hint.UsedAxes())) hint = std::move(w);
}

namespace {

// A dimension split by `have` takes the hint's axes `add` when the hint
// splits it by `have` and more (`hint`) and `add` is the minor part of the
// hint's split (bit order is mesh order, major first): the same devices
// keep their part, each now split further, as XLA's propagation merges a
// partially replicated sharding with a compatible more specific one.
// Always when the dimension is unsplit.
bool RefinesAsMinorAxes(AxisMask have, AxisMask hint, AxisMask add) {
  if (have == 0) return true;
  if ((have & ~hint) != 0) return false;
  AxisMask below_have_minor = 0;  // have's axes and every axis more major than them
  for (size_t a = 0; a < 32; ++a) {
    const AxisMask bit = AxisMask{1} << a;
    below_have_minor |= bit;
    if ((have & ~below_have_minor) == 0) break;
  }
  return (add & below_have_minor) == 0;
}

}  // namespace

bool Propagator::RefinesSettled(const AxesSharding& settled, const AxesSharding& want) {
  for (size_t d = 0; d < std::max(settled.dims.size(), want.dims.size()); ++d) {
    const AxisMask have = settled.Dim(d), add = want.Dim(d) & ~have;
    if ((have & ~want.Dim(d)) != 0) return false;
    if (add != 0 && !RefinesAsMinorAxes(have, want.Dim(d), add)) return false;
  }
  return true;
}

void Propagator::Refine(const ir::Instruction& inst, size_t leaf, const ir::Shape& shape,
                        AxesSharding& s) const {
  const size_t count = static_cast<size_t>(graph_.leaf_count[static_cast<size_t>(inst.id.value())]);
  if (leaf >= count || !shape.IsArray()) return;
  const AxesSharding& hint = HintsOf(inst.id)[leaf];
  if (hint.UsedAxes() == 0) return;
  for (size_t d = 0; d < shape.dims.size(); ++d) {
    const AxisMask add = hint.Dim(d) & ~(s.UsedAxes() | s.partial);
    if (add == 0 || !RefinesAsMinorAxes(s.Dim(d), hint.Dim(d), add)) continue;
    if (!sizes_.Divides(shape.dims[d], s.Dim(d) | add)) continue;
    if (s.dims.size() <= d) s.dims.resize(d + 1, 0);
    s.dims[d] |= add;
  }
}

void Propagator::Backward(ir::ComputationId c, const std::vector<AxesSharding>& root_hints) {
  const ir::Computation& comp = module_.computation(c);
  if (comp.root.valid()) {
    for (size_t l = 0; l < root_hints.size(); ++l) AddHint(comp.root, l, root_hints[l]);
  }
  for (auto it = comp.instructions.rbegin(); it != comp.instructions.rend(); ++it) {
    const ir::Instruction& inst = module_.instruction(*it);
    if (inst.opcode == ir::Opcode::kParameter) continue;
    if (!graph_.dimensions_fit[static_cast<size_t>(inst.id.value())]) continue;  // no rule reads it
    const auto& forward = out_.leaves[static_cast<size_t>(inst.id.value())];
    if (forward.empty()) continue;  // never reached
    const bool passes_leaves = inst.opcode == ir::Opcode::kTuple ||
                               inst.opcode == ir::Opcode::kGetTupleElement ||
                               inst.opcode == ir::Opcode::kOptimizationBarrier;
    if (forward.size() == 1 && inst.calls.empty() && inst.shape->IsArray() && !passes_leaves) {
      BackwardArray(inst, forward[0]);
    } else {
      BackwardLeaves(inst, forward);
    }
  }
}

void Propagator::BackwardArray(const ir::Instruction& inst, const AxesSharding& forward) {
  AxesSharding r = forward;
  Refine(inst, 0, inst.shape, r);
  for (size_t k = 0; k < inst.operands.size(); ++k) {
    const std::optional<AxesSharding> want = ArrayWant(inst, k, r);
    if (want) AddHint(inst.operands[k], 0, *want);
  }
}

void Propagator::BackwardLeaves(const ir::Instruction& inst,
                                const std::vector<AxesSharding>& forward) {
  std::vector<const ir::Shape*> shapes;
  CollectLeafShapes(inst.shape, &shapes);
  std::vector<AxesSharding> result = forward;
  for (size_t l = 0; l < result.size() && l < shapes.size(); ++l) {
    Refine(inst, l, *shapes[l], result[l]);
  }
  // Bodies: the result's wants go to the body root, the body parameters'
  // to the operands.
  ir::ComputationId body;
  for (const ir::CalledComputation& call : inst.calls) {
    if (call.role == ir::CallRole::kFused || call.role == ir::CallRole::kWhileBody ||
        (inst.opcode == ir::Opcode::kCall && call.role == ir::CallRole::kToApply)) {
      body = call.computation;
    }
  }
  if (module_.contains(body) &&
      (inst.opcode == ir::Opcode::kFusion || inst.opcode == ir::Opcode::kCall ||
       inst.opcode == ir::Opcode::kWhile)) {
    BackwardBody(inst, body, result);
    return;
  }
  for (size_t k = 0; k < inst.operands.size(); ++k) {
    const std::vector<AxesSharding> want = OperandWant(inst, k, result);
    for (size_t l = 0; l < want.size(); ++l) AddHint(inst.operands[k], l, want[l]);
  }
}

void Propagator::BackwardBody(const ir::Instruction& inst, ir::ComputationId body,
                              const std::vector<AxesSharding>& result) {
  Backward(body, result);
  const ir::Computation& b = module_.computation(body);
  for (size_t k = 0; k < inst.operands.size() && k < b.parameters.size(); ++k) {
    if (!b.parameters[k].valid()) continue;
    const AxesSharding* hints = HintsOf(b.parameters[k]);
    const size_t count =
        static_cast<size_t>(graph_.leaf_count[static_cast<size_t>(b.parameters[k].value())]);
    for (size_t l = 0; l < count; ++l) AddHint(inst.operands[k], l, hints[l]);
  }
  if (inst.opcode == ir::Opcode::kWhile && !inst.operands.empty()) {
    for (size_t l = 0; l < result.size(); ++l) AddHint(inst.operands[0], l, result[l]);
  }
}

std::vector<AxesSharding> Propagator::TupleOperandWant(const ir::Instruction& inst, size_t k,
                                                       const std::vector<AxesSharding>& result) const {
  const ir::Shape& op_shape = OperandShape(inst, k);
  if (inst.opcode == ir::Opcode::kTuple) {
    size_t offset = 0;
    for (size_t j = 0; j < k; ++j) offset += static_cast<size_t>(CountLeavesOf(OperandShape(inst, j)));
    const size_t count = static_cast<size_t>(CountLeavesOf(op_shape));
    if (offset + count > result.size()) return {};
    return {result.begin() + static_cast<std::ptrdiff_t>(offset),
            result.begin() + static_cast<std::ptrdiff_t>(offset + count)};
  }
  const int64_t index = module_.attributes(inst).tuple_index;
  std::vector<AxesSharding> want(static_cast<size_t>(CountLeavesOf(op_shape)));
  int64_t offset = 0;
  for (int64_t i = 0; i < index && i < static_cast<int64_t>(op_shape.tuple_elements.size()); ++i) {
    offset += CountLeavesOf(op_shape.tuple_elements[static_cast<size_t>(i)]);
  }
  for (size_t l = 0; l < result.size() && offset + static_cast<int64_t>(l) < static_cast<int64_t>(want.size()); ++l) {
    want[static_cast<size_t>(offset) + l] = result[l];
  }
  return want;
}

std::optional<AxesSharding> Propagator::DotOperandWant(const ir::Instruction& inst, size_t k,
                                                       const AxesSharding& r) const {
  const auto& attrs = module_.attributes(inst);
  if (!attrs.dot || k > 1) return std::nullopt;
  const ir::DotDimensionNumbers& dn = *attrs.dot;
  const size_t rank = OperandRank(inst, k);
  AxesSharding want;
  want.dims.assign(rank, 0);
  const auto& batch = k == 0 ? dn.lhs_batch : dn.rhs_batch;
  const auto& contracting = k == 0 ? dn.lhs_contracting : dn.rhs_contracting;
  size_t out = 0;
  for (size_t j = 0; j < batch.size(); ++j) {
    want.dims[static_cast<size_t>(batch[j])] = r.Dim(out++);
  }
  // Free dims come after the batch dims, lhs's then rhs's.
  if (k == 1) {
    const size_t lrank = OperandRank(inst, 0);
    out += lrank - dn.lhs_batch.size() - dn.lhs_contracting.size();
  }
  for (size_t d = 0; d < rank; ++d) {
    const int64_t di = static_cast<int64_t>(d);
    if (Listed(batch, di) || Listed(contracting, di)) continue;
    want.dims[d] = r.Dim(out++);
  }
  return want;
}

std::optional<AxesSharding> Propagator::ArrayOperandWant(const ir::Instruction& inst, size_t k,
                                                         const AxesSharding& r) const {
  using ir::Opcode;
  const ir::Shape& op_shape = OperandShape(inst, k);
  const auto& attrs = module_.attributes(inst);
  const size_t rank = op_shape.dims.size();
  AxesSharding want;
  want.dims.assign(rank, 0);
  switch (inst.opcode) {
    case Opcode::kBroadcast:
      for (size_t j = 0; j < attrs.dimensions.size() && j < rank; ++j) {
        want.dims[j] = r.Dim(static_cast<size_t>(attrs.dimensions[j]));
      }
      return want;
    case Opcode::kTranspose:
      for (size_t j = 0; j < attrs.dimensions.size(); ++j) {
        const size_t from = static_cast<size_t>(attrs.dimensions[j]);
        if (from < rank) want.dims[from] = r.Dim(j);
      }
      return want;
    case Opcode::kBitcast:
    case Opcode::kReshape:
      if (op_shape.dims == inst.shape->dims) return r;
      return ReshapeWant(inst, r);
    case Opcode::kSlice:
    case Opcode::kPad:
    case Opcode::kReverse:
      if (k != 0) return std::nullopt;
      for (size_t d = 0; d < rank && d < inst.shape->dims.size(); ++d) {
        if (sizes_.Divides(op_shape.dims[d], r.Dim(d))) want.dims[d] = r.Dim(d);
      }
      return want;
    case Opcode::kConcatenate: {
      const size_t cat = attrs.dimensions.empty() ? 0 : static_cast<size_t>(attrs.dimensions[0]);
      for (size_t d = 0; d < rank; ++d) want.dims[d] = d == cat ? 0 : r.Dim(d);
      return want;
    }
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
      if (k >= 2) return std::nullopt;
      // The whole operand (k 0) or the update (k 1) on dims it covers whole.
      for (size_t d = 0; d < rank && d < inst.shape->dims.size(); ++d) {
        if (op_shape.dims[d] == inst.shape->dims[d]) want.dims[d] = r.Dim(d);
      }
      return want;
    case Opcode::kReduce: {
      if (k >= std::max<size_t>(inst.operands.size() / 2, 1)) return std::nullopt;
      size_t out = 0;
      for (size_t d = 0; d < rank; ++d) {
        if (Listed(attrs.dimensions, static_cast<int64_t>(d))) continue;
        want.dims[d] = r.Dim(out++);
      }
      return want;
    }
    case Opcode::kDot:
      return DotOperandWant(inst, k, r);
    case Opcode::kGather:
      if (k != 0) return std::nullopt;
      return GatherOperandWant(inst, r);
    case Opcode::kScatter:
      // The operand scattered into has the result's shape: the result's
      // sharding (zeros a scatter-add accumulates into are made in it).
      if (k != 0 || op_shape.dims != inst.shape->dims) return std::nullopt;
      return r;
    default:
      return std::nullopt;
  }
}

std::vector<AxesSharding> Propagator::OperandWant(const ir::Instruction& inst, size_t k,
                                                  const std::vector<AxesSharding>& result) const {
  using ir::Opcode;
  if (inst.opcode == Opcode::kTuple || inst.opcode == Opcode::kGetTupleElement) {
    return TupleOperandWant(inst, k, result);
  }
  if (inst.opcode == Opcode::kOptimizationBarrier) return result;
  if (result.size() != 1) return {};
  std::optional<AxesSharding> want = ArrayWant(inst, k, result[0]);
  if (!want) return {};
  return {*std::move(want)};
}

std::optional<AxesSharding> Propagator::ArrayWant(const ir::Instruction& inst, size_t k,
                                                  const AxesSharding& r) const {
  // The operand's shape from the graph's tables (not its instruction).
  const size_t op = static_cast<size_t>(inst.operands[k].value());
  if (!graph_.is_array[op]) return std::nullopt;
  if (IsElementwise(inst.opcode)) {
    const size_t op_rank = graph_.rank[op];
    if (op_rank != inst.shape->dims.size()) return std::nullopt;
    AxesSharding want;
    want.dims.assign(op_rank, 0);
    for (size_t d = 0; d < want.dims.size(); ++d) want.dims[d] = r.Dim(d);
    return want;
  }
  return ArrayOperandWant(inst, k, r);
}

// Reshape backward: groups of dimensions with equal products; a one-to-one
// group keeps the split, a split on the major dim of a group merging or
// splitting dims goes to the major dim on the other side when the sizes
// divide.
AxesSharding Propagator::ReshapeWant(const ir::Instruction& inst, const AxesSharding& r) const {
  const std::vector<int64_t>& in = OperandShape(inst, 0).dims;
  const std::vector<int64_t>& outd = inst.shape->dims;
  AxesSharding want;
  want.dims.assign(in.size(), 0);
  for (const ReshapeGroup& g : ReshapeDimGroups(in, outd)) {
    if (!g.exact) break;
    const AxisMask major = r.Dim(g.out_begin);
    if (major != 0 && sizes_.Divides(in[g.in_begin], major) &&
        sizes_.Divides(outd[g.out_begin], major)) {
      want.dims[g.in_begin] = major;
    }
  }
  return want;
}

}  // namespace memplan::predictor
