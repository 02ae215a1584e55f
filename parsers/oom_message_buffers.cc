// The buffer list of an OOM message (oom_message_state.h).
#include <optional>
#include <string>
#include <string_view>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/cursor.h"
#include "parsers/human_bytes.h"
#include "parsers/oom_message_state.h"
#include "parsers/shape_parser.h"

namespace memplan::parsers::internal {
namespace {

// `op_type="..." op_name="..." source_file="..." source_line=N` and any other
// key=value the metadata has (deduplicated_name="...", profile_type={...}).
absl::Status ParseOperator(OomState& state, Cursor c, ir::OpMetadata* metadata) {
  while (true) {
    c.SkipSpaces();
    if (c.AtEnd()) return absl::OkStatus();
    const std::string_view key = c.ConsumeUntilAny("= ");
    if (key.empty() || !c.ConsumeChar('=')) {
      return state.Error(c.position(), "expected 'key=value' in the operator's metadata");
    }
    std::string_view value;
    const char* value_at = c.position();
    if (c.ConsumeChar('"')) {
      const std::string_view rest = c.rest();
      size_t n = 0;
      while (n < rest.size() && rest[n] != '"') n += rest[n] == '\\' ? 2 : 1;
      if (n >= rest.size()) {
        return state.Error(rest.data() + rest.size(),
                           StrCat("expected '\"' closing the value of ", key));
      }
      value = rest.substr(0, n);
      c.Advance(n + 1);
    } else if (c.Peek() == '{') {
      const std::string_view rest = c.rest();
      const size_t close = rest.find('}');
      if (close == std::string_view::npos) {
        return state.Error(rest.data() + rest.size(), StrCat("expected '}' closing ", key));
      }
      value = rest.substr(0, close + 1);
      c.Advance(close + 1);
    } else {
      value = c.ConsumeUntil(' ');
    }
    if (key == "op_type") {
      metadata->op_type = value;
    } else if (key == "op_name") {
      metadata->op_name = value;
    } else if (key == "source_file") {
      metadata->source_file = value;
    } else if (key == "source_line") {
      Cursor number(value);
      int64_t line = 0;
      if (!number.ConsumeInt(&line) || !number.AtEnd()) {
        return state.Error(value_at, "expected a line number after 'source_line='");
      }
      metadata->source_line = line;
    }
  }
}

}  // namespace

absl::Status CloseBuffer(OomState& state, const char* at) {
  if (state.current < 0) return absl::OkStatus();
  ir::Value& value = state.program.values[state.current];
  if (!state.size_seen) {
    return state.Error(at, StrCat("expected 'Size:' in buffer ", value.id.value()));
  }
  // Exact when printed in bytes, or when the shape gives the printed size.
  if (!state.printed_size.exact) {
    std::optional<int64_t> bytes;
    if (!value.shape_text.empty() && value.shape.dtype != ir::DType::kInvalid) {
      bytes = CheckedByteSizeOf(value.shape);
    }
    if (bytes && AgreesWithPrinted(*bytes, state.printed_size)) {
      value.size = *bytes;
    } else {
      ++state.rounded_buffers;
    }
  }
  state.current = -1;
  return absl::OkStatus();
}

namespace {

// "Buffer 3:" (GPU) or "3. Size: 1.00G" (TPU; the size follows on the line).
absl::Status OpenBuffer(OomState& state, Cursor& c, std::string_view name) {
  if (state.current >= 0) {
    state.Warn("buffer not closed by a '====' line", c.position());
    RETURN_IF_ERROR(CloseBuffer(state, c.position()));
  }
  int64_t number = 0;
  const char* number_at = c.position();
  if (!c.ConsumeInt(&number) || number < 0) return state.Error(c.position(), "expected a buffer number");
  if (!state.buffer_numbers.insert(number).second) {
    return state.Error(number_at, StrCat("expected each buffer once; buffer ", number,
                                         " is listed twice"));
  }
  ir::Value value;
  value.id = ir::ValueId(number);
  state.current = static_cast<int64_t>(state.program.values.size());
  state.program.values.push_back(std::move(value));
  state.instructions.push_back({name, {}});
  state.size_seen = false;
  return absl::OkStatus();
}

absl::Status ReadSize(OomState& state, Cursor c) {
  if (!ParseHumanBytes(c, &state.printed_size)) {
    return state.Error(c.position(), "expected the buffer's size such as 1.00MiB or 512B");
  }
  if (!TrimRight(c.rest()).empty()) return state.Error(c.position(), "expected the end of the line");
  if (!AddBounded(&state.buffer_bytes, state.printed_size.bytes)) {
    return state.Error(state.printed_size.text.data(), "expected buffer sizes below 1 EiB in all");
  }
  state.program.values[state.current].size = state.printed_size.bytes;
  state.size_seen = true;
  return absl::OkStatus();
}

void ReadShape(OomState& state, Cursor c) {
  ir::Value& value = state.program.values[state.current];
  value.shape_text = TrimRight(c.rest());
  Cursor shape_cursor(value.shape_text);
  if (!ParseShape(shape_cursor, &value.shape) || !shape_cursor.AtEnd()) {
    value.shape = ir::Shape();
    state.Warn("shape not understood (kept as text)", shape_cursor.position());
  }
}

// The TPU's "XLA label:" is HLO text, possibly cut short with "...":
// "%fusion.6043 = f32[8,128]{1,0:T(8,128)} fusion(...)" or, newer,
// "fusion.1265.remat3 = fusion(custom-call.224, ...), kind=kOutput".
void ReadTpuLabel(std::string_view label, OomState::BufferInstruction& instruction) {
  Cursor c(label);
  c.ConsumeChar('%');
  const std::string_view name = c.ConsumeUntil(' ');
  if (name.empty() || !c.Consume(" = ")) return;
  instruction.name = name;
  const std::string_view rest = c.rest();
  const std::string_view before_paren = rest.substr(0, rest.find('('));
  if (!before_paren.empty() && before_paren.size() < rest.size() &&
      before_paren.find_first_of("[ ") == std::string_view::npos) {
    instruction.facts.opcode = before_paren;  // no shape printed
    return;
  }
  ir::Shape shape;
  if (!ParseShape(c, &shape)) return;
  c.SkipSpaces();
  const std::string_view opcode = c.ConsumeUntilAny("( ");
  if (!opcode.empty() && c.Peek() == '(') instruction.facts.opcode = opcode;
  instruction.facts.shape = std::move(shape);
}

}  // namespace

// One line inside "Peak buffers:" / "Largest program allocations": a field
// of the open buffer, the start of the next, or (when no buffer is open and
// the line is none of these) the end of the message.
absl::Status ParseBufferLine(OomState& state, Cursor c) {
  const std::string_view content = c.rest();
  if (state.style == Style::kGpu && c.StartsWith("Buffer ")) {
    const char* name_start = c.position();
    c.Consume("Buffer ");
    RETURN_IF_ERROR(OpenBuffer(state, c, {}));
    state.instructions[state.current].name =
        std::string_view(name_start, c.position() - name_start);
    if (!c.ConsumeChar(':') || !TrimRight(c.rest()).empty()) {
      return state.Error(c.position(), "expected ':' ending 'Buffer N:'");
    }
    return absl::OkStatus();
  }
  if (state.style == Style::kTpu && IsDigit(c.Peek())) {
    Cursor number = c;
    int64_t ignored = 0;
    if (number.ConsumeInt(&ignored) && number.Consume(". Size: ")) {
      RETURN_IF_ERROR(OpenBuffer(state, c, {}));
      c.Consume(". Size: ");
      return ReadSize(state, c);
    }
  }
  if (AllOf(TrimRight(content), '=')) return CloseBuffer(state, c.position());
  if (state.current < 0) {  // not a buffer's line: the message is over
    state.part = Part::kAfter;
    return absl::OkStatus();
  }
  OomState::BufferInstruction& instruction = state.instructions[state.current];
  if (c.Consume("Size: ")) {
    if (state.size_seen) return state.Error(c.position(), "expected one 'Size:' per buffer");
    return ReadSize(state, c);
  }
  if (c.Consume("Operator: ")) return ParseOperator(state, c, &instruction.facts.metadata);
  if (c.Consume("Entry Parameter Subshape: ")) {
    instruction.facts.opcode = "parameter";
    ReadShape(state, c);
    return absl::OkStatus();
  }
  if (c.Consume("Shape: ")) {
    ReadShape(state, c);
    return absl::OkStatus();
  }
  if (c.Consume("XLA Label: ")) {
    instruction.facts.opcode = TrimRight(c.rest());
    return absl::OkStatus();
  }
  if (c.Consume("XLA label: ")) {
    ReadTpuLabel(TrimRight(c.rest()), instruction);
    return absl::OkStatus();
  }
  if (c.Consume("Allocation type: ")) {
    ++state.allocation_types[TrimRight(c.rest())];
    return absl::OkStatus();
  }
  if (c.StartsWith("Unpadded size: ") || c.StartsWith("Extra memory due to padding: ")) {
    return absl::OkStatus();
  }
  state.Warn("unknown buffer field (skipped)", c.position());
  return absl::OkStatus();
}

}  // namespace memplan::parsers::internal
