// The first stage of Shardy's op-priority propagation (the propagation jax
// 0.10.2 runs): only pass-through ops carry shardings, both ways
// (elementwise, reshape, bitcast, transpose; a fusion passes its operands to
// its body's parameters and its root to its result), dynamic-slice and
// dynamic-update-slice forward only, from the sharded entry arguments to a
// fixed point. A value this stage reaches is settled before any dot,
// reduce or broadcast decides: the later rules keep it (Settled).
#include <algorithm>

#include "predictor/propagator.h"
#include "predictor/reshape_groups.h"

namespace memplan::predictor {
namespace {

// Every sweep that changes something settles at least one value, so the
// sweeps end; the cap only bounds a pathological zig-zag of forward and
// backward steps (each direction change costs a sweep). The corpus needs at
// most two changing sweeps (measured on samples/sharded, 2026-11-28); a
// program that reaches the cap keeps what it settled, and the later rules
// decide the rest as they do for any value this stage did not reach.
constexpr int kMaxSweeps = 8;

bool PassesBothWays(ir::Opcode opcode) {
  using ir::Opcode;
  return IsElementwise(opcode) || opcode == Opcode::kReshape || opcode == Opcode::kBitcast ||
         opcode == Opcode::kTranspose;
}

}  // namespace

bool Propagator::Settle(ir::InstructionId id, const AxesSharding& s) {
  const size_t i = static_cast<size_t>(id.value());
  if (settled_[i] || !graph_.is_array[i]) return false;
  AxesSharding n = s;
  n.partial = 0;
  n.Normalize();
  if (n.IsReplicated()) return false;
  settled_[i] = true;
  AxesSharding& hint = HintsOf(id)[0];
  hint = std::move(n);
  return true;
}

std::optional<AxesSharding> Propagator::PassForward(const ir::Instruction& inst) const {
  using ir::Opcode;
  auto settled = [&](size_t k) { return k < inst.operands.size() && Settled(inst.operands[k]); };
  if (IsElementwise(inst.opcode)) {
    const size_t rank = inst.shape->dims.size();
    std::optional<AxesSharding> best;
    for (size_t k = 0; k < inst.operands.size(); ++k) {
      if (!settled(k) || OperandRank(inst, k) != rank) continue;
      const AxesSharding& s = HintsOf(inst.operands[k])[0];
      if (!best || sizes_.MoreWays(s.UsedAxes(), best->UsedAxes())) best = s;
    }
    return best;
  }
  if (!settled(0)) return std::nullopt;
  const AxesSharding& op = HintsOf(inst.operands[0])[0];
  const auto& in = OperandShape(inst, 0).dims;
  const auto& outd = inst.shape->dims;
  AxesSharding r;
  r.dims.assign(outd.size(), 0);
  switch (inst.opcode) {
    case Opcode::kTranspose: {
      const auto& perm = module_.attributes(inst).dimensions;
      for (size_t k = 0; k < perm.size() && k < outd.size(); ++k) r.dims[k] = op.Dim(static_cast<size_t>(perm[k]));
      return r;
    }
    case Opcode::kBitcast:
    case Opcode::kReshape:
      if (in == outd) return op;
      for (const ReshapeGroup& g : ReshapeDimGroups(in, outd)) {
        if (!g.exact) break;
        const AxisMask major = op.Dim(g.in_begin);
        bool minor_split = false;
        for (size_t k = g.in_begin + 1; k < g.in_end; ++k) minor_split |= op.Dim(k) != 0;
        if (major != 0 && !minor_split && sizes_.Divides(outd[g.out_begin], major)) r.dims[g.out_begin] = major;
      }
      return r;
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
      for (size_t d = 0; d < outd.size() && d < in.size(); ++d) {
        if (inst.opcode == Opcode::kDynamicUpdateSlice || in[d] == outd[d]) r.dims[d] = op.Dim(d);
      }
      return r;
    default:
      return std::nullopt;
  }
}

bool Propagator::SettleSweep(ir::ComputationId c) {
  const ir::Computation& comp = module_.computation(c);
  bool changed = false;
  for (ir::InstructionId id : comp.instructions) {
    const ir::Instruction& inst = module_.instruction(id);
    if (inst.opcode == ir::Opcode::kFusion) {
      changed |= SettleFusion(inst);
      continue;
    }
    if (Settled(id) || !graph_.is_array[static_cast<size_t>(id.value())]) continue;
    if (!PassesBothWays(inst.opcode) && inst.opcode != ir::Opcode::kDynamicSlice &&
        inst.opcode != ir::Opcode::kDynamicUpdateSlice) {
      continue;
    }
    if (std::optional<AxesSharding> s = PassForward(inst)) changed |= Settle(id, *s);
  }
  for (auto it = comp.instructions.rbegin(); it != comp.instructions.rend(); ++it) {
    const ir::Instruction& inst = module_.instruction(*it);
    if (!Settled(inst.id) || !PassesBothWays(inst.opcode)) continue;
    const AxesSharding& r = HintsOf(inst.id)[0];
    for (size_t k = 0; k < inst.operands.size(); ++k) {
      if (Settled(inst.operands[k]) || IsEntryParameterOrCopy(inst.operands[k])) continue;
      if (IsElementwise(inst.opcode) && OperandRank(inst, k) != inst.shape->dims.size()) continue;
      if (std::optional<AxesSharding> want = ArrayWant(inst, k, r)) changed |= Settle(inst.operands[k], *want);
    }
  }
  return changed;
}

bool Propagator::SettleFusion(const ir::Instruction& inst) {
  ir::ComputationId body;
  for (const ir::CalledComputation& call : inst.calls) {
    if (call.role == ir::CallRole::kFused) body = call.computation;
  }
  if (!module_.contains(body)) return false;
  const ir::Computation& b = module_.computation(body);
  bool changed = false;
  for (size_t k = 0; k < inst.operands.size() && k < b.parameters.size(); ++k) {
    if (b.parameters[k].valid() && Settled(inst.operands[k])) {
      changed |= Settle(b.parameters[k], HintsOf(inst.operands[k])[0]);
    }
  }
  if (b.root.valid() && Settled(inst.id)) changed |= Settle(b.root, HintsOf(inst.id)[0]);
  changed |= SettleSweep(body);
  if (b.root.valid() && Settled(b.root)) changed |= Settle(inst.id, HintsOf(b.root)[0]);
  for (size_t k = 0; k < inst.operands.size() && k < b.parameters.size(); ++k) {
    if (b.parameters[k].valid() && Settled(b.parameters[k]) && !IsEntryParameterOrCopy(inst.operands[k])) {
      changed |= Settle(inst.operands[k], HintsOf(b.parameters[k])[0]);
    }
  }
  return changed;
}

bool Propagator::IsEntryParameter(ir::InstructionId id) const {
  const ir::Instruction& inst = module_.instruction(id);
  const ir::Computation* entry = module_.entry_computation();
  return inst.opcode == ir::Opcode::kParameter && entry != nullptr && inst.computation == entry->id;
}

bool Propagator::IsEntryParameterOrCopy(ir::InstructionId id) const {
  if (IsEntryParameter(id)) return true;
  const ir::Instruction& inst = module_.instruction(id);
  const ir::Computation* entry = module_.entry_computation();
  return inst.opcode == ir::Opcode::kCopy && inst.operands.size() == 1 && entry != nullptr &&
         inst.computation == entry->id && IsEntryParameter(inst.operands[0]);
}

void Propagator::SettlePassThrough(ir::ComputationId entry, const std::vector<AxesSharding>& params) {
  settled_.assign(module_.instruction_count(), false);
  const ir::Computation& comp = module_.computation(entry);
  for (size_t p = 0; p < comp.parameters.size() && p < params.size(); ++p) {
    if (comp.parameters[p].valid()) Settle(comp.parameters[p], params[p]);
  }
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    if (!SettleSweep(entry)) break;
  }
}

}  // namespace memplan::predictor
