#include "analyzer/jaxpr_shards.h"

#include <algorithm>

#include "analyzer/jaxpr_primitives.h"

namespace memplan::analyzer {
namespace {

bool Sharded(const Tiles& tiles) {
  return std::any_of(tiles.begin(), tiles.end(), [](int64_t t) { return t > 1; });
}

const ir::JaxprAval& AvalOf(const ir::JaxprModule& module, const ir::JaxprAtom& atom) {
  return atom.IsLiteral() ? atom.literal_aval : module.var(atom.var).aval;
}

// Tiles of `tiles` at dimension `d`, 1 when out of range.
int64_t At(const Tiles& tiles, int64_t d) {
  return d >= 0 && d < static_cast<int64_t>(tiles.size()) ? tiles[d] : 1;
}

// Empty when nothing is sharded.
Tiles Normalized(Tiles tiles) {
  if (!Sharded(tiles)) tiles.clear();
  return tiles;
}

Tiles DotTiles(const ir::JaxprModule& module, const ir::JaxprEqn& eqn,
               const std::vector<Tiles>& in, size_t out_rank) {
  const std::optional<ir::DotDimensionNumbers> d = ir::DotGeneralDimensions(eqn);
  if (!d || in.size() != 2 || eqn.invars.size() != 2) return {};
  Tiles out;
  for (size_t b = 0; b < d->lhs_batch.size(); ++b) {
    const int64_t l = At(in[0], d->lhs_batch[b]);
    out.push_back(l > 1 ? l : At(in[1], b < d->rhs_batch.size() ? d->rhs_batch[b] : -1));
  }
  auto free_dims = [&](size_t side, const std::vector<int64_t>& contracting,
                       const std::vector<int64_t>& batch) {
    const int64_t rank = static_cast<int64_t>(AvalOf(module, eqn.invars[side]).dims.size());
    for (int64_t i = 0; i < rank; ++i) {
      if (std::find(contracting.begin(), contracting.end(), i) != contracting.end()) continue;
      if (std::find(batch.begin(), batch.end(), i) != batch.end()) continue;
      out.push_back(At(in[side], i));
    }
  };
  free_dims(0, d->lhs_contracting, d->lhs_batch);
  free_dims(1, d->rhs_contracting, d->rhs_batch);
  if (out.size() != out_rank) return {};
  return Normalized(std::move(out));
}

Tiles ConvTiles(const ir::JaxprEqn& eqn, const std::vector<Tiles>& in, size_t out_rank) {
  const std::optional<ir::ConvolutionDimensionNumbers> d = ir::ConvGeneralDimensions(eqn);
  if (!d || in.size() != 2) return {};
  Tiles out(out_rank, 1);
  if (d->output_batch >= static_cast<int64_t>(out_rank) ||
      d->output_feature >= static_cast<int64_t>(out_rank)) {
    return {};
  }
  out[d->output_batch] = At(in[0], d->input_batch);
  out[d->output_feature] = At(in[1], d->kernel_output_feature);
  return Normalized(std::move(out));
}

// Tiles through a reshape: dimensions matched from the front while sizes
// agree (skipping size-1 dimensions), then from the back likewise.
Tiles ReshapeTiles(const std::vector<int64_t>& in_dims, const Tiles& in,
                   const std::vector<int64_t>& out_dims) {
  Tiles out(out_dims.size(), 1);
  auto match = [&](bool forward) {
    int64_t i = forward ? 0 : static_cast<int64_t>(in_dims.size()) - 1;
    int64_t o = forward ? 0 : static_cast<int64_t>(out_dims.size()) - 1;
    const int64_t step = forward ? 1 : -1;
    auto valid = [&] {
      return i >= 0 && i < static_cast<int64_t>(in_dims.size()) && o >= 0 &&
             o < static_cast<int64_t>(out_dims.size());
    };
    while (valid()) {
      if (in_dims[i] == 1 && At(in, i) <= 1) {
        i += step;
        continue;
      }
      if (out_dims[o] == 1) {
        o += step;
        continue;
      }
      if (in_dims[i] != out_dims[o]) break;
      out[o] = std::max(out[o], At(in, i));
      i += step;
      o += step;
    }
  };
  match(true);
  match(false);
  return Normalized(std::move(out));
}

}  // namespace

int64_t ShardBytes(const ir::JaxprAval& aval, const Tiles& tiles) {
  if (tiles.empty()) return aval.ByteSize();
  if (aval.ByteSize() < 0 || tiles.size() != aval.dims.size()) return aval.ByteSize();
  int64_t elements = 1;
  for (size_t d = 0; d < aval.dims.size(); ++d) {
    const int64_t t = std::max<int64_t>(1, tiles[d]);
    elements *= (aval.dims[d] + t - 1) / t;
  }
  const int64_t per = ir::DTypeStorageBytes(aval.dtype);
  return aval.dtype_name == "float0" ? 0 : elements * per;
}

Tiles OutputTiles(const ir::JaxprModule& module, const ir::JaxprEqn& eqn, size_t out_index,
                  const std::vector<Tiles>& operand_tiles) {
  if (std::none_of(operand_tiles.begin(), operand_tiles.end(), Sharded)) return {};
  if (out_index >= eqn.outvars.size()) return {};
  const ir::JaxprAval& out = module.var(eqn.outvars[out_index]).aval;
  if (!out.known) return {};
  const size_t rank = out.dims.size();
  const JaxprPrimitiveKind kind = PrimitiveKind(module, eqn);
  const std::string_view name = eqn.primitive;
  static const Tiles kReplicated;
  const Tiles& first = operand_tiles.empty() ? kReplicated : operand_tiles[0];
  const std::vector<int64_t>& in_dims =
      eqn.invars.empty() ? out.dims : AvalOf(module, eqn.invars[0]).dims;
  if (kind == JaxprPrimitiveKind::kDotGeneral) return DotTiles(module, eqn, operand_tiles, rank);
  if (kind == JaxprPrimitiveKind::kConvolution) return ConvTiles(eqn, operand_tiles, rank);
  if (name == "transpose") {
    const ir::JaxprParam* p = eqn.FindParam("permutation");
    const auto perm = p == nullptr ? std::nullopt : p->value.AsIntList();
    if (!perm || perm->size() != rank) return {};
    Tiles t;
    for (int64_t d : *perm) t.push_back(At(first, d));
    return Normalized(std::move(t));
  }
  if (name == "broadcast_in_dim") {
    const ir::JaxprParam* p = eqn.FindParam("broadcast_dimensions");
    const auto dims = p == nullptr ? std::nullopt : p->value.AsIntList();
    if (!dims || dims->size() != in_dims.size()) return {};
    Tiles t(rank, 1);
    for (size_t i = 0; i < dims->size(); ++i) {
      const int64_t o = (*dims)[i];
      if (o >= 0 && o < static_cast<int64_t>(rank) && in_dims[i] == out.dims[o]) t[o] = At(first, i);
    }
    return Normalized(std::move(t));
  }
  if (kind == JaxprPrimitiveKind::kReduction) {
    const ir::JaxprParam* p = eqn.FindParam("axes");
    const auto axes = p == nullptr ? std::nullopt : p->value.AsIntList();
    if (!axes) return {};
    Tiles t;
    for (size_t d = 0; d < in_dims.size(); ++d) {
      if (std::find(axes->begin(), axes->end(), static_cast<int64_t>(d)) == axes->end()) {
        t.push_back(At(first, static_cast<int64_t>(d)));
      }
    }
    if (t.size() != rank) return {};
    return Normalized(std::move(t));
  }
  if (name == "reshape" || name == "squeeze" || name == "expand_dims") {
    return ReshapeTiles(in_dims, first, out.dims);
  }
  // Same shape as an operand: that operand's tiles.
  for (size_t i = 0; i < eqn.invars.size() && i < operand_tiles.size(); ++i) {
    if (Sharded(operand_tiles[i]) && AvalOf(module, eqn.invars[i]).dims == out.dims &&
        operand_tiles[i].size() == rank) {
      return operand_tiles[i];
    }
  }
  return {};
}

}  // namespace memplan::analyzer
