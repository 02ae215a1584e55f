// The IR every memplan stage shares: one program's graph (ir/module.h) and,
// where the input has one, its buffer assignment over that graph: logical
// values, allocations, schedule and live ranges, all referring to the
// graph's instructions by id.
//
// Text fields are std::string_view into what the parser keeps: the input it
// read (usually a memory-mapped file), or copies of the parts it needs (the
// buffer-assignment parser's text arena, so that a large dump need not stay
// in memory). A Program keeps either alive (KeepAlive), so the views stay
// valid for as long as the Program, or any copy of it, lives.
#ifndef MEMPLAN_IR_PROGRAM_H_
#define MEMPLAN_IR_PROGRAM_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ids.h"
#include "ir/module.h"
#include "ir/notes.h"
#include "ir/shape.h"

namespace memplan::ir {

// An HloPosition: an instruction output (and tuple index) that holds a value.
struct ValuePosition {
  InstructionId instruction;
  ShapeIndex index;
};

// An HloUse: an instruction operand that reads a value.
struct ValueUse {
  InstructionId instruction;
  int64_t operand_number = 0;
  ShapeIndex operand_index;
};

// Both ends inclusive, in schedule steps (HloLiveRange's logical time).
struct LiveRange {
  ScheduleStep start = 0;
  ScheduleStep end = 0;
  bool Contains(ScheduleStep step) const { return start <= step && step <= end; }
};

// A logical buffer (XLA's HloValue) and where buffer assignment put it.
struct Value {
  ValueId id;
  InstructionId instruction;  // defining instruction, in Program::module
  ShapeIndex index;           // within the instruction's (tuple) shape
  bool is_phi = false;
  int64_t color = 0;
  int64_t size = 0;
  AllocationId allocation;  // invalid when the value was never assigned
  int64_t offset = 0;       // within the allocation
  std::string_view shape_text;
  Shape shape;

  // From "Used values" when the input has them.
  std::vector<ValuePosition> positions;
  std::vector<ValueUse> uses;

  std::optional<LiveRange> live_range;
};

// A BufferAllocation: one contiguous block the runtime allocates.
struct Allocation {
  AllocationId id;
  int64_t size = 0;
  int64_t color = 0;
  std::optional<int64_t> page;

  // Entry computation parameter: "parameter N, shape |S| at ShapeIndex {..}".
  std::optional<int64_t> parameter_number;
  std::string_view parameter_shape_text;
  ShapeIndex parameter_index;

  // "output shape is |S|": the allocation holds the entry's output tuple.
  std::optional<std::string_view> output_shape_text;

  bool is_constant = false;
  bool is_thread_local = false;
  bool maybe_live_out = false;
  bool is_preallocated_temp = false;

  // Values assigned here, in the order the input lists them. Offsets are on
  // the values.
  std::vector<ValueId> values;

  // " reused by buffers of a different color:" (newer XLA): values of
  // another color that share this allocation's memory.
  struct ColorReuse {
    ValueId value;
    int64_t color = 0;
  };
  std::vector<ColorReuse> reused_by_other_colors;

  bool is_entry_parameter() const { return parameter_number.has_value(); }
};

// The flattened instruction sequence (HloLiveRange's InstructionSequence).
struct Schedule {
  std::vector<InstructionId> instructions;
  // "HloLiveRange (max N)": the last logical time; -1 when unknown.
  ScheduleStep max_time = -1;
};

// One line of the dump's own "Live ranges at N (peak):" list.
struct StatedPeakEntry {
  InstructionId instruction;
  std::optional<ShapeIndex> index;  // absent in the older style
  int64_t bytes = 0;
};

struct StatedPeak {
  ScheduleStep step = 0;
  std::vector<StatedPeakEntry> entries;
};

// One event of XLA's heap-simulator trace (HeapSimulatorTrace.Event).
struct HeapTraceEvent {
  enum class Kind { kAlloc, kFree, kShareWith };
  Kind kind = Kind::kAlloc;
  ValueId buffer;
  ValueId share_with;  // for kShareWith: the buffer whose memory it reuses
  InstructionId instruction;  // invalid when the trace names none
};

// The trace XLA's heap simulator recorded while packing one allocation.
struct HeapTrace {
  AllocationId allocation;  // invalid when the trace does not say
  bool whole_module = false;
  std::vector<HeapTraceEvent> events;
};

// Category totals an input states without listing every allocation (the
// "BufferAssignment stats:" of XLA's OOM message). Absent fields were not
// stated.
struct StatedCategoryBytes {
  std::optional<int64_t> parameter;
  std::optional<int64_t> constant;
  std::optional<int64_t> maybe_live_out;
  std::optional<int64_t> preallocated_temp;
  std::optional<int64_t> total;
  std::optional<int64_t> fragmentation;
  // Output bytes that share memory with arguments (the TPU message's
  // "Output size X; shares Y with arguments.").
  std::optional<int64_t> alias;
};

// Whose buffer assignment a Program's allocations and value offsets are.
enum class AssignmentSource {
  // XLA's own, as the compile stated it (a buffer-assignment dump, an
  // HloProto, a memory-usage report, an OOM message's allocations). The
  // default: a Program built in code stands for a compile's.
  kXla,
  // The input states none: the module alone (an HLO module text); no
  // allocations.
  kNone,
  // memplan's own, one allocation per value, made while lowering a traced
  // program that has no compile (a jaxpr, ir/jaxpr_program.h).
  kSynthesised,
};

class Program {
 public:
  std::string module_name;
  // Which parser read it, for views: "buffer-assignment", "hlo-proto",
  // "memory-usage-report", "oom-message", "hlo-text", "jaxpr".
  std::string input_format;
  // Set with input_format by whatever builds the Program; what code that
  // depends on the kind of assignment tests (not input_format).
  AssignmentSource assignment_source = AssignmentSource::kXla;
  std::vector<std::string> source_files;  // what was read, in order

  std::vector<Allocation> allocations;  // sorted by id
  std::vector<Value> values;            // sorted by id

  // "Total bytes used: N", when the input states it.
  std::optional<int64_t> stated_total_bytes;

  // Category totals stated without allocations (OOM messages).
  std::optional<StatedCategoryBytes> stated_categories;

  // The program graph. Every instruction a value, the schedule or a trace
  // names is in it, whether or not the input held the module's text
  // (Module::gaps says what is missing).
  Module module;

  std::vector<HeapTrace> heap_traces;

  Schedule schedule;
  bool has_live_ranges = false;
  std::optional<StatedPeak> stated_peak;

  Diagnostics diagnostics;

  // What the input cannot tell, or how a number was derived (ir/notes.h).
  std::vector<Note> notes;

  // An empty program named `module_name`, for a parser to read into.
  static Program Named(std::string module_name) {
    Program program;
    program.module_name = std::move(module_name);
    return program;
  }

  // Lookups by id; nullptr when absent. Require the vectors sorted by id.
  const Value* FindValue(ValueId id) const;
  const Allocation* FindAllocation(AllocationId id) const;

  // The instruction that defines `value`.
  const Instruction& DefiningInstruction(const Value& value) const {
    return module.instruction(value.instruction);
  }
  // "custom-call.19.0{1}": the defining instruction with the index when it
  // has one, as XLA names the value.
  std::string ValueName(const Value& value) const {
    return InstructionDisplayName(module, value.instruction, value.index);
  }
  // The name of an instruction, "" for an invalid id.
  std::string_view InstructionName(InstructionId id) const {
    return module.contains(id) ? module.instruction(id).name : std::string_view();
  }

  // Stores `s` for as long as this Program (or a copy) lives; returns a view
  // of it. For text an input does not hold verbatim (e.g. a shape printed
  // from a proto).
  std::string_view Intern(std::string s);

  // Keeps `owner` (the text the views point into) alive with this Program.
  void KeepAlive(std::shared_ptr<const void> owner) {
    backing_.push_back(std::move(owner));
  }

 private:
  std::vector<std::shared_ptr<const void>> backing_;
  std::shared_ptr<std::deque<std::string>> interned_;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_PROGRAM_H_
