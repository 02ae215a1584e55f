// Parses XLA's HLO module text (`*.before_optimizations.txt`,
// `*after_optimizations.txt`, `--xla_dump_hlo_as_text`) into an ir::Module:
// computations, instructions with dense ids, operand and called-computation
// edges, shapes with layouts, metadata, the stack-frame tables, the module
// header and the typed attributes of ir::HloAttributes. docs/hlo-text.md
// describes the grammar and the XLA versions read.
//
// Text fields of the module are views into `source`, which the caller keeps
// alive (ir::Program::KeepAlive) for as long as the module is used.
#ifndef MEMPLAN_PARSERS_HLO_TEXT_PARSER_H_
#define MEMPLAN_PARSERS_HLO_TEXT_PARSER_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "ir/diagnostics.h"
#include "ir/module.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// Fills `module`, which must be empty (default-constructed), from the whole
// of `source`. Instructions get ids in text order; a computation's
// instructions are listed in text order (the schedule, when the header says
// is_scheduled=true). Operands may name instructions defined later in the
// same computation; called computations may be defined anywhere in the
// module. An operand "%x#N" (newer XLA prints each get-tuple-element that
// way at its users, with no line of its own) becomes one get-tuple-element
// instruction per distinct (x, N) of a computation, named "x#N", listed
// just before its first user (just after x when x comes later in the
// text). Attributes memplan does not know are kept as text
// (HloAttributes::unknown) and counted in `diagnostics`, as are unknown
// opcodes and header attributes; they are never fatal.
//
// Errors (InvalidArgument) read "file:line:col: error: expected ...", with
// the line and a caret: malformed syntax, an operand or computation name
// that names nothing, a name defined twice in a computation, a cycle of
// operands or of calls, duplicate or out-of-range parameter numbers. On
// error `module` is unspecified.
absl::Status ParseHloModuleText(const SourceText& source, ir::Module* module,
                                ir::Diagnostics* diagnostics);

// True when `head` (the first bytes of a file) starts, after blank lines and
// comments, with "HloModule ".
bool LooksLikeHloModuleText(std::string_view head);

// Parses one instruction as XLA prints it, e.g. the "from instruction:" of
// a buffer-assignment dump:
//   %fusion.3 = bf16[8,128]{1,0} fusion(%a, %b), kind=kLoop, calls=%f,
//   metadata={op_name="jit(f)/dot" source_file="a.py" source_line=3}
// (on one line; an optional leading "ROOT" sets is_root; operands may carry
// their shapes, "f32[8]{0} %a", as older XLA prints them). `text` must be a
// view into `source.text()` and hold nothing after the instruction but
// spaces. Fills the name, opcode, shape, operands, calls, control
// predecessors, metadata and is_root of `instruction` (its id, computation
// and attributes index are left to the caller) and `attributes`.
//
// The names the line mentions become ids through the caller's resolvers:
// `resolve_instruction` for operands and control predecessors (an operand
// spelled "%x#N", a tuple's element N, is resolved as the name "x#N"),
// `resolve_computation` for calls=, to_apply=, condition=, body=,
// branch_computations= and the like (names without '%'). A resolver returns
// an invalid id for a name it does not know, which fails the parse with a
// located error naming it; it may instead add a placeholder to its module
// and return that. The instruction's shape is interned in `shapes` and its
// metadata stored in `metadata_pool`, which must outlive it (a module's
// pools, or ones the caller keeps for the line).
// Diagnostics and errors as ParseHloModuleText.
absl::Status ParseHloInstructionText(
    const SourceText& source, std::string_view text,
    absl::FunctionRef<ir::InstructionId(std::string_view name)> resolve_instruction,
    absl::FunctionRef<ir::ComputationId(std::string_view name)> resolve_computation,
    ir::ShapePool* shapes, ir::MetadataPool* metadata_pool, ir::Instruction* instruction, ir::HloAttributes* attributes,
    ir::Diagnostics* diagnostics);

// The text of a quoted HLO string (between its quotes) with XLA's C-style
// escapes undone: \" \\ \' \n \t \r \a \b \f \v \? \xHH and octal \NNN. An
// incomplete escape is kept as written.
std::string UnescapeHloString(std::string_view escaped);

// frontend_attributes={key="value",key2={...}}: the (key, value) pairs of
// the braced text (HloAttributes::frontend_attributes, braces included),
// values unescaped; a value printed in braces is kept with its braces, as
// XLA stores it. InvalidArgument when the text is not of that form.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseFrontendAttributes(
    std::string_view text);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_HLO_TEXT_PARSER_H_
