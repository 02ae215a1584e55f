#include "parsers/hlo_instruction_text.h"

#include "parsers/cursor.h"
#include "parsers/shape_parser.h"

namespace memplan::parsers {
namespace {

// Skips a shape: a balanced parenthesised tuple or a token up to a space.
void SkipShape(Cursor& c) {
  if (c.Peek() != '(') {
    c.ConsumeUntil(' ');
    return;
  }
  int depth = 0;
  const std::string_view rest = c.rest();
  size_t n = 0;
  for (; n < rest.size(); ++n) {
    if (rest[n] == '(') ++depth;
    if (rest[n] == ')' && --depth == 0) {
      ++n;
      break;
    }
  }
  c.Advance(n);
}

// A quoted string with backslash escapes; returns the text between quotes.
bool ConsumeQuoted(Cursor& c, std::string_view* out) {
  if (!c.ConsumeChar('"')) return false;
  const std::string_view rest = c.rest();
  for (size_t n = 0; n < rest.size(); ++n) {
    if (rest[n] == '\\') {
      ++n;
      continue;
    }
    if (rest[n] == '"') {
      *out = rest.substr(0, n);
      c.Advance(n + 1);
      return true;
    }
  }
  return false;
}

}  // namespace

bool ParseOpMetadata(std::string_view text, ir::OpMetadata* metadata) {
  const size_t at = text.find("metadata={");
  if (at == std::string_view::npos) return false;
  Cursor c(text.substr(at + 10));
  while (true) {
    c.SkipSpaces();
    if (c.AtEnd() || c.ConsumeChar('}')) return true;
    const std::string_view key = c.ConsumeUntilAny("= }");
    if (!c.ConsumeChar('=')) return !key.empty();
    std::string_view value;
    if (c.Peek() == '"') {
      if (!ConsumeQuoted(c, &value)) return true;
    } else {
      value = c.ConsumeUntilAny(" }");
    }
    if (key == "op_type") {
      metadata->op_type = value;
    } else if (key == "op_name") {
      metadata->op_name = value;
    } else if (key == "source_file") {
      metadata->source_file = value;
    } else if (key == "source_line" || key == "stack_frame_id") {
      Cursor number(value);
      int64_t n = 0;
      if (!number.ConsumeInt(&n)) continue;
      (key == "source_line" ? metadata->source_line : metadata->stack_frame_id) = n;
    }
  }
}

bool ParseInstructionText(std::string_view text, InstructionText* out) {
  Cursor c(text);
  c.SkipSpaces();
  c.Consume("ROOT ");
  c.ConsumeChar('%');
  out->name = c.ConsumeUntil(' ');
  if (out->name.empty() || !c.Consume(" = ")) return false;
  Cursor shape_cursor = c;
  ir::Shape shape;
  if (ParseShape(shape_cursor, &shape) && shape_cursor.Peek() == ' ') {
    out->shape = std::move(shape);
    c = shape_cursor;
  } else {
    SkipShape(c);
  }
  c.SkipSpaces();
  out->opcode = c.ConsumeUntilAny("( ");
  if (out->opcode.empty() || c.Peek() != '(') return false;
  ParseOpMetadata(c.rest(), &out->metadata);
  return true;
}

}  // namespace memplan::parsers
