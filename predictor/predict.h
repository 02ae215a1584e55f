// Per-device memory of a program under a sharding plan, predicted from its
// single-device compile: shardings propagated through the graph
// (predictor/propagation.h), every buffer-assignment value scaled to its
// per-device shard (XLA's padded ceil(N/d) shards), the collectives the
// shardings imply added as buffers of their own (XLA's all-reduce combiner
// modelled: independent all-reduces over the same axes become one, whose
// result buffer holds all of them at once), and the temp arena re-packed
// with the heap simulator over the scaled lifetimes.
//
// A Predictor does the per-program work once (graph facts, schedule steps,
// value classes); Predict() is then cheap per candidate.
#ifndef MEMPLAN_PREDICTOR_PREDICT_H_
#define MEMPLAN_PREDICTOR_PREDICT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/memory_stats.h"
#include "ir/plan.h"
#include "ir/program.h"
#include "predictor/propagation.h"
#include "predictor/shared_list.h"
#include "predictor/sub_axes.h"

namespace memplan::predictor {

struct PredictOptions {
  // XLA's all-reduce combiner merges independent all-reduces over the same
  // devices up to this many bytes per combined op. XLA's CPU pipeline
  // combined every independent gradient all-reduce of the corpus (up to
  // 33.6 MB, samples/sharded/moe_train_step dp8), so the default does not
  // bind there.
  int64_t all_reduce_combine_threshold_bytes = int64_t{256} << 20;
  // Rounding of every temp buffer, as XLA's CPU heap packs them.
  int64_t temp_alignment = 64;
  // Pack the temp arena with analyzer's event-driven heap simulator instead
  // of analyzer::BestFitHeapSize: the same bytes, slower; kept as the
  // reference the fast path is tested against.
  bool reference_heap = false;
  // Share work between candidates: a candidate whose mesh axis sizes and
  // argument shardings (as mesh axes) equal an earlier one's reuses its
  // propagation and memory model; one whose axis count and argument
  // shardings equal an earlier one's, and whose sizes answer the questions
  // that one's propagation asked of its sizes alike, reuses its propagation
  // (predictor/shared_predictions.h). The same bytes either way; false
  // recomputes every candidate (the reference the shared path is tested
  // against).
  bool share_between_candidates = true;
  // Candidates' shared results kept at once (the oldest dropped first);
  // 0: 8,000,000 / instructions, between 4 and 32 (each holds a sharding
  // per instruction: 32 at 100k instructions, 8 at 1M).
  size_t shared_capacity = 0;
  // Re-run XLA's buffer assigner on the per-device buffers
  // (predictor/output_reassignment.h), for programs whose assignment is
  // not memplan's own (never ir::AssignmentSource::kSynthesised, a
  // jaxpr's). On one device it gives back XLA's own assignment of every
  // program of samples/sharded (temp within 0.1%); over the corpus's
  // sharded compiles it is the better model (docs/accuracy.md). Off: each
  // value stays in its single-device allocation while its shard fits.
  bool reassign_output_allocations = true;
};

struct DeviceMemory {
  int64_t device = 0;  // device id
  int64_t argument_bytes = 0;
  int64_t output_bytes = 0;
  int64_t alias_bytes = 0;
  int64_t temp_bytes = 0;
  int64_t device_footprint_bytes = 0;  // argument + output - alias + temp
  // Most bytes live at one step: arguments (live throughout), outputs and
  // temps together, each buffer over its own steps (HloLiveRange's rule;
  // constants not counted).
  int64_t live_peak_bytes = 0;
  ir::ScheduleStep live_peak_step = 0;
  // The instruction the schedule runs at live_peak_step; invalid when the
  // step is past the schedule's instructions.
  ir::InstructionId live_peak_instruction;
};

// A buffer live at the live peak, besides the arguments (live throughout).
struct PeakBuffer {
  enum class Kind : uint8_t {
    kValue,              // a buffer-assignment value, scaled to its shard
    kCollectiveResult,   // a collective's result
    kCollectiveOperand,  // the partial sum an all-reduce reads, held in no value
  };
  Kind kind = Kind::kValue;
  // kValue: the value and its defining instruction's leaf (index among its
  // array leaves, as Prediction::instruction_shardings counts them; -1 for a
  // tuple's table). Otherwise `collective` indexes
  // Prediction::collective_list and `instruction` is its consumer.
  ir::ValueId value;
  ir::InstructionId instruction;
  int64_t leaf = -1;
  int64_t collective = -1;
  int64_t bytes = 0;  // per device
  ir::ScheduleStep start = 0, end = 0;  // live over [start, end], per device
  bool in_temp_arena = true;  // else in an output allocation
  friend bool operator==(const PeakBuffer&, const PeakBuffer&) = default;
};

// What is live at a device's live peak: the arguments' bytes
// (DeviceMemory::argument_bytes), the largest buffers, and the rest
// counted, so that arguments + largest + other_bytes = live_peak_bytes.
struct PeakContents {
  static constexpr size_t kLargestKept = 32;
  // Most bytes first; equal bytes by start step, then kind and the value's
  // or collective's index.
  std::vector<PeakBuffer> largest;
  int64_t other_count = 0;
  int64_t other_bytes = 0;
  friend bool operator==(const PeakContents&, const PeakContents&) = default;
};

// Collectives of one kind over one set of mesh axes.
struct CollectiveGroup {
  CollectiveKind kind = CollectiveKind::kAllGather;
  AxisMask axes = 0;
  int64_t count = 0;         // operations after combining
  int64_t combined = 0;      // collectives the count stands for
  int64_t result_bytes = 0;  // per device, summed
};

// Per instruction, per leaf: the sharding propagation left it with. Shared
// (not copied) between the predictions of candidates that share work.
using InstructionShardings = std::shared_ptr<const std::vector<std::vector<AxesSharding>>>;

struct Prediction {
  ir::Mesh mesh;
  std::string label;
  // One per device, by mesh position. Under XLA's padded shards every
  // device holds buffers of the same sizes; the entries differ only when a
  // future rule makes them.
  std::vector<DeviceMemory> devices;
  int64_t max_device_footprint_bytes = 0;
  analyzer::MemoryStats unsharded;  // the program as compiled
  std::vector<CollectiveGroup> collectives;
  // Each collective, as propagation placed it.
  SharedList<PredictedCollective> collective_list;
  // Each all-reduce operation after combining: its members, indices into
  // collective_list (in the order the combiner took them).
  SharedList<std::vector<size_t>> combined_all_reduces;
  std::vector<UnknownPropagation> unknown;
  int64_t unmatched_arguments = 0;  // replicated by default (the plan says)
  // Per entry parameter and per output leaf, the sharding predicted.
  SharedList<AxesSharding> argument_shardings;
  std::vector<AxesSharding> output_shardings;
  // Per instruction, per leaf, the sharding propagation left it with
  // (Propagation::leaves; empty for an instruction never reached). The cost
  // model scales each instruction's work by it.
  // Null only when a caller dropped it.
  InstructionShardings instruction_shardings;
  // What is live at the devices' live peak (every device holds buffers of
  // the same sizes). Shared like the lists above; null when no buffer is
  // live at any step (no live ranges).
  std::shared_ptr<const PeakContents> live_at_peak;
};

class SharedPredictions;
struct ArgumentAxes;
struct DonatedCopy;
struct CombinerSchedule;
struct SharedPrediction;
struct StructuralPrediction;
class PackingMemo;

class Predictor {
 public:
  // Prepares `program` (which must outlive the Predictor): it needs the
  // module graph with an entry computation, and for temp and live peak, a
  // buffer assignment with live ranges. InvalidArgument without an entry
  // computation, or when an array's size cannot be counted (an unbounded
  // dynamic dimension, or arrays past 2^62 bytes: CheckShapesSizable).
  static absl::StatusOr<std::unique_ptr<Predictor>> Create(const ir::Program& program,
                                                           PredictOptions options = {});

  // The prediction for `plan`. InvalidArgument when the plan's argument
  // count differs from the program's, an argument's sharding rank differs
  // from its array's, or a sharding is not expressible on whole mesh axes.
  absl::StatusOr<Prediction> Predict(const ir::ResolvedPlan& plan) const;

  ~Predictor();
  Predictor(const Predictor&) = delete;
  Predictor& operator=(const Predictor&) = delete;

  const ir::Program& program() const { return program_; }

  // How the candidates predicted so far were answered: from a shared
  // prediction of the same sizes, from a shared propagation of the same
  // structure (bytes recomputed), or computed.
  struct SharingCounts {
    int64_t same_sizes = 0;
    int64_t same_structure = 0;
    int64_t computed = 0;
    // Of the same-structure ones: temp arenas taken from an earlier
    // packing scaled (predictor/packing_memo.h).
    int64_t packing_scaled = 0;
  };
  SharingCounts sharing_counts() const;

  // What Create records per buffer-assignment value.
  struct ValueInfo {
    enum class Class : uint8_t { kParameter, kOutput, kTemp, kOther };
    const ir::Value* value = nullptr;
    int64_t leaf = -1;  // leaf of the defining instruction; -1: a tuple table
    const ir::Shape* leaf_shape = nullptr;
    int64_t full_bytes = 0;  // ByteSizeOf(*leaf_shape)
    Class cls = Class::kOther;
    bool live_out = false;    // live until the end of the program
    int32_t allocation = -1;  // index into program.allocations
    // In a donated entry parameter's allocation (aliased with an output).
    // Re-assigning, such a value that is not the parameter itself is an
    // output-allocation value (kOutput): XLA's assigner offers a donated
    // parameter's allocation to other buffers as it does an output's.
    bool donated = false;
    // Index (into values_) of the value whose memory this one reuses in
    // place (same allocation and offset, lifetimes meeting); -1: none.
    int32_t share_with = -1;
    ir::ScheduleStep start = 0, end = -1;  // end < start: no live range
  };

 private:
  explicit Predictor(const ir::Program& program);
  // The plan's argument shardings as mesh axes, one per entry parameter,
  // into `out` (empty on entry). InvalidArgument naming the argument when a
  // sharding index is outside the plan's table or a sharding does not read
  // as mesh axes at its parameter's rank.
  absl::Status ReadArguments(const ir::ResolvedPlan& plan, ArgumentAxes* out) const;
  // Create's steps: each instruction's first schedule step, the last step,
  // and the value table (values_, value_of_, allocation_values_ and the
  // in-place sharing).
  void IndexSchedule();
  void BuildValueTable();
  void IndexDonatedReaders();  // donated_readers_, from values_ and value_of_
  void IndexDonatedAllocations();  // donated_allocations_, from values_
  void IndexParameterShapes();  // parameter_shapes_, parameter_same_shape_
  void IndexAliasedParameters();  // aliased_parameters_, alias_leaves_
  // The argument bytes of the donated parameters whose aliased output
  // (`out`'s output_shardings, merged) is sharded otherwise than the
  // parameter (`out`'s argument_shardings): JAX and XLA drop such an alias
  // (the output gets a buffer of its own), so their bytes are no alias.
  int64_t DroppedAliasBytes(const ir::ResolvedPlan& plan, const Prediction& out) const;
  void IndexValueOrder();  // value_order_, from values_ and post_order_
  // The shared prediction of a candidate: found by its key, resized from
  // one of the same structure, or computed (and kept for both).
  absl::StatusOr<std::shared_ptr<const SharedPrediction>> SharedFor(const ir::ResolvedPlan& plan,
                                                                    const MeshSizes& mesh,
                                                                    const ArgumentAxes& arguments) const;
  // The candidate's output shardings (the plan's where it names them,
  // partial sums reduced) and the devices' bytes with them.
  absl::Status SetOutputs(const ir::ResolvedPlan& plan, const SharedPrediction& shared,
                          Prediction& out) const;
  // The propagation and memory model of a candidate (what candidates of one
  // key share).
  // When `structure` is not null, the propagation's size questions are
  // recorded and it is kept there for candidates of the same structure
  // (unless a reshape asked for sub-axes: then it stays null).
  absl::StatusOr<std::shared_ptr<const SharedPrediction>> Share(
      const ir::ResolvedPlan& plan, const MeshSizes& mesh,
      const SharedList<AxesSharding>& arguments,
      std::shared_ptr<const StructuralPrediction>* structure) const;
  // The prediction of a candidate of `structure`'s structure whose mesh
  // answers its questions alike: the collectives' bytes and the memory
  // model for `mesh`; its arguments are the structure's.
  std::shared_ptr<const SharedPrediction> Resize(const StructuralPrediction& structure,
                                                 const ir::ResolvedPlan& plan,
                                                 const MeshSizes& mesh) const;
  // The memory model over a propagation's results, on `sub`'s axes
  // (`arguments` on the plan's axes, `model_arguments` on sub's); the
  // collectives and shardings kept are read back on the plan's axes.
  std::shared_ptr<SharedPrediction> Model(const ir::ResolvedPlan& plan, const MeshSizes& mesh,
                                          const SharedList<AxesSharding>& arguments,
                                          const SharedList<AxesSharding>& model_arguments,
                                          InstructionShardings leaves,
                                          std::vector<AxesSharding> root_leaves,
                                          std::vector<PredictedCollective> collectives,
                                          std::vector<UnknownPropagation> unknown,
                                          PackingMemo* memo, const SubAxes& sub) const;

  const ir::Program& program_;
  PredictOptions options_;
  PropagationGraph graph_;
  analyzer::MemoryStats unsharded_;
  std::vector<ir::ScheduleStep> step_of_;  // per instruction; -1 unscheduled
  // Per instruction: its step when scheduled and not a parameter, else -1
  // (the memory model's collective issue steps, read without visiting the
  // instruction).
  std::vector<ir::ScheduleStep> non_parameter_step_;
  // Per instruction: whether it is a layout copy of a computed value of its
  // size (layout_copy_gathers.h, LayoutCopiesOfComputedValues).
  std::vector<uint8_t> layout_copies_;
  // The schedule as the all-reduce combiner walks it (all_reduce_combiner.h).
  std::unique_ptr<const CombinerSchedule> combiner_schedule_;
  // Per entry parameter: its array's rank (0 for a missing instruction);
  // read per candidate argument, kept here so that reading a plan does not
  // visit every parameter's instruction.
  std::vector<int64_t> parameter_ranks_;
  // Per entry parameter: its shape (null for a missing instruction), and
  // whether it is an array of the element type, packed width and dimensions
  // of the parameter before it (then equal shardings give equal bytes).
  std::vector<const ir::Shape*> parameter_shapes_;
  std::vector<uint8_t> parameter_same_shape_;
  // The entry parameters donated to an output (an input-output alias, or
  // without any, a live-out parameter allocation), ascending, each once.
  std::vector<size_t> aliased_parameters_;
  // Each whole-parameter input-output alias as (parameter, output leaf:
  // index among the root's array leaves, as Prediction::output_shardings
  // counts them).
  std::vector<std::pair<size_t, size_t>> alias_leaves_;
  std::vector<ValueInfo> values_;
  // Per instruction: the value (values_ index) of its whole array result
  // (leaf 0, shape index {}); -1 when there is none.
  std::vector<int32_t> value_of_;
  // Per allocation index in program.allocations: values in it (values_ index).
  std::vector<std::vector<int32_t>> allocation_values_;
  // (allocation, value) for every live-out value of the output class, by
  // allocation: what an output allocation's capacity is the largest of.
  std::vector<std::pair<int32_t, int32_t>> live_out_outputs_;
  // (value, the value whose memory it reuses) for every value with a
  // share_with, ascending: the memory model's in-place groups, read without
  // visiting every value.
  std::vector<std::pair<int32_t, int32_t>> in_place_values_;
  // (parameter value, reader value) for every read of a donated entry
  // parameter by an entry instruction with a value, when reassign_outputs_:
  // the memory model holds the parameter to its readers' per-device steps
  // (output_reassignment.h, HoldDonatedParametersToTheirReaders).
  std::vector<std::pair<int32_t, int32_t>> donated_readers_;
  // Per allocation index, when reassign_outputs_: 1 for a donated entry
  // parameter's allocation (a value in it is donated), whose bytes the
  // arguments count (ReassignOutputAllocations' in_arguments); empty
  // otherwise.
  std::vector<uint8_t> donated_allocations_;
  // Per value: what the memory model's walk over every value
  // (MemoryModel::ValueBuffers) reads of values_, packed in 24 bytes
  // (a ValueInfo is 64: the walk read a cache line per value).
  struct ValueWalk {
    ir::ScheduleStep start = 0, end = -1;
    int32_t allocation = -1;
    ValueInfo::Class cls = ValueInfo::Class::kOther;
    bool donated = false;
    bool live_out = false;
  };
  std::vector<ValueWalk> value_walk_;
  // Copies of donated parameters that XLA may remove per device
  // (predictor/donated_copies.h, FindDonatedCopies).
  std::vector<DonatedCopy> donated_copies_;
  // Per value: values_[v].end, flat (the memory model starts each
  // candidate's end steps from it).
  std::vector<ir::ScheduleStep> value_ends_;
  // Per value: values_[v].start, flat (the re-run's per-device starts
  // begin from it).
  std::vector<ir::ScheduleStep> value_starts_;
  // The values of the output class, ascending (the memory model's chains
  // into live-out allocations and loop buffers, read without visiting
  // every value).
  std::vector<int32_t> output_values_;
  ir::ScheduleStep max_step_ = 0;
  // Whether the memory model re-runs XLA's buffer assigner on the
  // per-device buffers (predictor/output_reassignment.h): asked for, and
  // the program's allocations are XLA's (not a jaxpr's synthesised ones).
  bool reassign_outputs_ = false;
  // Per value, when reassign_outputs_: its loop buffer's first value
  // (predictor/output_reassignment.h, LoopBufferLeaders); empty otherwise.
  std::vector<int32_t> loop_leader_;
  // The values whose loop_leader_ is another value, ascending.
  std::vector<int32_t> loop_followers_;
  // Per instruction, when reassign_outputs_: its module post-order
  // position (predictor/output_reassignment.h, InstructionPostOrder).
  // value_order_ is built from it; MemoryModel::CollectiveOrder reads it
  // per collective reader, which value_order_ (by value_of_) cannot stand
  // for: a reader need not have a value of its own array (value_of_ -1: a
  // tuple-shaped instruction; samples/sharded has a multi-output
  // custom-call reading a collective), and its order would become unknown
  // (the largest) instead of its place.
  std::vector<int64_t> post_order_;
  // Per value, when reassign_outputs_: TempBuffer::order of the value
  // (twice its instruction's post-order position plus one, the largest
  // value when it has none), read per candidate without visiting the
  // value's instruction; empty otherwise.
  std::vector<int64_t> value_order_;
  std::unique_ptr<SharedPredictions> shared_;  // null: nothing shared
  mutable std::atomic<int64_t> same_sizes_{0}, same_structure_{0}, computed_{0},
      packing_scaled_{0};
  friend class MemoryModel;
};

std::string_view CollectiveKindName(CollectiveKind kind);
// The kind's stable key, as the JSON report writes it: "value",
// "collective_result", "collective_operand".
std::string_view PeakBufferKindName(PeakBuffer::Kind kind);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_PREDICT_H_
