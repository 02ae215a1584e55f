// The per-opcode propagation rules. Each returns the result's sharding and
// reshards its operands to what it takes (Propagator::Reshard records the
// collectives that costs).
#include <algorithm>
#include <bit>
#include <numeric>
#include <utility>

#include "ir/opcode_classes.h"
#include "predictor/propagator.h"
#include "predictor/reshape_groups.h"

namespace memplan::predictor {

bool IsElementwise(ir::Opcode opcode) {
  // A copy and a map pass shardings through like any elementwise op, though
  // XLA prices them otherwise.
  return ir::IsElementwiseOpcode(opcode) || opcode == ir::Opcode::kCopy ||
         opcode == ir::Opcode::kMap;
}

// Same-shaped operands (scalars of a clamp or select excepted): the result
// takes the operand that splits across the most devices, then adds any
// dimension another operand splits with axes still free.
AxesSharding Propagator::Elementwise(const ir::Instruction& inst) {
  const size_t rank = inst.shape->dims.size();
  int best = -1;
  AxisMask best_axes = 0;
  absl::InlinedVector<AxesSharding, 3> ops(inst.operands.size());
  for (size_t k = 0; k < inst.operands.size(); ++k) {
    if (OperandRank(inst, k) != rank || OperandLeaves(inst, k).size() != 1) continue;
    ops[k] = Operand(inst, k);
    if (best < 0 || sizes_.MoreWays(ops[k].UsedAxes(), best_axes)) {
      best = static_cast<int>(k);
      best_axes = ops[k].UsedAxes();
    }
  }
  if (best < 0) return AxesSharding{};  // replicated
  // A settled result keeps its sharding and is refined, like any other, on
  // the dims it leaves free by what the operands split them by.
  AxesSharding result = Settled(inst.id) ? HintsOf(inst.id)[0] : ops[static_cast<size_t>(best)];
  result.partial = 0;
  result.dims.resize(rank, 0);
  for (size_t k = 0; k < ops.size(); ++k) {
    for (size_t d = 0; d < rank; ++d) {
      const AxisMask m = ops[k].Dim(d);
      if (result.dims[d] == 0 && m != 0 && (m & result.UsedAxes()) == 0) result.dims[d] = m;
    }
  }
  if (!Settled(inst.id)) Refine(inst, 0, inst.shape, result);
  for (size_t k = 0; k < inst.operands.size(); ++k) {
    if (OperandRank(inst, k) == rank) Reshard(inst, k, result);
  }
  return result;
}

AxesSharding Propagator::Broadcast(const ir::Instruction& inst) {
  AxesSharding op = Resolved(inst, 0);
  const auto& dims = module_.attributes(inst).dimensions;
  AxesSharding result;
  result.dims.assign(inst.shape->dims.size(), 0);
  for (size_t k = 0; k < dims.size() && k < op.dims.size(); ++k) {
    if (dims[k] >= 0 && dims[k] < static_cast<int64_t>(result.dims.size())) {
      result.dims[static_cast<size_t>(dims[k])] = op.dims[k];
    }
  }
  return result;
}

AxesSharding Propagator::Transpose(const ir::Instruction& inst) {
  AxesSharding op = Operand(inst, 0);
  const auto& perm = module_.attributes(inst).dimensions;
  AxesSharding result;
  result.partial = op.partial;
  result.dims.assign(inst.shape->dims.size(), 0);
  for (size_t k = 0; k < perm.size() && k < result.dims.size(); ++k) {
    result.dims[k] = op.Dim(static_cast<size_t>(perm[k]));
  }
  return result;
}

// The largest run of `mask`'s axes, from the major (lowest) one on, whose
// product of sizes divides `size`; 0 when none does.
// A 1:n reshape group whose major output dim the kept axes split whole
// (one element per part) passes the rest of the split on to the next
// output dims, as a row-major tiling does: 256 split 8 ways into 4 heads
// of 64 keeps 4 ways on the heads and 2 on the head dim, and XLA moves no
// data (gpt_lm_train_step tp8; 768 into 12 x 64 keeps 3 heads a device,
// not whole, and gathers pairs: transformer_fwd tp8). Asking it reads the
// axis sizes themselves: the propagation is not shared across sizes.
AxisMask Propagator::SplitOntoMinorDims(AxisMask rest, const ReshapeGroup& g,
                                        const std::vector<int64_t>& outd, AxesSharding& result) {
  AxisMask placed = 0;
  for (size_t o = g.out_begin; rest != 0 && o + 1 < g.out_end; ++o) {
    out_.sub_axes_asked = true;
    if (sizes_.mesh().Ways(result.dims[o]) != outd[o]) break;
    const AxisMask next = DividingMajorAxes(rest, outd[o + 1]);
    if (next == 0) break;
    result.dims[o + 1] = next;
    placed |= next;
    rest &= ~next;
  }
  return placed;
}

// The last input dim of an n:1 reshape group `g` whose split the merged
// dim keeps: the major dim's, and each next one's while the dim before it
// is split whole and its axes come after (mesh order) those kept, as a
// row-major tiling merges them (4 heads split 4 ways and a head dim of 64
// split 2 ways merge into 256 split 8 ways: gpt_lm_train_step tp8's
// backward pass, no gather). Reads the axis sizes themselves, as
// SplitOntoMinorDims does.
size_t Propagator::MergeMinorSplits(const ReshapeGroup& g, const std::vector<int64_t>& in,
                                    int64_t merged_size, const AxesSharding& want) {
  AxisMask merged = want.Dim(g.in_begin);
  size_t k = g.in_begin;
  for (; k + 1 < g.in_end; ++k) {
    const AxisMask next = want.Dim(k + 1);
    if (next == 0 || merged == 0) break;
    out_.sub_axes_asked = true;
    // Every axis of `next` minor (mesh order) to every axis kept so far.
    const bool after = std::countr_zero(next) >= static_cast<int>(std::bit_width(merged));
    if (!after || sizes_.mesh().Ways(want.Dim(k)) != in[k] ||
        !sizes_.Divides(merged_size, merged | next)) {
      break;
    }
    merged |= next;
  }
  return k;
}

AxisMask Propagator::DividingMajorAxes(AxisMask mask, int64_t size) const {
  AxisMask keep = 0;
  for (size_t k = 0; k < 32 && k < sizes_.mesh().sizes.size(); ++k) {
    const AxisMask bit = AxisMask{1} << k;
    if ((mask & bit) == 0) continue;
    if (!sizes_.Divides(size, keep | bit)) break;
    keep |= bit;
  }
  return keep;
}

// Records that the major axis of `dropped` could have kept the part of it
// that divides `size`. What part that is depends on the sizes themselves,
// not on a recorded answer: the propagation says it asked
// (Propagation::sub_axes_asked), and is not shared across axis sizes.
void Propagator::NoteWantedSubAxis(AxisMask dropped, int64_t size) {
  out_.sub_axes_asked = true;
  for (size_t k = 0; k < 32 && k < sizes_.mesh().sizes.size(); ++k) {
    if ((dropped & (AxisMask{1} << k)) == 0) continue;
    const int64_t n = sizes_.mesh().sizes[k];
    const int64_t g = std::gcd(size, n);
    if (g <= 1 || g >= n) return;
    // Propagation visits a reshape more than once: each want once.
    const std::pair<size_t, int64_t> want{k, g};
    auto& wanted = out_.wanted_sub_axes;
    if (std::find(wanted.begin(), wanted.end(), want) == wanted.end()) wanted.push_back(want);
    return;
  }
}

// Walks both shapes in groups of dimensions with equal products: one to one
// keeps the split; many input dims into one keeps the major dim's split
// (the minor ones are all-gathered); one into many keeps it on the major
// output dim when its size divides; anything else is all-gathered.
AxesSharding Propagator::Reshape(const ir::Instruction& inst) {
  const AxesSharding op = Operand(inst, 0);
  const std::vector<int64_t>& in = OperandShape(inst, 0).dims;
  const std::vector<int64_t>& outd = inst.shape->dims;
  AxesSharding result;
  result.partial = op.partial;
  result.dims.assign(outd.size(), 0);
  AxesSharding want = op;  // what the operand must become
  want.dims.resize(in.size(), 0);
  const std::vector<ReshapeGroup> groups = ReshapeDimGroups(in, outd);
  // Input dims in no group (size 1, or after the last group) keep no axes.
  std::vector<bool> grouped(in.size(), false);
  for (const ReshapeGroup& g : groups) {
    for (size_t k = g.in_begin; k < g.in_end; ++k) grouped[k] = true;
  }
  for (size_t k = 0; k < in.size(); ++k) {
    if (!grouped[k]) want.dims[k] = 0;
  }
  for (const ReshapeGroup& g : groups) {
    const size_t i0 = g.in_begin, o0 = g.out_begin;
    const size_t ni = g.in_end - i0, no = g.out_end - o0;
    const AxisMask major = want.dims[i0];
    if (ni == 1 && no == 1) {
      result.dims[o0] = major;
    } else if (no == 1) {
      const size_t kept = MergeMinorSplits(g, in, outd[o0], want);
      result.dims[o0] = 0;
      for (size_t k = i0; k <= kept; ++k) result.dims[o0] |= want.dims[k];
      for (size_t k = kept + 1; k < g.in_end; ++k) want.dims[k] = 0;
    } else if (ni == 1) {
      // The major axes (mesh order) whose product divides the major output
      // dim stay on it; the minor rest are all-gathered (XLA keeps the
      // largest dividing part of a split, e.g. 768 by 8 into 12 x 64
      // keeps 4 ways on the 12 when the 8 is two sub-axes 4 x 2).
      const AxisMask keep = DividingMajorAxes(major, outd[o0]);
      result.dims[o0] = keep;
      const AxisMask placed = keep | SplitOntoMinorDims(major & ~keep, g, outd, result);
      if (placed != major) NoteWantedSubAxis(major & ~keep, outd[o0] / sizes_.mesh().Ways(keep));
      want.dims[i0] = placed;
    } else {
      for (size_t k = i0; k < g.in_end; ++k) want.dims[k] = 0;
    }
  }
  want.partial = 0;
  // The backward hint may split a group's major output dim with axes the
  // operand has elsewhere (a minor dim the group merges): the operand is
  // re-split onto the group's major input dim, an all-to-all, not gathered.
  AxesSharding refined = result;
  Refine(inst, 0, inst.shape, refined);
  for (const ReshapeGroup& g : groups) {
    if (!g.exact) continue;
    const size_t gi = g.in_begin, go = g.out_begin;
    const AxisMask add = refined.Dim(go) & ~result.Dim(go);
    if (add == 0) continue;
    if (sizes_.Divides(in[gi], want.dims[gi] | add) && (want.UsedAxes() & add) == 0) {
      want.dims[gi] |= add;
    }
  }
  result = refined;
  AxesSharding want_n = want, op_n = op;
  want_n.partial = op_n.partial = 0;
  want_n.Normalize();
  op_n.Normalize();
  if (!(want_n == op_n)) {
    AxesSharding keep = want;
    keep.partial = op.partial;
    // Reshard keeps partial sums when want has none of their axes.
    Reshard(inst, 0, keep);
  }
  return result;
}

std::vector<AxesSharding> Propagator::Reduce(const ir::Instruction& inst) {
  const size_t n = inst.operands.size() / 2;
  const auto& dims = module_.attributes(inst).dimensions;
  std::vector<AxesSharding> result;
  for (size_t k = 0; k < std::max<size_t>(n, 1) && k < inst.operands.size(); ++k) {
    AxesSharding op = Resolved(inst, k);
    AxesSharding r;
    r.partial = 0;
    for (size_t d = 0; d < OperandRank(inst, k); ++d) {
      const bool reduced = std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
      if (reduced) {
        r.partial |= op.Dim(d);
      } else {
        r.dims.push_back(op.Dim(d));
      }
    }
    result.push_back(r);
  }
  return result;
}

AxesSharding Propagator::Concatenate(const ir::Instruction& inst) {
  const auto& dims = module_.attributes(inst).dimensions;
  const size_t cat = dims.empty() ? 0 : static_cast<size_t>(dims[0]);
  AxesSharding result = Elementwise(inst);  // reshards to the merge
  if (result.Dim(cat) != 0) {
    result.dims[cat] = 0;
    for (size_t k = 0; k < inst.operands.size(); ++k) Reshard(inst, k, result);
  }
  return result;
}

// The result keeps the operand's split. A slice that leaves a split
// dimension a size its ways do not divide is taken whole (XLA all-gathers
// the uneven logits of samples/sharded/transformer_fwd before slicing).
AxesSharding Propagator::KeepOperandShape(const ir::Instruction& inst) {
  AxesSharding op = Resolved(inst, 0);
  op.dims.resize(std::min(op.dims.size(), inst.shape->dims.size()));
  if (inst.opcode == ir::Opcode::kSlice) {
    const auto& in = OperandShape(inst, 0).dims;
    bool changed = false;
    for (size_t d = 0; d < op.dims.size(); ++d) {
      if (sizes_.MoreWays(op.dims[d], 0) && inst.shape->dims[d] != in[d] &&
          !sizes_.Divides(inst.shape->dims[d], op.dims[d])) {
        op.dims[d] = 0;
        changed = true;
      }
    }
    if (changed) Reshard(inst, 0, op);
  }
  return op;
}

AxesSharding Propagator::DynamicSlice(const ir::Instruction& inst) {
  AxesSharding op = Resolved(inst, 0);
  const auto& in = OperandShape(inst, 0).dims;
  bool changed = false;
  for (size_t d = 0; d < op.dims.size() && d < in.size() && d < inst.shape->dims.size(); ++d) {
    if (op.dims[d] != 0 && inst.shape->dims[d] != in[d]) {
      op.dims[d] = 0;
      changed = true;
    }
  }
  if (changed) Reshard(inst, 0, op);
  return op;
}

// The result keeps the operand's split, and takes the update's on the
// dimensions the update covers whole that the operand leaves unsplit (an
// accumulator made replicated, filled with sharded slices, is sharded as
// XLA's propagation makes it from the uses).
AxesSharding Propagator::DynamicUpdateSlice(const ir::Instruction& inst) {
  AxesSharding op = Resolved(inst, 0);
  if (inst.operands.size() < 2) return op;
  const AxesSharding update = Operand(inst, 1);  // partial sums: Reshard below
  const auto& dims = inst.shape->dims;
  const auto& udims = OperandShape(inst, 1).dims;
  op.dims.resize(dims.size(), 0);
  for (size_t d = 0; d < dims.size() && d < udims.size(); ++d) {
    const AxisMask m = update.Dim(d);
    if (op.dims[d] == 0 && m != 0 && udims[d] == dims[d] && (m & op.UsedAxes()) == 0) {
      op.dims[d] = m;
    }
  }
  Refine(inst, 0, inst.shape, op);
  AxesSharding want = op;
  for (size_t d = 0; d < want.dims.size() && d < udims.size(); ++d) {
    if (udims[d] != dims[d]) want.dims[d] = 0;
  }
  Reshard(inst, 0, op);
  Reshard(inst, 1, want);
  return op;
}

std::vector<AxesSharding> Propagator::Sort(const ir::Instruction& inst) {
  const auto& dims = module_.attributes(inst).dimensions;
  AxesSharding s = Resolved(inst, 0);
  if (!dims.empty() && s.Dim(static_cast<size_t>(dims[0])) != 0) {
    s.dims[static_cast<size_t>(dims[0])] = 0;
  }
  for (size_t k = 0; k < inst.operands.size(); ++k) Reshard(inst, k, s);
  return std::vector<AxesSharding>(inst.operands.size(), s);
}

}  // namespace memplan::predictor
