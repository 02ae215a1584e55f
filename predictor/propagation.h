// Sharding propagation: from the entry parameters' shardings, forward
// through the module graph with one rule per opcode (predictor/op_rules.cc),
// into fusion, while, conditional and call bodies; the collectives the
// shardings imply where an operand's sharding is not what its consumer
// takes (all-gather, all-to-all, all-reduce or reduce-scatter of partial
// sums); and the places no rule covers, replicated by default.
#ifndef MEMPLAN_PREDICTOR_PROPAGATION_H_
#define MEMPLAN_PREDICTOR_PROPAGATION_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/module.h"
#include "predictor/axes_sharding.h"
#include "predictor/lowered_batching.h"

namespace memplan::predictor {

enum class CollectiveKind : uint8_t { kAllGather, kAllReduce, kReduceScatter, kAllToAll };

// One collective the partitioned program needs.
struct PredictedCollective {
  CollectiveKind kind = CollectiveKind::kAllGather;
  // The instruction that needs it (its consumer), as scheduled: an
  // instruction of a fused computation is represented by its fusion.
  ir::InstructionId at;
  // The first instruction that needed it (`at` is the last one): an
  // all-reduce's result is read from there on.
  ir::InstructionId first_at;
  // The value it reads when that value is a buffer of its own (an operand
  // of `at` outside any fusion); invalid when it is an intermediate of a
  // fused computation.
  ir::InstructionId source;
  int64_t source_leaf = 0;
  // An all-reduce of a scatter-add's partial sum whose accumulator (the
  // scatter's operand) is whole: that operand of `source`. The partitioned
  // program scatters into zeros, all-reduces, then adds the accumulator, so
  // the partial is computed from `source`'s other operands alone (XLA's
  // combiner takes it with the gradients whose updates the accumulator
  // reads: gpt_lm_train_step dp8's tied-embedding gradient). Invalid
  // otherwise.
  ir::InstructionId excluded_accumulator;
  AxisMask axes = 0;            // the mesh axes it communicates over
  int64_t operand_bytes = 0;    // per device
  int64_t result_bytes = 0;     // per device
};

// Why an instruction was replicated by default.
struct UnknownPropagation {
  ir::InstructionId instruction;
  bool had_sharded_operand = false;  // replication cost an all-gather
};

// The graph facts propagation needs, computed once per module and shared by
// every candidate: tuple leaf counts and offsets, and for every instruction
// of a fused computation the fusion it belongs to (outermost).
struct PropagationGraph {
  // Per instruction: number of array leaves (1 for an array).
  std::vector<int32_t> leaf_count;
  // Per instruction: the scheduled instruction that stands for it (itself
  // outside fusions).
  std::vector<ir::InstructionId> scheduled_as;
  // Per instruction: its shape's rank (dims.size()), read for operands
  // without visiting their instructions.
  std::vector<uint32_t> rank;
  std::vector<uint8_t> is_array;  // per instruction: shape.IsArray()
  // Per instruction: its dimension numbers fit its shapes
  // (predictor/module_checks.h). No rule, forward or backward, runs on
  // one that does not: it is replicated, as a place no rule covers.
  std::vector<uint8_t> dimensions_fit;
  // Per instruction, then one past the last: where its leaves start in an
  // array of every instruction's leaves (prefix sums of leaf_count).
  std::vector<int64_t> leaf_offset;
  // Per gather or scatter whose batching dims XLA's CPU pipeline lowered
  // (predictor/lowered_batching.h): those dims, by instruction id.
  absl::flat_hash_map<int64_t, std::vector<LoweredBatchingDim>> lowered_batching;

  // The lowered batching dims of `id`; null when it has none.
  const std::vector<LoweredBatchingDim>* LoweredBatching(ir::InstructionId id) const {
    const auto it = lowered_batching.find(id.value());
    return it == lowered_batching.end() ? nullptr : &it->second;
  }

  static PropagationGraph Build(const ir::Module& module);
};

// What a collective's bytes are computed from: its operand's shape (the
// consumer's view of the value) under the sharding it starts from and the
// one it ends in (operand_bytes, result_bytes: their shard bytes).
struct CollectiveShards {
  const ir::Shape* shape = nullptr;
  AxesSharding operand, result;
};

class SizeAnswers;

struct Propagation {
  // Per instruction, per leaf (depth-first over tuple elements); empty for an
  // instruction never reached (a computation nothing calls, a reducer).
  std::vector<std::vector<AxesSharding>> leaves;
  std::vector<PredictedCollective> collectives;
  std::vector<CollectiveShards> collective_shards;  // one per collective
  std::vector<UnknownPropagation> unknown;
  // (axis, ways): a reshape all-gathered mesh axis `axis` from a dimension
  // whose split part could have kept `ways` of it (a proper divisor of the
  // axis size), had the axis been sub-axes (predictor/sub_axes.h).
  std::vector<std::pair<size_t, int64_t>> wanted_sub_axes;
  // A reshape asked for sub-axes (whether or not a part was wanted): the
  // answer depends on the axis sizes beyond the recorded questions.
  bool sub_axes_asked = false;

  const AxesSharding* Find(ir::InstructionId id, int64_t leaf) const;
};

// Propagates `parameters` (one per entry parameter, each of the parameter's
// array rank) over `module`. InvalidArgument when the module has no entry
// computation or the parameter count differs. When `record` is not null,
// every question asked of the mesh's sizes is recorded there with its
// answer (predictor/size_questions.h): a mesh of the same axis count that
// answers them alike propagates the same parameters to the same shardings
// and collectives (their bytes aside).
absl::StatusOr<Propagation> Propagate(const ir::Module& module, const PropagationGraph& graph,
                                      const MeshSizes& mesh,
                                      const std::vector<AxesSharding>& parameters,
                                      SizeAnswers* record = nullptr);

// Flattened leaf number of `index` within `shape` (depth-first order);
// -1 when the index leaves the shape or names a tuple.
int64_t LeafNumber(const ir::Shape& shape, const ir::ShapeIndex& index);

// The array shapes of `shape`'s leaves, depth-first.
void CollectLeafShapes(const ir::Shape& shape, std::vector<const ir::Shape*>* out);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_PROPAGATION_H_
