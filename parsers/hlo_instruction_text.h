// Reads the parts memplan needs out of one HLO instruction as XLA prints it:
//   %p44.801.0 = bf16[2,4233]{1,0} parameter(44), metadata={op_type="x"
//   op_name="jit(f)/dot" source_file="/a/b.py" source_line=355}
#ifndef MEMPLAN_PARSERS_HLO_INSTRUCTION_TEXT_H_
#define MEMPLAN_PARSERS_HLO_INSTRUCTION_TEXT_H_

#include <optional>
#include <string_view>

#include "ir/metadata.h"
#include "ir/shape.h"

namespace memplan::parsers {

struct InstructionText {
  std::string_view name;    // without '%'
  std::string_view opcode;  // "parameter", "custom-call", "fusion", ...
  std::optional<ir::Shape> shape;  // absent when not printed or not understood
  ir::OpMetadata metadata;  // views into the text; quoted values unescaped
                            // only as far as dropping the quotes
};

// Best effort: fields that cannot be found stay empty. Returns false when the
// text does not look like an instruction at all ("name = shape opcode(").
bool ParseInstructionText(std::string_view text, InstructionText* out);

// Reads only "metadata={...}" out of `text` into `metadata`; false if absent.
bool ParseOpMetadata(std::string_view text, ir::OpMetadata* metadata);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_HLO_INSTRUCTION_TEXT_H_
