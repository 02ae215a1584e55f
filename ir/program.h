// The IR every memplan stage shares: one compiled program's logical values,
// allocations, schedule and live ranges, as a parser read them.
//
// Text fields are std::string_view into the input the parser read (usually a
// memory-mapped file). A Program keeps that input alive (KeepAlive), so the
// views stay valid for as long as the Program, or any copy of it, lives.
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
#include "ir/shape.h"

namespace memplan::ir {

// What XLA's OpMetadata says of an instruction. Empty views when absent.
struct OpMetadata {
  std::string_view op_type;
  std::string_view op_name;  // e.g. "jit(f)/jit(main)/dot_general"
  std::string_view source_file;
  int64_t source_line = 0;
  // Newer XLA: an id into Program::stack_frames (1-based; 0 = none) in place
  // of, or beside, source_file/source_line.
  int64_t stack_frame_id = 0;

  bool empty() const {
    return op_type.empty() && op_name.empty() && source_file.empty();
  }
};

// An HloPosition: an instruction output (and tuple index) that holds a value.
struct ValuePosition {
  std::string_view instruction;
  ShapeIndex index;
};

// An HloUse: an instruction operand that reads a value.
struct ValueUse {
  std::string_view instruction;
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
  std::string_view instruction;  // defining instruction
  ShapeIndex index;              // within the instruction's (tuple) shape
  bool is_phi = false;
  int64_t color = 0;
  int64_t size = 0;
  AllocationId allocation;  // invalid when the value was never assigned
  int64_t offset = 0;       // within the allocation
  std::string_view shape_text;
  Shape shape;

  // From "Used values" (or the proto's instructions) when the input has them.
  std::vector<ValuePosition> positions;
  std::vector<ValueUse> uses;
  std::string_view defining_text;  // the "from instruction:" HLO text
  std::string_view opcode;
  OpMetadata metadata;

  std::optional<LiveRange> live_range;

  // "custom-call.19.0{1}": the instruction with the index when it has one.
  std::string DisplayName() const;
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
  std::vector<std::string_view> instructions;
  // "HloLiveRange (max N)": the last logical time; -1 when unknown.
  ScheduleStep max_time = -1;
};

// One line of the dump's own "Live ranges at N (peak):" list.
struct StatedPeakEntry {
  std::string_view instruction;
  std::optional<ShapeIndex> index;  // absent in the older style
  int64_t bytes = 0;
};

struct StatedPeak {
  ScheduleStep step = 0;
  std::vector<StatedPeakEntry> entries;
};

// An HLO instruction, where the input lists them (the HloProto): every
// computation's, fused computations included.
struct Instruction {
  int64_t id = 0;
  std::string_view name;
  std::string_view opcode;
  std::string_view computation;  // the computation holding it
  Shape shape;
  OpMetadata metadata;
  std::vector<int64_t> operand_ids;
  std::vector<int64_t> called_computation_ids;
};

// One frame of the call stack an instruction came from (XLA's
// StackFrameIndexProto, flattened): where, and the frame that called it.
struct SourceFrame {
  std::string_view file;
  std::string_view function;
  int64_t line = 0;
  int64_t column = 0;
  int64_t parent_id = 0;  // stack frame id of the caller; 0 = outermost
};

// One event of XLA's heap-simulator trace (HeapSimulatorTrace.Event).
struct HeapTraceEvent {
  enum class Kind { kAlloc, kFree, kShareWith };
  Kind kind = Kind::kAlloc;
  ValueId buffer;
  ValueId share_with;  // for kShareWith: the buffer whose memory it reuses
  std::string_view instruction;
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

class Program {
 public:
  std::string module_name;
  // Which parser read it: "buffer-assignment", "hlo-proto",
  // "memory-usage-report", "oom-message".
  std::string input_format;
  std::vector<std::string> source_files;  // what was read, in order

  std::vector<Allocation> allocations;  // sorted by id
  std::vector<Value> values;            // sorted by id

  // "Total bytes used: N", when the input states it.
  std::optional<int64_t> stated_total_bytes;

  // Category totals stated without allocations (OOM messages).
  std::optional<StatedCategoryBytes> stated_categories;

  // The module's instructions, by computation in input order (empty for
  // inputs that do not list them, such as the text buffer assignment).
  std::vector<Instruction> instructions;
  std::string_view entry_computation;

  // Stack frames by id - 1 (stack_frames[0] has id 1).
  std::vector<SourceFrame> stack_frames;
  std::vector<HeapTrace> heap_traces;

  Schedule schedule;
  bool has_live_ranges = false;
  std::optional<StatedPeak> stated_peak;

  Diagnostics diagnostics;

  // What the input cannot tell, for the report to say (e.g. "allocation
  // sizes are rounded, as the memory-usage report prints them").
  std::vector<std::string> notes;

  // Lookups by id; nullptr when absent. Require the vectors sorted by id.
  const Value* FindValue(ValueId id) const;
  const Allocation* FindAllocation(AllocationId id) const;
  // Where an instruction came from: metadata's source_file/source_line, else
  // its innermost stack frame's; an empty file when neither is known.
  struct SourceLocation {
    std::string_view file;
    int64_t line = 0;
  };
  SourceLocation SourceOf(const OpMetadata& metadata) const;

  // The frame with `id`, or nullptr.
  const SourceFrame* FindStackFrame(int64_t id) const {
    return id >= 1 && id <= static_cast<int64_t>(stack_frames.size()) ? &stack_frames[id - 1]
                                                                        : nullptr;
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
