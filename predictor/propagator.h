// Internal to predictor: the propagation walk (propagation.cc) and the
// per-opcode rules (op_rules.cc, contraction_rules.cc) share this class.
#ifndef MEMPLAN_PREDICTOR_PROPAGATOR_H_
#define MEMPLAN_PREDICTOR_PROPAGATOR_H_

#include <tuple>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "ir/module.h"
#include "predictor/propagation.h"
#include "predictor/reshape_groups.h"
#include "predictor/size_questions.h"

namespace memplan::predictor {

// A contraction operand dimension's role (contraction_rules.cc): in both
// operands and the output (batch), in both operands only (contracting), or
// in one operand and the output (free).
enum class DimRole { kNone, kBatch, kContracting, kFree };
struct DimRoles;

class Propagator {
 public:
  // Asks `mesh` its size questions, recording them in `record` when not
  // null (predictor/size_questions.h).
  Propagator(const ir::Module& module, const PropagationGraph& graph, const MeshSizes& mesh,
             Propagation* out, SizeAnswers* record = nullptr)
      : module_(module), graph_(graph), sizes_(mesh, record), out_(*out),
        hints_(static_cast<size_t>(graph.leaf_offset.back())) {}

  // Propagates computation `c` whose parameters have `params` (one leaf
  // vector per parameter); returns the root's leaves.
  std::vector<AxesSharding> RunComputation(ir::ComputationId c,
                                           const std::vector<std::vector<AxesSharding>>& params);

  // The backward pass (backward.cc): from the shardings the last forward
  // pass left, every instruction of `c` (users before operands) passes to
  // its operands the sharding it would take them in; an operand keeps the
  // one splitting over the most devices as its hint. `root_hints` are the
  // root's (a caller's wants for the computation's result). The next
  // forward pass refines each result with its hint (Refine).
  void Backward(ir::ComputationId c, const std::vector<AxesSharding>& root_hints);
  // Forgets the collectives, unknown places and resolved partial sums of a
  // forward pass, before the next one.
  void ResetForwardState();

  // Shardy's first stage (pass_through_stage.cc): from the entry arguments
  // `params` (one per parameter), through pass-through ops only, to a fixed
  // point. A value it reaches is settled: its hint is that sharding, no
  // backward want replaces it, an elementwise op takes it as its result
  // and a dot computing it settles its operands' conflicts its way.
  void SettlePassThrough(ir::ComputationId entry, const std::vector<AxesSharding>& params);

 private:
  // The rule for one instruction: its leaves, written over `leaves` (the
  // instruction's own, from an earlier pass or empty; RunComputation then
  // sizes them to the leaf count, an empty or short result meaning
  // replicated leaves). ArrayRule: the rules of one array result (false
  // for other opcodes); LeafRule: those of several leaves or a body.
  void Rule(const ir::Instruction& inst, std::vector<AxesSharding>& leaves);
  bool ArrayRule(const ir::Instruction& inst, std::vector<AxesSharding>& leaves);
  std::vector<AxesSharding> LeafRule(const ir::Instruction& inst);

  // Operand `k`'s leaves / its single array leaf.
  const std::vector<AxesSharding>& OperandLeaves(const ir::Instruction& inst, size_t k) const;
  AxesSharding Operand(const ir::Instruction& inst, size_t k) const;
  const ir::Shape& OperandShape(const ir::Instruction& inst, size_t k) const;
  // OperandShape(inst, k).dims.size(), from the graph's table.
  size_t OperandRank(const ir::Instruction& inst, size_t k) const;

  // Brings operand `k` (array) to `want`, recording the collectives: partial
  // sums reduced (reduce-scatter where `want` splits a partial axis, else
  // all-reduce), axes dropped all-gathered (or all-to-all when `want` moves
  // them to another dimension). Axes `want` adds are a local slice.
  void Reshard(const ir::Instruction& inst, size_t k, const AxesSharding& want);
  // Operand `k` with its partial sums reduced (all-reduce), once per value.
  AxesSharding Resolved(const ir::Instruction& inst, size_t k);
  // The buffer operand `k` of `inst` reads: the operand outside fusions, a
  // fused parameter's fusion operand inside one; invalid for a fused
  // intermediate.
  ir::InstructionId SourceOf(const ir::Instruction& inst, size_t k) const;
  // Records a collective reading operand `k` of `inst` (`source`: the
  // buffer it reads when known better than SourceOf), from `operand` to
  // `result` (its bytes: their shard bytes of the operand's shape); a
  // repeat of an all-gather to replicated or all-to-all of the same buffer
  // moves the recorded one to the later consumer instead (an all-gather
  // whose result stays split is recorded per consumer).
  void Record(CollectiveKind kind, const ir::Instruction& inst, size_t k, AxisMask axes,
              const AxesSharding& operand, const AxesSharding& result,
              ir::InstructionId source = ir::InstructionId());
  // The same for a collective at `inst` of a buffer of `shape` (not
  // necessarily an operand's; bytes are its shard bytes), reading `source`
  // (invalid: a buffer of no value).
  void RecordOfShape(CollectiveKind kind, const ir::Instruction& inst, const ir::Shape& shape,
                     AxisMask axes, const AxesSharding& operand, const AxesSharding& result,
                     ir::InstructionId source);
  ir::InstructionId PartialOrigin(const ir::Instruction& inst, size_t k) const;
  const ir::Instruction* ThroughPartialLayout(const ir::Instruction* inst, AxisMask partial) const;

  // Rules (op_rules.cc; dot and convolution in contraction_rules.cc).
  AxesSharding Elementwise(const ir::Instruction& inst);
  AxesSharding Broadcast(const ir::Instruction& inst);
  AxesSharding Reshape(const ir::Instruction& inst);
  AxisMask DividingMajorAxes(AxisMask mask, int64_t size) const;
  // Places the axes `rest` of a 1:n reshape group `g` onto its output dims
  // after the major one, each while the dim before it is split whole
  // (op_rules.cc); returns the axes placed in `result`.
  // The last input dim of an n:1 reshape group whose split the merged dim
  // keeps, from `want` (the operand's split per input dim; op_rules.cc).
  size_t MergeMinorSplits(const ReshapeGroup& g, const std::vector<int64_t>& in,
                          int64_t merged_size, const AxesSharding& want);
  AxisMask SplitOntoMinorDims(AxisMask rest, const ReshapeGroup& g, const std::vector<int64_t>& outd,
                              AxesSharding& result);
  void NoteWantedSubAxis(AxisMask dropped, int64_t size);
  AxesSharding Transpose(const ir::Instruction& inst);
  AxesSharding Dot(const ir::Instruction& inst);
  AxesSharding Convolution(const ir::Instruction& inst);
  std::vector<AxesSharding> Reduce(const ir::Instruction& inst);
  AxesSharding Concatenate(const ir::Instruction& inst);
  AxesSharding KeepOperandShape(const ir::Instruction& inst);  // slice, pad, reverse, windows
  AxesSharding DynamicSlice(const ir::Instruction& inst);
  AxesSharding DynamicUpdateSlice(const ir::Instruction& inst);
  AxesSharding Gather(const ir::Instruction& inst);  // gather_scatter_rules.cc, with Scatter
  std::vector<AxesSharding> Scatter(const ir::Instruction& inst);
  // Whether a scatter combines by adding (its to_apply's root is an add).
  bool ScattersByAdd(const ir::Instruction& inst) const;
  std::vector<AxesSharding> Sort(const ir::Instruction& inst);
  std::vector<AxesSharding> While(const ir::Instruction& inst);
  std::vector<AxesSharding> Conditional(const ir::Instruction& inst);
  std::vector<AxesSharding> CallBody(const ir::Instruction& inst);
  std::vector<AxesSharding> Unknown(const ir::Instruction& inst);
  void ShardInitialState(const ir::Instruction& loop, const std::vector<AxesSharding>& carry);
  // A broadcast (or a fusion, constant, iota) reading only scalars.
  bool IsBroadcastOfScalars(const ir::Instruction& inst) const;
  // Dot and convolution share this: operand dims in roles, conflicts
  // settled by all-gathering the smaller operand.
  AxesSharding Contract(const ir::Instruction& inst, const DimRoles& roles);
  // Where an operand uses an axis: its dimension's role and the index of
  // the pair in that role's list; role kNone when it does not use it.
  struct RoleUse {
    DimRole role = DimRole::kNone;
    size_t pair = 0;
  };
  // Where operand `s` (the lhs or the rhs) uses axis `bit`.
  static RoleUse RoleOf(const DimRoles& roles, const AxesSharding& s, bool is_lhs, AxisMask bit);
  // Which operand gives the output dim a settled `result` splits by axis
  // `bit`: the lhs (a batch or lhs free dim), the rhs (an rhs free dim), or
  // neither.
  enum class Side { kNeither, kLhs, kRhs };
  static Side SettledSide(const DimRoles& roles, const AxesSharding& result, AxisMask bit);
  // The dot's result: batch and free dims as the operands split them, the
  // contracting dims' axes partial.
  static AxesSharding ContractedResult(const DimRoles& roles, const AxesSharding& lhs, const AxesSharding& rhs,
                                       size_t rank);
  // Contract's conflict on axis `bit`, used by both operands in roles that
  // cannot coexist (lk, rk): drops it from the operand whose gathered
  // buffer, plus the partial result the other leaves, is smaller (the rhs
  // on a tie) and marks that side kNone.
  void DropConflictingAxis(const ir::Instruction& inst, AxisMask bit, AxesSharding& lhs, AxesSharding& rhs,
                           DimRole& lk, DimRole& rk) const;
  // A contracting dimension split over different axes on the two operands,
  // where an axis that only one side splits it by is a batch axis of the
  // other operand: XLA's partitioner does not contract over that split
  // (it matches the operands' partitions per dimension). Both operands
  // take the output's batch sharding, the contracting dimension whole on
  // each, and the result holds no partial sum of it: moe_train_step
  // dp2_ep4's expert weight-gradient dots, where the tokens' g*c is split
  // by (dp, ep) and h's by dp with ep on its experts, compile to the
  // tokens resharded to the experts over ep, h all-gathered over dp and no
  // all-reduce (XLA's sharded dump). Clears that dimension's split on both
  // sides; Contract then mirrors the batch axis and gathers the rest.
  static void UnsplitContractionsSplitAgainstABatch(const DimRoles& roles, AxesSharding& lhs,
                                                    AxesSharding& rhs);

  // `s` (leaf `leaf` of `inst`, of array shape `shape`) with the axes its
  // hint adds: on each dimension `s` leaves unsplit, the hint's axes that
  // `s` does not use anywhere (nor as a partial sum) when their ways divide
  // it. A value forward propagation already split keeps its split; a split
  // dimension is split further only where the hint splits it by the same
  // axes and more, the added axes minor to them (XLA merges a compatible
  // more specific sharding: moe_train_step dp2_ep4's transposed expert
  // output, g split by dp, takes the combine dot's g by (dp, ep), so its
  // operand is re-split by an all-to-all, all-to-all.5 in XLA's compile,
  // not gathered over ep). Otherwise not (moe dp2_ep4: the experts dim
  // split by ep stays so, as in XLA's compile); backward only refines
  // (XLA's propagation keeps the more specific sharding).
  void Refine(const ir::Instruction& inst, size_t leaf, const ir::Shape& shape,
              AxesSharding& s) const;
  // The sharding `inst`, with result leaves `result`, takes operand `k` in
  // (leaves of the operand); empty when no rule says (backward.cc).
  std::vector<AxesSharding> OperandWant(const ir::Instruction& inst, size_t k,
                                        const std::vector<AxesSharding>& result) const;
  AxesSharding ReshapeWant(const ir::Instruction& inst, const AxesSharding& result) const;
  // OperandWant for a tuple or get-tuple-element: the leaves the operand
  // gives or takes.
  std::vector<AxesSharding> TupleOperandWant(const ir::Instruction& inst, size_t k,
                                             const std::vector<AxesSharding>& result) const;
  // OperandWant for an array instruction with one array result `r`; nullopt
  // when the operand's sharding cannot be told from the result.
  std::optional<AxesSharding> ArrayOperandWant(const ir::Instruction& inst, size_t k, const AxesSharding& r) const;
  // A dot operand's batch and free dims from the result's.
  std::optional<AxesSharding> DotOperandWant(const ir::Instruction& inst, size_t k, const AxesSharding& r) const;
  // A gather's operand (k 0) from the result's batch dims, through the
  // lowered batching dims (gather_scatter_rules.cc); nullopt without them.
  std::optional<AxesSharding> GatherOperandWant(const ir::Instruction& inst, const AxesSharding& r) const;
  // OperandWant for one array result `r` and an array operand; nullopt
  // when no rule says (or the operand is not an array).
  std::optional<AxesSharding> ArrayWant(const ir::Instruction& inst, size_t k,
                                        const AxesSharding& r) const;
  void AddHint(ir::InstructionId id, size_t leaf, const AxesSharding& want);
  // Whether `want` keeps every axis of the settled sharding where it is,
  // adding axes only on unsplit dims or as minor axes of a split one.
  static bool RefinesSettled(const AxesSharding& settled, const AxesSharding& want);
  // Backward's step for one instruction: BackwardArray for an array result
  // with no body and no tuple (its wants built without a vector each),
  // BackwardLeaves for the rest, BackwardBody for a fusion, call or loop
  // (its body walked with the result's wants, the body parameters' hints
  // passed to the operands).
  void BackwardArray(const ir::Instruction& inst, const AxesSharding& forward);
  void BackwardLeaves(const ir::Instruction& inst, const std::vector<AxesSharding>& forward);
  void BackwardBody(const ir::Instruction& inst, ir::ComputationId body,
                    const std::vector<AxesSharding>& result);

  // The first stage's steps: Settle marks `id` (an array, not yet settled)
  // with `s` unless replicated, and says whether it did; PassForward is the
  // result a pass-through op gets from its settled operands (nullopt: none
  // settled); SettleSweep walks `c` forward then backward once, SettleFusion
  // a fusion's boundary and body; each says whether anything was settled.
  bool Settle(ir::InstructionId id, const AxesSharding& s);
  std::optional<AxesSharding> PassForward(const ir::Instruction& inst) const;
  bool SettleSweep(ir::ComputationId c);
  bool SettleFusion(const ir::Instruction& inst);
  bool IsEntryParameter(ir::InstructionId id) const;
  // An entry parameter, or a copy of one in the entry computation. XLA
  // inserts such copies after partitioning (copy insertion for a donated
  // parameter, layout assignment), so in the partitioned program their
  // readers read the parameter itself: its sharding is the plan's, and no
  // reader's want refines it (a reader wanting it split slices it there).
  bool IsEntryParameterOrCopy(ir::InstructionId id) const;
  bool Settled(ir::InstructionId id) const {
    return !settled_.empty() && settled_[static_cast<size_t>(id.value())];
  }

  // Replicated leaves for `shape`.
  std::vector<AxesSharding> Replicated(const ir::Shape& shape) const;

  const ir::Module& module_;
  const PropagationGraph& graph_;
  // Every question propagation asks of the mesh's sizes goes through here.
  SizeQuestions sizes_;
  Propagation& out_;
  // The fusion whose body is being walked (invalid outside fusions).
  ir::InstructionId fusion_context_;
  // Partial values already all-reduced: (origin, 0) -> (index of the
  // all-reduce in out_.collectives, the result).
  absl::flat_hash_map<std::pair<int64_t, int64_t>, std::pair<int64_t, AxesSharding>> resolved_;
  // Scatter-adds that made a partial sum over a whole accumulator: the
  // scheduled instruction standing for the scatter -> the accumulator's
  // buffer (PredictedCollective::excluded_accumulator).
  absl::flat_hash_map<int64_t, ir::InstructionId> scatter_accumulators_;
  // Record's index of recorded collectives (not all-reduces): (kind,
  // source, axes, result bytes, computation) -> index in out_.collectives.
  using RecordKey = std::tuple<int, int64_t, AxisMask, int64_t, int64_t>;
  absl::flat_hash_map<RecordKey, size_t> recorded_;
  // Record's key holds result bytes: when recording size answers, the
  // result shardings seen per (kind, source, axes, computation), each new
  // one's bytes compared with theirs.
  void AskSameBytes(const RecordKey& key, const ir::Shape& shape, const AxesSharding& result);
  // A key's shardings, in the order seen: a list through seen_terms_ (its
  // first and last index; -1 none). (Indices, not a list per key: most keys
  // see one sharding, and slots holding the terms made the map's growth
  // move and touch three times the bytes.)
  struct SeenTerm {
    ByteTerm term;
    int64_t next = -1;
  };
  std::vector<SeenTerm> seen_terms_;
  absl::flat_hash_map<std::tuple<int, int64_t, AxisMask, int64_t>, std::pair<int64_t, int64_t>>
      results_seen_;
  // Per instruction, per leaf (from graph_.leaf_offset): the backward
  // pass's hint (replicated: none). One array, not a vector per instruction
  // (an allocation per hinted instruction and a scattered header read per
  // Refine).
  std::vector<AxesSharding> hints_;
  // Per instruction: settled by the first stage (its hint is the sharding).
  std::vector<bool> settled_;
  AxesSharding* HintsOf(ir::InstructionId id) {
    return hints_.data() + graph_.leaf_offset[static_cast<size_t>(id.value())];
  }
  const AxesSharding* HintsOf(ir::InstructionId id) const {
    return hints_.data() + graph_.leaf_offset[static_cast<size_t>(id.value())];
  }
};

// Elementwise opcodes: one output element from the same-index elements of
// same-shaped operands.
bool IsElementwise(ir::Opcode opcode);
// Whether the backward hint refines an instruction's result after its rule.
bool RefinesResult(ir::Opcode opcode);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_PROPAGATOR_H_
