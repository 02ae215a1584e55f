#include "parsers/shape_parser.h"

#include <cstdint>
#include <vector>

namespace memplan::parsers {
namespace {

constexpr int kMaxTupleDepth = 64;

bool IsDTypeChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// How many entries the list that `text` starts has: one more than its
// commas before the first `close` (or the end). Used to size a vector once
// instead of growing it (1, 2, 4: three allocations for a rank-3 shape).
size_t CountListEntries(std::string_view text, char close) {
  size_t entries = 1;
  for (const char ch : text) {
    if (ch == close) break;
    entries += ch == ',';
  }
  return entries;
}

bool ParseDims(Cursor& cursor, ir::Shape* shape) {
  if (!cursor.ConsumeChar('[')) return false;
  if (cursor.ConsumeChar(']')) return true;
  shape->dims.reserve(shape->dims.size() + CountListEntries(cursor.rest(), ']'));
  while (true) {
    const bool dynamic = cursor.Consume("<=");
    int64_t dim = 0;
    if (cursor.ConsumeChar('?')) {
      dim = -1;  // unbounded dynamic dimension
    } else if (!cursor.ConsumeInt(&dim) || dim < 0) {
      return false;
    }
    shape->dims.push_back(dim);
    // dynamic_dims stays empty until a dimension is dynamic (ir/shape.h).
    if (dynamic || dim < 0) {
      shape->dynamic_dims.resize(shape->dims.size() - 1, false);
      shape->dynamic_dims.push_back(true);
    } else if (!shape->dynamic_dims.empty()) {
      shape->dynamic_dims.push_back(false);
    }
    if (cursor.ConsumeChar(']')) return true;
    if (!cursor.ConsumeChar(',')) return false;
  }
}

// Reads the value of a "X(n)" layout item such as "E(4)" or "S(1)".
bool ReadLayoutItem(std::string_view details, std::string_view tag,
                    int64_t* value) {
  const size_t at = details.find(tag);
  if (at == std::string_view::npos) return false;
  Cursor c(details.substr(at + tag.size()));
  return c.ConsumeInt(value);
}

bool ParseLayout(Cursor& cursor, ir::Shape* shape) {
  if (!cursor.ConsumeChar('{')) return false;
  ir::Layout layout;
  const int64_t rank = static_cast<int64_t>(shape->dims.size());
  // Which dimensions the layout named so far: bits of one word up to rank
  // 64 (no allocation per shape), a vector beyond.
  uint64_t seen_bits = 0;
  std::vector<bool> seen_wide(rank > 64 ? shape->dims.size() : 0, false);
  const auto seen_before = [&](int64_t dim) {
    if (rank > 64) return static_cast<bool>(seen_wide[static_cast<size_t>(dim)]);
    return ((seen_bits >> dim) & 1) != 0;
  };
  const auto mark_seen = [&](int64_t dim) {
    if (rank > 64) {
      seen_wide[static_cast<size_t>(dim)] = true;
    } else {
      seen_bits |= uint64_t{1} << dim;
    }
  };
  if (cursor.Peek() != '}' && cursor.Peek() != ':') layout.minor_to_major.reserve(shape->dims.size());
  while (cursor.Peek() != '}' && cursor.Peek() != ':') {
    int64_t dim = 0;
    if (!cursor.ConsumeInt(&dim)) return false;
    // minor_to_major is a permutation of the dimensions 0..rank-1.
    if (dim < 0 || dim >= rank || seen_before(dim)) return false;
    mark_seen(dim);
    layout.minor_to_major.push_back(dim);
    if (!cursor.ConsumeChar(',')) break;
  }
  if (cursor.ConsumeChar(':')) {
    const std::string_view details = cursor.ConsumeUntil('}');
    layout.details = details;
    int64_t value = 0;
    if (ReadLayoutItem(details, "E(", &value)) {
      layout.element_size_bits = static_cast<int>(value);
    }
    if (ReadLayoutItem(details, "S(", &value)) layout.memory_space = value;
  }
  if (!cursor.ConsumeChar('}')) return false;
  shape->layout = std::move(layout);
  return true;
}

// XLA marks every fifth tuple element: "(a, b, c, d, e, /*index=5*/f)".
void SkipIndexComment(Cursor& cursor) {
  if (!cursor.StartsWith("/*")) return;
  const size_t end = cursor.rest().find("*/");
  if (end != std::string_view::npos) cursor.Advance(end + 2);
}

bool ParseShapeAtDepth(Cursor& cursor, ir::Shape* shape, int depth) {
  if (depth > kMaxTupleDepth) return false;
  SkipIndexComment(cursor);
  if (cursor.ConsumeChar('(')) {
    shape->dtype = ir::DType::kTuple;
    cursor.SkipSpaces();
    if (cursor.ConsumeChar(')')) return true;
    while (true) {
      ir::Shape element;
      if (!ParseShapeAtDepth(cursor, &element, depth + 1)) return false;
      shape->tuple_elements.push_back(std::move(element));
      cursor.SkipSpaces();
      if (cursor.ConsumeChar(')')) return true;
      if (!cursor.ConsumeChar(',')) return false;
      cursor.SkipSpaces();
    }
  }
  const std::string_view rest = cursor.rest();
  size_t n = 0;
  while (n < rest.size() && IsDTypeChar(rest[n])) ++n;
  const std::optional<ir::DType> dtype = ir::DTypeFromName(rest.substr(0, n));
  if (!dtype) return false;
  cursor.Advance(n);
  shape->dtype = *dtype;
  if (!ParseDims(cursor, shape)) return false;
  if (cursor.Peek() == '{') return ParseLayout(cursor, shape);
  return true;
}

}  // namespace

bool ParseShape(Cursor& cursor, ir::Shape* shape) {
  return ParseShapeAtDepth(cursor, shape, 0);
}

bool ParseShapeIndex(Cursor& cursor, ir::ShapeIndex* index) {
  if (!cursor.ConsumeChar('{')) return false;
  index->clear();
  if (cursor.ConsumeChar('}')) return true;
  while (true) {
    int64_t i = 0;
    if (!cursor.ConsumeInt(&i)) return false;
    index->push_back(i);
    if (cursor.ConsumeChar('}')) return true;
    if (!cursor.ConsumeChar(',')) return false;
  }
}

}  // namespace memplan::parsers
