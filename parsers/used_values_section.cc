// The "Used values:" section: per value its positions, uses and the HLO text
// of the instruction that defines it.
//
//   <575 wrapped_concatenate @0>
//    positions:
//     wrapped_concatenate
//    uses:
//     gemm_fusion_dot.35.0, operand 0
//    from instruction: %wrapped_concatenate = bf16[9216,2048]{1,0} fusion(...)
#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "parsers/buffer_assignment_state.h"
#include "parsers/hlo_instruction_text.h"
#include "parsers/shape_parser.h"

namespace memplan::parsers::internal {
namespace {

absl::Status StartUsedValue(ParseState& state, Cursor c) {
  ValueRef ref;
  RETURN_IF_ERROR(ParseValueRef(state, c, &ref));
  const size_t index = state.ValueIndex(ref.id);
  ir::Value& value = state.program.values[index];
  if (!value.instruction.valid()) {  // not (yet) seen in an allocation
    value.instruction = state.names.Resolve(ref.instruction);
    value.index = std::move(ref.index);
    value.is_phi = ref.is_phi;
    value.color = ref.color;
  }
  state.current_used_value = static_cast<int64_t>(index);
  state.used_value_part = UsedValuePart::kNone;
  ++state.read.used_value_records;
  state.read.last_record_whole = false;
  return absl::OkStatus();
}

// "  tuple.810.0 {}" or "  x.65"
absl::Status ParsePosition(ParseState& state, Cursor c, ir::Value& value) {
  ir::ValuePosition position;
  const std::string_view name = c.ConsumeUntil(' ');
  if (name.empty()) return state.Error(c.position(), "expected the position's instruction");
  position.instruction = state.names.Resolve(name);
  if (c.ConsumeChar(' ') && !ParseShapeIndex(c, &position.index)) {
    return state.Error(c.position(), "expected a shape index after the position's instruction");
  }
  value.positions.push_back(std::move(position));
  return absl::OkStatus();
}

// "  add.127, operand 0" or "  tuple.5, operand 1 {0}"
absl::Status ParseUse(ParseState& state, Cursor c, ir::Value& value) {
  ir::ValueUse use;
  const std::string_view name = c.ConsumeUntil(',');
  if (name.empty()) return state.Error(c.position(), "expected the using instruction");
  use.instruction = state.names.Resolve(name);
  if (!c.Consume(", operand ")) return state.Error(c.position(), "expected ', operand N'");
  if (!c.ConsumeInt(&use.operand_number)) return state.Error(c.position(), "expected an operand number");
  if (c.ConsumeChar(' ') && !ParseShapeIndex(c, &use.operand_index)) {
    return state.Error(c.position(), "expected the operand's shape index");
  }
  value.uses.push_back(std::move(use));
  return absl::OkStatus();
}

// " from instruction: %x = ..." (also "from instruction:%x" and without ':').
void ParseDefiningInstruction(ParseState& state, Cursor c, const ir::Value& value) {
  c.SkipSpaces();
  c.Consume("from instruction");
  c.SkipSpaces();
  c.ConsumeChar(':');
  c.SkipSpaces();
  // A tuple's values each repeat their instruction's text: it is parsed
  // only while it can still add something.
  if (!value.instruction.valid() || state.names.Described(value.instruction)) return;
  InstructionText parsed;
  if (!ParseInstructionText(c.rest(), &parsed)) return;
  state.names.Describe(value.instruction, {parsed.opcode, parsed.metadata, parsed.shape});
}

// The number of list lines ("  name...", two spaces and more) at the start
// of `text`, up to the line that ends the list: a position or use list's
// length, so that the value's vector is reserved exactly (vectors grown by
// doubling keep up to twice their bytes, at ten million values).
size_t CountListLines(std::string_view text) {
  size_t count = 0;
  while (text.size() > 2 && text[0] == ' ' && text[1] == ' ' && text[2] != ' ' &&
         !text.substr(2).starts_with("(none)")) {
    ++count;
    const size_t newline = text.find('\n');
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  return count;
}

}  // namespace

absl::Status ParseUsedValueLine(ParseState& state, std::string_view line) {
  Cursor c(line);
  if (c.Peek() == '<') return StartUsedValue(state, c);
  if (state.current_used_value < 0) {
    state.Warn("unrecognized line in 'Used values' (skipped)", line.data());
    return absl::OkStatus();
  }
  ir::Value& value = state.program.values[state.current_used_value];
  if (c.StartsWith(" positions:")) {
    state.used_value_part = UsedValuePart::kPositions;
    value.positions.reserve(value.positions.size() + CountListLines(state.rest));
  } else if (c.StartsWith(" uses:")) {
    state.used_value_part = UsedValuePart::kUses;
    value.uses.reserve(value.uses.size() + CountListLines(state.rest));
  } else if (c.StartsWith(" from instruction")) {
    state.used_value_part = UsedValuePart::kNone;
    state.read.last_record_whole = true;
    ParseDefiningInstruction(state, c, value);
  } else if (c.StartsWith("  (none)")) {
    return absl::OkStatus();  // newer XLA marks an empty list so
  } else if (c.Consume("  ") && state.used_value_part == UsedValuePart::kPositions) {
    return ParsePosition(state, c, value);
  } else if (state.used_value_part == UsedValuePart::kUses) {
    return ParseUse(state, c, value);
  } else {
    state.Warn("unrecognized line in 'Used values' (skipped)", line.data());
  }
  return absl::OkStatus();
}

}  // namespace memplan::parsers::internal
