// The collectives a sharding change costs (Propagator::Reshard,
// Resolved, Record): all-gather, all-to-all, all-reduce of partial sums,
// one per buffer, and which buffer each reads.
#include <algorithm>
#include <utility>

#include "predictor/propagator.h"

namespace memplan::predictor {
namespace {

// A partial sum the consumer splits over one of its axes: XLA's SPMD
// partitioner all-reduces it and slices each device's part; its GPU
// pipeline turns that pair into a reduce-scatter, its CPU pipeline does not
// (no compile of samples/sharded has a reduce-scatter; the all-reduces of
// FSDP gradients are combined with the others, full size). The corpus is
// CPU, so the all-reduce is what is modelled.
constexpr bool kReduceScatter = false;

}  // namespace

ir::InstructionId Propagator::SourceOf(const ir::Instruction& inst, size_t k) const {
  if (k >= inst.operands.size()) return ir::InstructionId();
  const ir::Instruction& operand = module_.instruction(inst.operands[k]);
  if (!fusion_context_.valid()) return operand.id;
  if (operand.opcode != ir::Opcode::kParameter) return ir::InstructionId();
  // A fused parameter of the outermost fusion's body is that fusion's
  // operand: a buffer of its own.
  const ir::Instruction& fusion = module_.instruction(fusion_context_);
  const int64_t number = module_.attributes(operand).parameter_number;
  const bool direct =
      !fusion.calls.empty() && fusion.calls.front().computation == operand.computation;
  if (direct && number >= 0 && number < static_cast<int64_t>(fusion.operands.size())) {
    return fusion.operands[static_cast<size_t>(number)];
  }
  return ir::InstructionId();
}

void Propagator::Record(CollectiveKind kind, const ir::Instruction& inst, size_t k,
                        AxisMask axes, const AxesSharding& operand, const AxesSharding& result,
                        ir::InstructionId source) {
  RecordOfShape(kind, inst, OperandShape(inst, k), axes, operand, result,
                source.valid() ? source : SourceOf(inst, k));
}

void Propagator::RecordOfShape(CollectiveKind kind, const ir::Instruction& inst,
                               const ir::Shape& shape, AxisMask axes,
                               const AxesSharding& operand, const AxesSharding& result,
                               ir::InstructionId source) {
  const int64_t result_bytes = ShardBytes(shape, result, sizes_.mesh());
  PredictedCollective c;
  c.kind = kind;
  c.at = graph_.scheduled_as[static_cast<size_t>(inst.id.value())];
  c.first_at = c.at;
  c.source = source;
  c.axes = axes;
  c.operand_bytes = ShardBytes(shape, operand, sizes_.mesh());
  c.result_bytes = result_bytes;
  // The same collective of the same buffer in one computation is done once
  // (XLA's CSE of the partitioned program), its result kept for the last
  // consumer: the later consumer becomes its `at`.
  // At most one recorded collective matches (a match is moved, never
  // recorded twice), so the index of the last one recorded for the key
  // finds it; an index the vector no longer holds, or holding another
  // collective (a pass forgotten: ResetForwardState, a loop body re-run),
  // means none matches.
  // A gather that keeps other axes (the result still split) is done once
  // per consumer: XLA's partitioner gathers it for each reader and its CSE
  // leaves collectives of different channels apart (adam, mlp and moe
  // fsdp4_tp2 gather a tp-split weight's fsdp axis once per dot; a gather
  // to replicated, fsdp8's w_o, serves both dots). XLA's source agrees:
  // PartitionedHlo::Reshard takes a target with subgroups (partially
  // replicated) through ReshardNoCache, a full one through its cache.
  const bool partial_gather = kind == CollectiveKind::kAllGather && !result.IsReplicated();
  if (c.source.valid() && kind != CollectiveKind::kAllReduce && !partial_gather) {
    const ir::ComputationId comp = module_.instruction(c.at).computation;
    const RecordKey key{static_cast<int>(kind), c.source.value(), axes, result_bytes,
                        comp.value()};
    AskSameBytes(key, shape, result);
    auto [it, added] = recorded_.try_emplace(key, out_.collectives.size());
    if (!added) {
      const size_t i = it->second;
      if (i < out_.collectives.size()) {
        PredictedCollective& e = out_.collectives[i];
        if (e.kind == c.kind && e.source == c.source && e.axes == c.axes &&
            e.result_bytes == c.result_bytes && module_.instruction(e.at).computation == comp) {
          e.at = c.at;
          return;
        }
      }
      it->second = out_.collectives.size();
    }
  }
  out_.collectives.push_back(c);
  out_.collective_shards.push_back({&shape, operand, result});
}

// Which earlier collective Record finds for a key depends on whether their
// result bytes are equal: asked (and recorded) against every earlier result
// sharding of the same kind, buffer, axes and computation.
void Propagator::AskSameBytes(const RecordKey& key, const ir::Shape& shape,
                              const AxesSharding& result) {
  if (!sizes_.recording()) return;
  const auto& [kind, source, axes, bytes, comp] = key;
  auto& [first, last] =
      results_seen_.try_emplace(std::make_tuple(kind, source, axes, comp), -1, -1).first->second;
  const ByteTerm term{&shape, result};
  bool known = false;
  for (int64_t i = first; i >= 0; i = seen_terms_[static_cast<size_t>(i)].next) {
    const ByteTerm& s = seen_terms_[static_cast<size_t>(i)].term;
    if (s.shape == &shape && s.sharding == result) {
      known = true;
      continue;
    }
    sizes_.BytesEqual(s, term);
  }
  if (known) return;
  const auto added = static_cast<int64_t>(seen_terms_.size());
  seen_terms_.push_back({term, -1});
  if (last >= 0) seen_terms_[static_cast<size_t>(last)].next = added;
  if (first < 0) first = added;
  last = added;
}

// `inst` once layout ops (bitcast, reshape, transpose, copy) whose operand
// holds the partial sum `partial` are looked through.
const ir::Instruction* Propagator::ThroughPartialLayout(const ir::Instruction* inst,
                                                        AxisMask partial) const {
  for (int guard = 0; guard < 16; ++guard) {
    const bool layout = inst->opcode == ir::Opcode::kBitcast || inst->opcode == ir::Opcode::kReshape ||
                        inst->opcode == ir::Opcode::kTranspose || inst->opcode == ir::Opcode::kCopy;
    if (!layout || inst->operands.size() != 1) break;
    const auto& leaves = out_.leaves[static_cast<size_t>(inst->operands[0].value())];
    if (leaves.size() != 1 || leaves[0].partial != partial) break;
    inst = &module_.instruction(inst->operands[0]);
  }
  return inst;
}

// The value a partial sum read by operand `k` comes from: back through
// layout ops that keep it partial, to the fusion operand when that reaches
// a parameter of the fusion being walked, and on back through layout ops
// outside it (a reader through an outer bitcast and a direct reader share
// one all-reduce: gpt_lm_train_step tp8); invalid when it stays a fused
// intermediate.
ir::InstructionId Propagator::PartialOrigin(const ir::Instruction& inst, size_t k) const {
  const AxisMask partial = Operand(inst, k).partial;
  const ir::Instruction* cur = ThroughPartialLayout(&module_.instruction(inst.operands[k]), partial);
  if (!fusion_context_.valid()) return cur->id;
  if (cur->opcode != ir::Opcode::kParameter) return ir::InstructionId();
  const ir::Instruction& fusion = module_.instruction(fusion_context_);
  const int64_t number = module_.attributes(*cur).parameter_number;
  const bool direct = !fusion.calls.empty() && fusion.calls.front().computation == cur->computation;
  if (direct && number >= 0 && number < static_cast<int64_t>(fusion.operands.size())) {
    const ir::InstructionId operand = fusion.operands[static_cast<size_t>(number)];
    return ThroughPartialLayout(&module_.instruction(operand), partial)->id;
  }
  return ir::InstructionId();
}

AxesSharding Propagator::Resolved(const ir::Instruction& inst, size_t k) {
  AxesSharding have = Operand(inst, k);
  if (have.partial == 0) return have;
  // One all-reduce per partial value: a fused parameter stands for its
  // fusion's operand, which several fusions may read, also through layout
  // ops; the all-reduce's result is kept for its last reader.
  const ir::InstructionId origin = PartialOrigin(inst, k);
  auto key = std::make_pair(origin.valid() ? origin.value() : inst.operands[k].value(), int64_t{0});
  if (auto it = resolved_.find(key); it != resolved_.end()) {
    const size_t index = static_cast<size_t>(it->second.first);
    if (index < out_.collectives.size() && out_.collectives[index].kind == CollectiveKind::kAllReduce) {
      const ir::InstructionId at = graph_.scheduled_as[static_cast<size_t>(inst.id.value())];
      PredictedCollective& e = out_.collectives[index];
      if (module_.instruction(e.at).computation == module_.instruction(at).computation) e.at = at;
    }
    return it->second.second;
  }
  const int64_t index = static_cast<int64_t>(out_.collectives.size());
  Record(CollectiveKind::kAllReduce, inst, k, have.partial, have, have, origin);
  if (origin.valid() && static_cast<size_t>(index) < out_.collectives.size()) {
    if (auto it = scatter_accumulators_.find(origin.value()); it != scatter_accumulators_.end()) {
      out_.collectives[static_cast<size_t>(index)].excluded_accumulator = it->second;
    }
  }
  have.partial = 0;
  resolved_[key] = {index, have};
  return have;
}

void Propagator::Reshard(const ir::Instruction& inst, size_t k, const AxesSharding& want) {
  if (k >= inst.operands.size() || OperandLeaves(inst, k).size() != 1) return;
  AxesSharding have = Operand(inst, k);
  if (have.partial != 0 && have.partial != want.partial) {
    const AxisMask scatter = have.partial & want.UsedAxes();
    if (scatter != 0 && kReduceScatter) {
      AxesSharding after = have;
      after.partial = 0;
      for (size_t d = 0; d < want.dims.size(); ++d) {
        if (want.dims[d] & scatter) {
          if (after.dims.size() <= d) after.dims.resize(d + 1, 0);
          after.dims[d] |= want.dims[d] & scatter;
        }
      }
      Record(CollectiveKind::kReduceScatter, inst, k, have.partial, have, after);
      have = after;
    } else {
      have = Resolved(inst, k);
    }
  }
  AxisMask dropped = 0;
  bool moved = false;
  AxesSharding after = have;
  for (size_t d = 0; d < have.dims.size(); ++d) {
    const AxisMask gone = have.dims[d] & ~want.Dim(d);
    if (gone == 0) continue;
    dropped |= gone;
    after.dims[d] &= ~gone;
    if (gone & (want.UsedAxes() & ~want.Dim(d))) moved = true;
  }
  if (dropped == 0) return;
  if (moved) {
    // An all-to-all re-splits: the axes taken off one dimension split the
    // dimension `want` puts them on, so the result is no larger per device.
    const AxisMask moving = dropped & want.UsedAxes();
    after.dims.resize(std::max(after.dims.size(), want.dims.size()), 0);
    for (size_t d = 0; d < want.dims.size(); ++d) after.dims[d] |= want.dims[d] & moving;
  }
  Record(moved ? CollectiveKind::kAllToAll : CollectiveKind::kAllGather, inst, k, dropped, have,
         after);
}

}  // namespace memplan::predictor
