// XLA shapes: an element type with dimensions and an optional layout, or a
// tuple of shapes; and the byte sizes XLA gives them.
#ifndef MEMPLAN_IR_SHAPE_H_
#define MEMPLAN_IR_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "ir/dtype.h"

namespace memplan::ir {

// A path into a tuple shape: {} is the whole value, {1} its second element.
using ShapeIndex = absl::InlinedVector<int64_t, 2>;

// Per dimension of a shape, whether it is dynamic (Shape::dynamic_dims).
using DynamicDims = absl::InlinedVector<bool, 8>;

// "{}", "{0}", "{1,2}" as XLA prints ShapeIndex::ToString.
std::string ShapeIndexToString(const ShapeIndex& index);

// The layout XLA prints in braces after the dimensions: "{1,0}",
// "{1,0:T(8,128)(2,1)E(4)S(1)}". Only what affects sizes is kept; tiling and
// memory space are kept as they read.
struct Layout {
  std::vector<int64_t> minor_to_major;
  // Packed element width from "E(n)"; 0 when absent (unpacked).
  int element_size_bits = 0;
  // Memory space from "S(n)"; 0 is device memory.
  int64_t memory_space = 0;
  // Everything after ':' as printed (tiles, element size, memory space): a
  // view into the text the shape was parsed from (empty for a shape read
  // from a proto).
  std::string_view details;
};

struct Shape {
  DType dtype = DType::kInvalid;
  std::vector<int64_t> dims;
  // Per dimension: true when printed with "<=" (a dynamic bound) or "?"
  // (unbounded). Empty when no dimension is dynamic (parsers leave it so:
  // a vector of falses per shape is memory at ten million values); read it
  // as false past its end. Inline up to 8 dimensions (24 bytes, against
  // std::vector<bool>'s 40, in every value's and instruction's shape).
  DynamicDims dynamic_dims;
  std::optional<Layout> layout;
  std::vector<Shape> tuple_elements;  // only when dtype == kTuple

  bool IsTuple() const { return dtype == DType::kTuple; }
  bool IsArray() const { return IsArrayDType(dtype); }
  int64_t ElementCount() const;
};

// Bytes XLA's ShapeUtil::ByteSizeOf gives the shape's top-level buffer: for an
// array, elements times element bytes (packed when the layout says E(n)); for
// a tuple, one pointer per element (its index table); 0 for a token.
int64_t ByteSizeOf(const Shape& shape, int pointer_size = 8);

// Bytes of every array leaf of the shape plus every tuple table in it.
int64_t TotalByteSizeOf(const Shape& shape, int pointer_size = 8);

// "bf16[32,8,128]{2,1,0}", "(f32[], s32[4])", as XLA prints shapes.
std::string ShapeToString(const Shape& shape, bool with_layout = true);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_SHAPE_H_
