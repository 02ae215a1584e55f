// Where an instruction came from: XLA's OpMetadata and the stack-frame table
// newer XLA writes beside it.
#ifndef MEMPLAN_IR_METADATA_H_
#define MEMPLAN_IR_METADATA_H_

#include <cstdint>
#include <string_view>

namespace memplan::ir {

// What XLA's OpMetadata says of an instruction. Empty views when absent.
struct OpMetadata {
  std::string_view op_type;
  std::string_view op_name;  // e.g. "jit(f)/jit(main)/dot_general"
  std::string_view source_file;
  int64_t source_line = 0;
  // Newer XLA: an id into Module::stack_frames (1-based; 0 = none) in place
  // of, or beside, source_file/source_line.
  int64_t stack_frame_id = 0;

  bool empty() const {
    return op_type.empty() && op_name.empty() && source_file.empty() && stack_frame_id == 0;
  }
  friend bool operator==(const OpMetadata&, const OpMetadata&) = default;
};

// One frame of the call stack an instruction came from (XLA's
// StackFrameIndexProto, flattened): where, and the frame that called it.
struct SourceFrame {
  std::string_view file;
  std::string_view function;
  int64_t line = 0;
  int64_t column = 0;
  int64_t parent_id = 0;  // stack frame id of the caller; 0 = outermost
  friend bool operator==(const SourceFrame&, const SourceFrame&) = default;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_METADATA_H_
