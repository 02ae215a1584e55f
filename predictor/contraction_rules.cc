// The contraction rules: dot and convolution. Each operand dimension has a
// role (batch, contracting, or free); an axis used by one operand in a
// batch or contracting role is mirrored onto the other's matching dim, and
// axes the two use in roles that cannot coexist are settled by gathering
// one side (Propagator::Contract).
#include <algorithm>
#include <utility>

#include "predictor/propagator.h"

namespace memplan::predictor {

namespace {

// Removes from `s` every axis in `axes`.
void DropAxes(AxesSharding& s, AxisMask axes) {
  for (AxisMask& m : s.dims) m &= ~axes;
  s.partial &= ~axes;
}

}  // namespace

struct DimRoles {
  // Per role, the lhs and rhs dimension (-1: none) and the output dim.
  struct Pair {
    int64_t lhs = -1, rhs = -1, out = -1;
  };
  // (Inline: a dot's roles are a few dims each; a heap block per list was
  // four allocations per dot.)
  using Pairs = absl::InlinedVector<Pair, 4>;
  Pairs batch;        // both operands and the output
  Pairs contracting;  // both operands, no output
  Pairs lhs_free;     // lhs and output
  Pairs rhs_free;     // rhs and output
  // The pairs of `role` (kFree: the lhs's or the rhs's free dims).
  const Pairs& Of(DimRole role, bool is_lhs) const;
};

const DimRoles::Pairs& DimRoles::Of(DimRole role, bool is_lhs) const {
  switch (role) {
    case DimRole::kBatch: return batch;
    case DimRole::kContracting: return contracting;
    default: return is_lhs ? lhs_free : rhs_free;
  }
}

Propagator::RoleUse Propagator::RoleOf(const DimRoles& roles, const AxesSharding& s, bool is_lhs, AxisMask bit) {
  for (DimRole role : {DimRole::kBatch, DimRole::kContracting, DimRole::kFree}) {
    const DimRoles::Pairs& pairs = roles.Of(role, is_lhs);
    for (size_t p = 0; p < pairs.size(); ++p) {
      const int64_t d = is_lhs ? pairs[p].lhs : pairs[p].rhs;
      if (d >= 0 && (s.Dim(static_cast<size_t>(d)) & bit)) return {role, p};
    }
  }
  return {};
}

AxesSharding Propagator::ContractedResult(const DimRoles& roles, const AxesSharding& lhs, const AxesSharding& rhs,
                              size_t rank) {
  AxesSharding result;
  result.dims.assign(rank, 0);
  auto set_out = [&](int64_t out, AxisMask m) {
    if (out >= 0 && out < static_cast<int64_t>(result.dims.size())) {
      result.dims[static_cast<size_t>(out)] |= m;
    }
  };
  for (const auto& p : roles.batch) set_out(p.out, lhs.Dim(static_cast<size_t>(p.lhs)));
  for (const auto& p : roles.lhs_free) set_out(p.out, lhs.Dim(static_cast<size_t>(p.lhs)));
  for (const auto& p : roles.rhs_free) set_out(p.out, rhs.Dim(static_cast<size_t>(p.rhs)));
  for (const auto& p : roles.contracting) result.partial |= lhs.Dim(static_cast<size_t>(p.lhs));
  return result;
}

void Propagator::DropConflictingAxis(const ir::Instruction& inst, AxisMask bit, AxesSharding& lhs,
                                     AxesSharding& rhs, DimRole& lk, DimRole& rk) const {
  AxesSharding lhs_gathered = lhs, rhs_gathered = rhs;
  DropAxes(lhs_gathered, bit);
  DropAxes(rhs_gathered, bit);
  const int64_t out_full = ir::ByteSizeOf(inst.shape);
  const AxisMask out_split = (lhs.UsedAxes() | rhs.UsedAxes()) & ~bit;
  const ByteTerm drop_lhs{&OperandShape(inst, 0), lhs_gathered, rk == DimRole::kContracting ? out_full : 0,
                          out_split};
  const ByteTerm drop_rhs{&OperandShape(inst, 1), rhs_gathered, lk == DimRole::kContracting ? out_full : 0,
                          out_split};
  if (sizes_.BytesLess(drop_lhs, drop_rhs)) {
    DropAxes(lhs, bit);
    lk = DimRole::kNone;
  } else {
    DropAxes(rhs, bit);
    rk = DimRole::kNone;
  }
}

void Propagator::UnsplitContractionsSplitAgainstABatch(const DimRoles& roles, AxesSharding& lhs,
                                                       AxesSharding& rhs) {
  for (const auto& p : roles.contracting) {
    const auto ld = static_cast<size_t>(p.lhs), rd = static_cast<size_t>(p.rhs);
    const AxisMask l = lhs.Dim(ld), r = rhs.Dim(rd);
    if (l == 0 || r == 0 || l == r) continue;
    bool against_batch = false;
    for (size_t a = 0; a < 32; ++a) {
      const AxisMask bit = AxisMask{1} << a;
      if (!((l ^ r) & bit)) continue;
      // The role the operand that does not contract over `bit` gives it.
      const DimRole other = (l & bit) ? RoleOf(roles, rhs, false, bit).role : RoleOf(roles, lhs, true, bit).role;
      if (other == DimRole::kBatch) against_batch = true;
    }
    if (!against_batch) continue;
    lhs.dims[ld] = 0;
    rhs.dims[rd] = 0;
  }
}

Propagator::Side Propagator::SettledSide(const DimRoles& roles, const AxesSharding& result, AxisMask bit) {
  for (const auto& p : roles.batch) {
    if (result.Dim(static_cast<size_t>(p.out)) & bit) return Side::kLhs;
  }
  for (const auto& p : roles.lhs_free) {
    if (result.Dim(static_cast<size_t>(p.out)) & bit) return Side::kLhs;
  }
  for (const auto& p : roles.rhs_free) {
    if (result.Dim(static_cast<size_t>(p.out)) & bit) return Side::kRhs;
  }
  return Side::kNeither;
}

// For every axis: where each operand uses it. An axis used by one operand
// in a batch or contracting role is applied to the other's matching dim (a
// free local slice); used by both in the same role it stays; used in roles
// that cannot coexist, the operand a settled result does not take it from
// gives it up, else a contracting use yields to a batch or free one, else
// the smaller operand gives it up (all-gathered).
AxesSharding Propagator::Contract(const ir::Instruction& inst, const DimRoles& roles) {
  AxesSharding lhs = Resolved(inst, 0);
  AxesSharding rhs = Resolved(inst, 1);
  lhs.dims.resize(OperandRank(inst, 0), 0);
  rhs.dims.resize(OperandRank(inst, 1), 0);
  UnsplitContractionsSplitAgainstABatch(roles, lhs, rhs);
  const AxisMask all = lhs.UsedAxes() | rhs.UsedAxes();
  for (size_t a = 0; a < 32; ++a) {
    const AxisMask bit = AxisMask{1} << a;
    if (!(all & bit)) continue;
    auto [lk, lp] = RoleOf(roles, lhs, true, bit);
    auto [rk, rp] = RoleOf(roles, rhs, false, bit);
    if (lk != DimRole::kNone && rk != DimRole::kNone) {
      if (lk == rk && lp == rp && lk != DimRole::kFree) continue;  // same batch / contracting pair
      // A result settled by the first stage keeps the axis on the operand
      // that gives it the dim it splits; the other is gathered.
      const Side side = Settled(inst.id) ? SettledSide(roles, HintsOf(inst.id)[0], bit) : Side::kNeither;
      // Else an axis one operand splits a batch or free dim by and the other
      // its contracting dim by stays where the result keeps it; the
      // contracting side is gathered (Shardy builds the result from the
      // operands' batch and free factors: mlp_train_step fsdp4_tp2 keeps x's
      // batch split in the first layer and all-gathers w0 over fsdp, as
      // XLA's compile).
      if (side == Side::kLhs && lk != DimRole::kContracting) {
        DropAxes(rhs, bit);
        rk = DimRole::kNone;
      } else if (side == Side::kRhs && rk != DimRole::kContracting) {
        DropAxes(lhs, bit);
        lk = DimRole::kNone;
      } else if (lk == DimRole::kContracting && rk != DimRole::kContracting) {
        DropAxes(lhs, bit);
        lk = DimRole::kNone;
      } else if (rk == DimRole::kContracting && lk != DimRole::kContracting) {
        DropAxes(rhs, bit);
        rk = DimRole::kNone;
      } else {
        DropConflictingAxis(inst, bit, lhs, rhs, lk, rk);
      }
    }
    // One side uses it: mirror a batch or contracting split onto the other.
    auto shared = [](DimRole r) { return r == DimRole::kBatch || r == DimRole::kContracting; };
    if (shared(lk)) {
      const auto& pair = roles.Of(lk, true)[lp];
      if (pair.rhs >= 0) rhs.dims[static_cast<size_t>(pair.rhs)] |= bit;
    } else if (shared(rk)) {
      const auto& pair = roles.Of(rk, false)[rp];
      if (pair.lhs >= 0) lhs.dims[static_cast<size_t>(pair.lhs)] |= bit;
    }
  }
  Reshard(inst, 0, lhs);
  Reshard(inst, 1, rhs);
  return ContractedResult(roles, lhs, rhs, inst.shape->dims.size());
}

AxesSharding Propagator::Dot(const ir::Instruction& inst) {
  const auto& attrs = module_.attributes(inst);
  if (!attrs.dot || inst.operands.size() < 2) return Unknown(inst)[0];
  const ir::DotDimensionNumbers& dn = *attrs.dot;
  const size_t lrank = OperandRank(inst, 0);
  const size_t rrank = OperandRank(inst, 1);
  DimRoles roles;
  int64_t out = 0;
  for (size_t k = 0; k < dn.lhs_batch.size() && k < dn.rhs_batch.size(); ++k) {
    roles.batch.push_back({dn.lhs_batch[k], dn.rhs_batch[k], out++});
  }
  for (size_t k = 0; k < dn.lhs_contracting.size() && k < dn.rhs_contracting.size(); ++k) {
    roles.contracting.push_back({dn.lhs_contracting[k], dn.rhs_contracting[k], -1});
  }
  auto is_listed = [](const std::vector<int64_t>& a, const std::vector<int64_t>& b, int64_t d) {
    return std::find(a.begin(), a.end(), d) != a.end() || std::find(b.begin(), b.end(), d) != b.end();
  };
  for (size_t d = 0; d < lrank; ++d) {
    if (!is_listed(dn.lhs_batch, dn.lhs_contracting, static_cast<int64_t>(d))) {
      roles.lhs_free.push_back({static_cast<int64_t>(d), -1, out++});
    }
  }
  for (size_t d = 0; d < rrank; ++d) {
    if (!is_listed(dn.rhs_batch, dn.rhs_contracting, static_cast<int64_t>(d))) {
      roles.rhs_free.push_back({-1, static_cast<int64_t>(d), out++});
    }
  }
  return Contract(inst, roles);
}

// Input (lhs) batch and spatial dims carry to the output's; the kernel's
// output feature carries; input feature and kernel input feature contract;
// kernel spatial dims are taken whole.
AxesSharding Propagator::Convolution(const ir::Instruction& inst) {
  const auto& attrs = module_.attributes(inst);
  if (!attrs.convolution || inst.operands.size() < 2) return Unknown(inst)[0];
  const ir::ConvolutionDimensionNumbers& cn = *attrs.convolution;
  DimRoles roles;
  if (attrs.feature_group_count == 1 && attrs.batch_group_count == 1) {
    roles.contracting.push_back({cn.input_feature, cn.kernel_input_feature, -1});
  }
  roles.lhs_free.push_back({cn.input_batch, -1, cn.output_batch});
  for (size_t k = 0; k < cn.input_spatial.size() && k < cn.output_spatial.size(); ++k) {
    roles.lhs_free.push_back({cn.input_spatial[k], -1, cn.output_spatial[k]});
  }
  roles.rhs_free.push_back({-1, cn.kernel_output_feature, cn.output_feature});
  AxesSharding result = Contract(inst, roles);
  // Kernel spatial dims (and, for grouped convolutions, the feature dims
  // not in a role) are gathered.
  AxesSharding kernel = Operand(inst, 1);
  kernel.partial = 0;
  bool drop = false;
  for (int64_t d : cn.kernel_spatial) {
    if (kernel.Dim(static_cast<size_t>(d)) != 0) {
      kernel.dims[static_cast<size_t>(d)] = 0;
      drop = true;
    }
  }
  if (drop) Reshard(inst, 1, kernel);
  return result;
}

}  // namespace memplan::predictor
