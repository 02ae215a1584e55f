// Parses XLA's text form of a shape: "bf16[32,6144]{1,0}",
// "(f32[], s8[4194304]{0})", "f32[<=16,8]", "bf16[8,128]{1,0:T(8,128)(2,1)}".
#ifndef MEMPLAN_PARSERS_SHAPE_PARSER_H_
#define MEMPLAN_PARSERS_SHAPE_PARSER_H_

#include <string_view>

#include "ir/shape.h"
#include "parsers/cursor.h"

namespace memplan::parsers {

// Reads one shape at the cursor into `shape`. On failure returns false with
// the cursor left where the text stopped matching (for the error column);
// `shape` is then unspecified.
bool ParseShape(Cursor& cursor, ir::Shape* shape);

// Reads a ShapeIndex "{}", "{0}", "{1,2}" at the cursor.
bool ParseShapeIndex(Cursor& cursor, ir::ShapeIndex* index);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_SHAPE_PARSER_H_
