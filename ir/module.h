// The program graph: one HLO module as Module -> Computations ->
// Instructions, with dense strong ids, operand edges, called-computation
// edges, shapes with layouts, metadata and typed attributes (HloAttributes).
// Every input lowers into it: HLO text and the HloProto give the whole
// graph; a buffer-assignment dump without its module text gives the
// instructions it names (Module::gaps says what is missing); a jaxpr lowers
// into the same structure.
//
// Ids are dense: InstructionId(k) is instructions()[k], ComputationId(k) is
// computations()[k]. Names are for display and for parsers resolving what an
// input names; analyses follow ids and edges.
//
// Text fields are std::string_view into input (or copies of it) that the
// owning Program keeps alive (ir/program.h).
#ifndef MEMPLAN_IR_MODULE_H_
#define MEMPLAN_IR_MODULE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/block_list.h"
#include "ir/hlo_attributes.h"
#include "ir/ids.h"
#include "ir/metadata.h"
#include "ir/metadata_pool.h"
#include "ir/opcode.h"
#include "ir/shape.h"
#include "ir/shape_pool.h"
#include "ir/thin_vector.h"

namespace memplan::ir {

// Why an instruction calls a computation. The order of an instruction's
// calls is XLA's called_computations() order (while: body then condition;
// conditional: branches in order; select-and-scatter: select then scatter).
enum class CallRole : uint8_t {
  kFused,           // fusion: the fused computation
  kWhileBody,       // while: body=
  kWhileCondition,  // while: condition=
  kBranch,          // conditional: branch_computations= / true_ / false_computation=
  kToApply,         // reduce, all-reduce, map, scatter, reduce-window, call: to_apply=
  kComparator,      // sort: to_apply=
  kSelect,          // select-and-scatter: select=
  kScatter,         // select-and-scatter: scatter=
  kCalled,          // custom-call called_computations=, async-start calls=
};

struct CalledComputation {
  ComputationId computation;
  CallRole role = CallRole::kCalled;
  friend bool operator==(const CalledComputation&, const CalledComputation&) = default;
};

struct Instruction {
  InstructionId id;
  // The computation holding it; invalid when the input names the instruction
  // but not where it lives (a buffer-assignment dump read without its module).
  ComputationId computation;
  std::string_view name;  // without '%'
  std::string_view opcode_text;  // as the input spells it (also for kUnknown)
  // dtype kInvalid when the input does not say. Equal shapes of a module
  // are one object of its pool: set it with Module::InternShape.
  SharedShape shape;
  ThinVector<InstructionId> operands;
  ThinVector<CalledComputation> calls;
  // Instructions of the same computation that must run before this one
  // though no operand says so (text "control-predecessors={...}", the
  // proto's control_predecessor_ids), in input order.
  ThinVector<InstructionId> control_predecessors;
  // Empty when the input gives none. Set it with Module::StoreMetadata.
  SharedMetadata metadata;
  int64_t unique_id = -1;  // the HloProto's instruction id; -1 from text
  int32_t attributes = -1;  // Module::attributes(); -1 when it has none
  bool is_root = false;
  Opcode opcode = Opcode::kUnknown;  // here, not by opcode_text: packs with is_root
};

struct Computation {
  ComputationId id;
  std::string_view name;
  // In input order. In a scheduled module (ModuleHeader::is_scheduled) this
  // is the computation's schedule.
  std::vector<InstructionId> instructions;
  InstructionId root;
  // By parameter number; an invalid id where the input lacks that number.
  std::vector<InstructionId> parameters;
  int64_t unique_id = -1;  // the HloProto's computation id; -1 from text
};

// input_output_alias={ {0}: (1, {}, may-alias) }: output element
// `output_index` shares memory with parameter `parameter_number` at
// `parameter_index`.
struct InputOutputAlias {
  ShapeIndex output_index;
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  bool must_alias = false;
  friend bool operator==(const InputOutputAlias&, const InputOutputAlias&) = default;
};

// buffer_donor={ (0, {}) }: a parameter the program may reuse.
struct BufferDonor {
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  friend bool operator==(const BufferDonor&, const BufferDonor&) = default;
};

// What the "HloModule name, ..." line (or HloModuleProto) says of the module.
struct ModuleHeader {
  bool is_scheduled = false;
  // entry_computation_layout={(f32[8]{0}, ...)->f32[8]{0}}; empty when absent.
  // The parameter shapes are the module's interned copies (Module::InternShape):
  // a large entry repeats a few shapes over thousands of parameters.
  std::vector<SharedShape> entry_parameter_shapes;
  std::optional<Shape> entry_result_shape;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  std::vector<InputOutputAlias> input_output_aliases;
  std::vector<BufferDonor> buffer_donors;
  // Header attributes kept as written (allow_spmd_sharding_propagation_to_
  // output, frontend_attributes, ...).
  std::vector<UnknownAttribute> other;
};

// Parts of the graph an input did not provide.
enum class GraphGap : uint8_t {
  kComputations,  // which computation holds each instruction, and roots
  kOperands,      // operand and called-computation edges
  kShapes,        // shapes of instructions that define no listed value
  kAttributes,    // typed attributes
};

class Module {
 public:
  std::string_view name;
  ComputationId entry;  // invalid when the input does not say
  ModuleHeader header;
  // Stack frames by id - 1 (stack_frames[0] has id 1).
  std::vector<SourceFrame> stack_frames;
  // Empty when the input gave the whole graph.
  std::vector<GraphGap> gaps;

  const std::vector<Instruction>& instructions() const { return instructions_; }
  const std::vector<Computation>& computations() const { return computations_; }
  size_t instruction_count() const { return instructions_.size(); }

  // Require a valid id of this module.
  const Instruction& instruction(InstructionId id) const { return instructions_[id.value()]; }
  Instruction& mutable_instruction(InstructionId id) { return instructions_[id.value()]; }
  const Computation& computation(ComputationId id) const { return computations_[id.value()]; }
  Computation& mutable_computation(ComputationId id) { return computations_[id.value()]; }
  bool contains(InstructionId id) const {
    return id.valid() && id.value() < static_cast<int64_t>(instructions_.size());
  }
  bool contains(ComputationId id) const {
    return id.valid() && id.value() < static_cast<int64_t>(computations_.size());
  }

  // The entry computation, or nullptr.
  const Computation* entry_computation() const {
    return contains(entry) ? &computations_[entry.value()] : nullptr;
  }

  // Appends `instruction` (its id is assigned here) and returns its id.
  InstructionId AddInstruction(Instruction instruction);
  // Appends `computation` (its id is assigned here) and returns its id.
  ComputationId AddComputation(Computation computation);

  // The instruction's typed attributes; an empty set when it has none.
  const HloAttributes& attributes(InstructionId id) const;
  const HloAttributes& attributes(const Instruction& instruction) const;
  // Its attributes for writing, created empty on first use; a set that
  // ShareAttributes shared is copied first, so a write reaches only `id`.
  HloAttributes& mutable_attributes(InstructionId id);
  // Attribute sets made so far.
  size_t attribute_set_count() const { return attributes_.size(); }
  // Makes `id` use the earlier attribute set `shared` (equal to its own)
  // and frees its own, which must be the last set made. For parsers whose
  // sets are complete once made (equal instructions' sets kept once).
  void ShareAttributes(InstructionId id, int32_t shared);

  // The frame with `id`, or nullptr.
  const SourceFrame* FindStackFrame(int64_t id) const {
    return id >= 1 && id <= static_cast<int64_t>(stack_frames.size()) ? &stack_frames[id - 1]
                                                                        : nullptr;
  }

  bool has_gap(GraphGap gap) const;

  // Capacity for this many instructions and computations, so that a parser
  // that can estimate its size avoids regrowth.
  void Reserve(size_t instructions, size_t computations);

  // The module's copy of `shape`, for Instruction::shape: one per distinct
  // shape, alive for as long as this module or any copy of it.
  SharedShape InternShape(const Shape& shape) { return shapes_.Intern(shape); }
  // The module's copy of `metadata`, for Instruction::metadata, alive for as
  // long as this module or any copy of it (its text views as given).
  SharedMetadata StoreMetadata(const OpMetadata& metadata) { return metadata_.Store(metadata); }

  // Keeps `text` alive for as long as this module or any copy of it, and
  // returns a view of it: for text an input does not hold as such (a
  // layout's details or frontend attributes rendered from an HloProto).
  std::string_view Intern(std::string text);

 private:
  std::vector<Instruction> instructions_;
  std::vector<Computation> computations_;
  // Attribute sets never move once made (mutable_attributes' references
  // stay valid as others are added).
  BlockList<HloAttributes> attributes_;
  // By attribute set: used by more than one instruction (ShareAttributes).
  std::vector<bool> shared_attributes_;
  ShapePool shapes_;
  MetadataPool metadata_;
  // Shared so that copies of a module keep their views valid.
  std::vector<std::shared_ptr<const std::string>> owned_text_;
};

// "name{1,2}": an instruction and a shape index, as XLA names a value.
std::string InstructionDisplayName(const Module& module, InstructionId id, const ShapeIndex& index);

// The subshape of `shape` at `index`, or nullptr when the index leaves it.
const Shape* Subshape(const Shape& shape, const ShapeIndex& index);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_MODULE_H_
