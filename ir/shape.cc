#include "ir/shape.h"

#include "ir/strings.h"
#include "absl/strings/str_join.h"

namespace memplan::ir {

std::string ShapeIndexToString(const ShapeIndex& index) {
  return StrCat("{", absl::StrJoin(index, ","), "}");
}

int64_t Shape::ElementCount() const {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

int64_t ByteSizeOf(const Shape& shape, int pointer_size) {
  if (shape.IsTuple()) {
    return pointer_size * static_cast<int64_t>(shape.tuple_elements.size());
  }
  if (shape.dtype == DType::kOpaque) return pointer_size;
  if (!shape.IsArray()) return 0;
  const int64_t elements = shape.ElementCount();
  if (shape.layout && shape.layout->element_size_bits > 0) {
    return (elements * shape.layout->element_size_bits + 7) / 8;
  }
  return elements * DTypeStorageBytes(shape.dtype);
}

int64_t TotalByteSizeOf(const Shape& shape, int pointer_size) {
  int64_t total = ByteSizeOf(shape, pointer_size);
  for (const Shape& element : shape.tuple_elements) {
    total += TotalByteSizeOf(element, pointer_size);
  }
  return total;
}

std::string ShapeToString(const Shape& shape, bool with_layout) {
  if (shape.IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
      if (i > 0) out += ", ";
      out += ShapeToString(shape.tuple_elements[i], with_layout);
    }
    return out + ")";
  }
  std::string out = StrCat(DTypeName(shape.dtype), "[");
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    if (i > 0) out += ",";
    if (shape.dims[i] < 0) {  // unbounded dynamic (the parsers' -1)
      out += "?";
      continue;
    }
    if (i < shape.dynamic_dims.size() && shape.dynamic_dims[i]) out += "<=";
    StrAppend(&out, shape.dims[i]);
  }
  out += "]";
  if (with_layout && shape.layout) {
    StrAppend(&out, "{", absl::StrJoin(shape.layout->minor_to_major, ","));
    if (!shape.layout->details.empty()) {
      StrAppend(&out, ":", shape.layout->details);
    }
    out += "}";
  }
  return out;
}

}  // namespace memplan::ir
