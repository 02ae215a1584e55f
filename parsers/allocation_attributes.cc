#include "parsers/allocation_attributes.h"

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/shape_parser.h"

namespace memplan::parsers {
namespace {

// Checks that `text` (a view into `source`) is one whole shape.
absl::Status CheckShapeText(const SourceText& source, std::string_view text) {
  Cursor shape_cursor(text);
  ir::Shape shape;
  if (!ParseShape(shape_cursor, &shape) || !shape_cursor.AtEnd()) {
    return source.ErrorAt(shape_cursor.position(),
                          "expected a shape such as f32[8,128]{1,0} (dimensions below 2^63, "
                          "a layout that orders the dimensions)");
  }
  return absl::OkStatus();
}

// "parameter 5, shape |bf16[151936,1024]| at ShapeIndex {}"
absl::Status ParseParameterAttribute(const SourceText& source, Cursor& c,
                                     ir::Allocation& allocation) {
  int64_t number = 0;
  if (!c.ConsumeInt(&number)) return source.ErrorAt(c.position(), "expected a parameter number");
  allocation.parameter_number = number;
  if (!c.Consume(", shape ")) return source.ErrorAt(c.position(), "expected ', shape |'");
  if (c.ConsumeChar('|')) {
    allocation.parameter_shape_text = c.ConsumeUntil('|');
    if (!c.ConsumeChar('|')) {
      return source.ErrorAt(c.position(), "expected '|' closing the parameter shape");
    }
  } else {
    // Older XLA prints the shape bare: "shape f32[256,32] at ShapeIndex {}".
    const size_t at = c.rest().find(" at ShapeIndex ");
    if (at == std::string_view::npos || at == 0) {
      return source.ErrorAt(c.position(), "expected the parameter shape, as '|f32[8]|' or 'f32[8]'");
    }
    allocation.parameter_shape_text = c.rest().substr(0, at);
    c.Advance(at);
  }
  RETURN_IF_ERROR(CheckShapeText(source, allocation.parameter_shape_text));
  if (!c.Consume(" at ShapeIndex ")) {
    return source.ErrorAt(c.position(), "expected ' at ShapeIndex '");
  }
  if (!ParseShapeIndex(c, &allocation.parameter_index)) {
    return source.ErrorAt(c.position(), "expected a shape index such as {0}");
  }
  return absl::OkStatus();
}

// True when the cursor is at the end of an attribute: ", " or end of header.
bool AtAttributeEnd(const Cursor& c) { return c.AtEnd() || c.StartsWith(", "); }

absl::Status ParseAttribute(const SourceText& source, Cursor& c, ir::Allocation& parsed,
                            WarnAt warn) {
  const char* start = c.position();
  // Parsed into a copy, kept only when the attribute ends where it should: a
  // known name followed by more text ("constant-folded") is an unknown one.
  ir::Allocation allocation = parsed;
  int64_t number = 0;
  if (c.Consume("color ")) {
    if (!c.ConsumeInt(&number)) return source.ErrorAt(c.position(), "expected a color number");
    allocation.color = number;
  } else if (c.Consume("page ")) {
    if (!c.ConsumeInt(&number)) return source.ErrorAt(c.position(), "expected a page number");
    allocation.page = number;
  } else if (c.Consume("parameter ")) {
    RETURN_IF_ERROR(ParseParameterAttribute(source, c, allocation));
  } else if (c.Consume("output shape is |")) {
    allocation.output_shape_text = c.ConsumeUntil('|');
    if (!c.ConsumeChar('|')) {
      return source.ErrorAt(c.position(), "expected '|' closing the output shape");
    }
    RETURN_IF_ERROR(CheckShapeText(source, *allocation.output_shape_text));
  } else if (c.Consume("output shape is ")) {
    // Older XLA prints the shape bare: "output shape is (f32[], s32[2])".
    const char* shape_start = c.position();
    ir::Shape shape;
    if (!ParseShape(c, &shape)) {
      return source.ErrorAt(c.position(), "expected the output shape, as '|f32[8]|' or 'f32[8]'");
    }
    allocation.output_shape_text =
        std::string_view(shape_start, static_cast<size_t>(c.position() - shape_start));
    RETURN_IF_ERROR(CheckShapeText(source, *allocation.output_shape_text));
  } else if (c.Consume("constant")) {
    allocation.is_constant = true;
  } else if (c.Consume("thread-local")) {
    allocation.is_thread_local = true;
  } else if (c.Consume("maybe-live-out")) {
    allocation.maybe_live_out = true;
  } else if (c.Consume("preallocated-temp")) {
    allocation.is_preallocated_temp = true;
  }
  if (c.position() != start && AtAttributeEnd(c)) {
    parsed = std::move(allocation);
    return absl::OkStatus();
  }
  // Unknown (or known but followed by more text): skip to the next ", ".
  Cursor skip(std::string_view(start, c.rest().data() + c.rest().size() - start));
  const size_t comma = skip.rest().find(", ");
  const std::string_view unknown = skip.rest().substr(0, comma);
  warn(StrCat("unknown allocation attribute '", unknown, "'"), start);
  c = Cursor(skip.rest().substr(unknown.size()));
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseAllocationAttributes(Cursor attributes, const SourceText& source,
                                       ir::Allocation& allocation, WarnAt warn) {
  while (!attributes.AtEnd()) {
    if (!attributes.Consume(", ")) {
      return source.ErrorAt(attributes.position(), "expected ', ' before an attribute");
    }
    RETURN_IF_ERROR(ParseAttribute(source, attributes, allocation, warn));
  }
  return absl::OkStatus();
}

}  // namespace memplan::parsers
