// The gather and scatter rules (Propagator::Gather, Scatter), and the
// operand a gather wants for its result (GatherOperandWant).
//
// Batching dims XLA's CPU pipeline lowered into iota indices
// (predictor/lowered_batching.h) are split as the partitioner, which saw
// them as batching dims, split them: alike in the operand, the indices and
// the result, not looked up.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "predictor/propagator.h"

namespace memplan::predictor {
namespace {

bool Listed(const std::vector<int64_t>& v, int64_t d) {
  return std::find(v.begin(), v.end(), d) != v.end();
}

// The output dim each index dim of a gather (but the index vector dim)
// becomes: the output dims not offset dims, in order; -1 past the output.
std::vector<int64_t> GatherBatchDims(const ir::GatherDimensionNumbers& g, size_t index_rank,
                                     size_t out_rank) {
  std::vector<int64_t> out(index_rank, -1);
  size_t out_d = 0;
  for (size_t d = 0; d < index_rank; ++d) {
    if (static_cast<int64_t>(d) == g.index_vector_dim) continue;
    while (out_d < out_rank && Listed(g.offset_dims, static_cast<int64_t>(out_d))) ++out_d;
    if (out_d >= out_rank) break;
    out[d] = static_cast<int64_t>(out_d++);
  }
  return out;
}

// The updates dim a scatter's index dim `index_dim` (not the index vector
// dim) becomes: the updates dims not window dims, in order.
size_t UpdateDimOf(const std::vector<int64_t>& window_dims, int64_t index_vector_dim,
                   int64_t index_dim) {
  const int64_t nth = index_dim < index_vector_dim ? index_dim : index_dim - 1;
  int64_t seen = -1;
  for (size_t d = 0; nth >= 0 && d <= window_dims.size() + static_cast<size_t>(nth); ++d) {
    if (Listed(window_dims, static_cast<int64_t>(d))) continue;
    if (++seen == nth) return d;
  }
  return SIZE_MAX;  // no such dim: AxesSharding::Dim reads it as unsplit
}

// The axes splitting a scatter's indices and its updates along the
// scattered dims (the indices' dims but the vector dim, the updates' dims
// but the window dims).
AxisMask ScatteredAxes(const ir::ScatterDimensionNumbers& s, const AxesSharding& idx,
                       const AxesSharding& updates) {
  AxisMask axes = 0;
  for (size_t d = 0; d < idx.dims.size(); ++d) {
    if (static_cast<int64_t>(d) != s.index_vector_dim) axes |= idx.dims[d];
  }
  for (size_t d = 0; d < updates.dims.size(); ++d) {
    if (!Listed(s.update_window_dims, static_cast<int64_t>(d))) axes |= updates.dims[d];
  }
  return axes;
}

}  // namespace

// Output batch dims follow the indices; offset dims taken whole from the
// operand keep its split; an operand dim indexed into that is split makes
// the result a partial sum (each device gathers what it holds, masked).
// A lowered batching dim split alike in the operand and the indices (or in
// one of them only) is no looked-up dim: the result's batch dim takes the
// split.
AxesSharding Propagator::Gather(const ir::Instruction& inst) {
  const auto& attrs = module_.attributes(inst);
  if (!attrs.gather || inst.operands.size() < 2) return Unknown(inst)[0];
  const ir::GatherDimensionNumbers& g = *attrs.gather;
  AxesSharding op = Resolved(inst, 0);
  AxesSharding idx = Resolved(inst, 1);
  const auto& op_dims = OperandShape(inst, 0).dims;
  const auto& idx_dims = OperandShape(inst, 1).dims;
  AxesSharding result;
  result.dims.assign(inst.shape->dims.size(), 0);
  // Offset dims: operand dims not collapsed and not batching, in order.
  size_t offset_k = 0;
  for (size_t d = 0; d < op_dims.size(); ++d) {
    const int64_t di = static_cast<int64_t>(d);
    if (Listed(g.collapsed_slice_dims, di) || Listed(g.operand_batching_dims, di)) continue;
    if (offset_k < g.offset_dims.size()) {
      const bool whole = d < attrs.gather_slice_sizes.size() && attrs.gather_slice_sizes[d] == op_dims[d];
      if (whole) result.dims[static_cast<size_t>(g.offset_dims[offset_k])] = op.Dim(d);
    }
    ++offset_k;
  }
  // Lowered batching dims split alike: their operand dims are not looked
  // up; an index dim the indices leave whole takes the operand's split.
  absl::InlinedVector<int64_t, 2> batched;  // operand dims
  std::vector<AxisMask> batch_split(idx_dims.size(), 0);
  if (const auto* lowered = graph_.LoweredBatching(inst.id)) {
    for (const LoweredBatchingDim& b : *lowered) {
      const AxisMask a = op.Dim(static_cast<size_t>(b.operand_dim));
      const AxisMask m = idx.Dim(static_cast<size_t>(b.index_dim));
      if ((a & ~m) != 0 && m != 0) continue;  // split otherwise: looked up
      batched.push_back(b.operand_dim);
      if (m == 0) batch_split[static_cast<size_t>(b.index_dim)] = a;
    }
  }
  for (int64_t d : g.start_index_map) {
    if (std::find(batched.begin(), batched.end(), d) == batched.end()) {
      result.partial |= op.Dim(static_cast<size_t>(d));
    }
  }
  // Batch dims: the output dims not offset dims, in order, follow the index
  // dims other than index_vector_dim. An index dim split by an axis that
  // also splits an indexed operand dim (token ids split by batch over the
  // axis that splits the embedding's vocabulary, as FSDP does) keeps its
  // split in the result: XLA's partitioner all-gathers the indices over
  // that axis, looks every index up in each device's part of the operand
  // (a partial sum over the axis, whole along the batch), all-reduces it
  // and slices each device's batch (gpt_lm_train_step fsdp8).
  AxesSharding whole_batch = result;  // the looked-up sum before the slice
  AxisMask conflict = 0;
  const std::vector<int64_t> out_of = GatherBatchDims(g, idx_dims.size(), result.dims.size());
  for (size_t d = 0; d < idx_dims.size(); ++d) {
    if (out_of[d] < 0) continue;
    const size_t out_d = static_cast<size_t>(out_of[d]);
    const AxisMask m = idx.Dim(d) != 0 ? idx.Dim(d) : batch_split[d];
    if ((m & result.UsedAxes()) == 0) {
      if ((m & result.partial) == 0) whole_batch.dims[out_d] = m;
      conflict |= m & result.partial;
      result.dims[out_d] = m;
    }
  }
  if (conflict == 0) return result;
  AxesSharding gathered = idx;
  for (AxisMask& dim : gathered.dims) dim &= ~conflict;
  Reshard(inst, 1, gathered);
  const ir::InstructionId self = fusion_context_.valid() ? ir::InstructionId() : inst.id;
  RecordOfShape(CollectiveKind::kAllReduce, inst, *inst.shape, result.partial, whole_batch,
                whole_batch, self);
  result.partial = 0;
  return result;
}

// The operands scattered into keep their split; a lowered batching dim the
// operand leaves whole takes the indices' split of its index dim (the
// partitioner splits the result's batch like the indices'; each device
// makes its part of the operand).
std::vector<AxesSharding> Propagator::Scatter(const ir::Instruction& inst) {
  const size_t n = (inst.operands.size() - 1) / 2;
  std::vector<AxesSharding> result;
  for (size_t k = 0; k < std::max<size_t>(n, 1) && k < inst.operands.size(); ++k) {
    result.push_back(Resolved(inst, k));
  }
  const auto& attrs = module_.attributes(inst);
  if (!attrs.scatter || n == 0 || inst.operands.size() != 2 * n + 1) return result;
  const ir::ScatterDimensionNumbers& s = *attrs.scatter;
  const AxesSharding idx = Operand(inst, n);
  static const std::vector<LoweredBatchingDim> kNone;
  const auto* lowered = graph_.LoweredBatching(inst.id);
  const bool adds = ScattersByAdd(inst);
  for (size_t k = 0; k < result.size(); ++k) {
    const std::vector<int64_t>& dims = OperandShape(inst, k).dims;
    AxesSharding& r = result[k];
    r.dims.resize(dims.size(), 0);
    const AxesSharding updates = Operand(inst, n + 1 + k);
    for (const LoweredBatchingDim& b : lowered != nullptr ? *lowered : kNone) {
      const auto d = static_cast<size_t>(b.operand_dim);
      const AxisMask m =
          idx.Dim(static_cast<size_t>(b.index_dim)) |
          updates.Dim(UpdateDimOf(s.update_window_dims, s.index_vector_dim, b.index_dim));
      if (d >= dims.size() || m == 0 || r.dims[d] != 0 || (m & (r.UsedAxes() | r.partial)) != 0 ||
          !sizes_.Divides(dims[d], m)) {
        continue;
      }
      r.dims[d] = m;
    }
    // A scatter-add whose indices and updates are split along the scattered
    // dims by axes the result does not split: each device adds its part
    // into its own copy, a partial sum that XLA's partitioner all-reduces
    // (the tied embedding's gradient in gpt_lm_train_step dp8).
    if (adds) {
      const AxisMask scattered = ScatteredAxes(s, idx, updates) & ~r.UsedAxes() & ~r.partial;
      r.partial |= scattered;
      const ir::InstructionId accumulator = SourceOf(inst, k);
      if (scattered != 0 && accumulator.valid() && result.size() == 1) {
        scatter_accumulators_[graph_.scheduled_as[static_cast<size_t>(inst.id.value())].value()] =
            accumulator;
      }
    }
  }
  return result;
}

bool Propagator::ScattersByAdd(const ir::Instruction& inst) const {
  for (const ir::CalledComputation& call : inst.calls) {
    if (call.role != ir::CallRole::kToApply || !module_.contains(call.computation)) continue;
    const ir::InstructionId root = module_.computation(call.computation).root;
    return module_.contains(root) && module_.instruction(root).opcode == ir::Opcode::kAdd;
  }
  return false;
}

// A gather's operand wanted for result `r`: its lowered batching dims split
// as the result's batch dims they become (when that divides them), the rest
// whole; nullopt without lowered batching dims.
std::optional<AxesSharding> Propagator::GatherOperandWant(const ir::Instruction& inst,
                                                          const AxesSharding& r) const {
  const auto& attrs = module_.attributes(inst);
  const auto* lowered = graph_.LoweredBatching(inst.id);
  if (!attrs.gather || lowered == nullptr || inst.operands.size() < 2) return std::nullopt;
  const std::vector<int64_t>& op_dims = OperandShape(inst, 0).dims;
  const std::vector<int64_t> out_of =
      GatherBatchDims(*attrs.gather, OperandRank(inst, 1), inst.shape->dims.size());
  AxesSharding want;
  want.dims.assign(op_dims.size(), 0);
  for (const LoweredBatchingDim& b : *lowered) {
    const auto index_dim = static_cast<size_t>(b.index_dim);
    if (index_dim >= out_of.size() || out_of[index_dim] < 0) continue;
    const AxisMask m = r.Dim(static_cast<size_t>(out_of[index_dim]));
    const auto d = static_cast<size_t>(b.operand_dim);
    if (m != 0 && (m & want.UsedAxes()) == 0 && sizes_.Divides(op_dims[d], m)) want.dims[d] = m;
  }
  return want;
}

}  // namespace memplan::predictor
