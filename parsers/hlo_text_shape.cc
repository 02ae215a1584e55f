// Shapes, integer lists and untyped values of the HLO text parser, and the
// located warnings it counts.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "ir/strings.h"
#include "parsers/hlo_text_internal.h"

namespace memplan::parsers::hlo_text {
namespace {

constexpr int kMaxTupleDepth = 64;
constexpr size_t kInlineDims = 16;

// Element types by spelling: a switch on the first byte, then a compare,
// instead of ir::DTypeFromName's scan of every type (one lookup per shape).
std::optional<ir::DType> LookupDType(std::string_view name) {
  using D = ir::DType;
  if (name.empty()) return std::nullopt;
  switch (name[0]) {
    case 'f':
      if (name == "f32") return D::kF32;
      if (name == "f16") return D::kF16;
      if (name == "f64") return D::kF64;
      break;
    case 'b':
      if (name == "bf16") return D::kBF16;
      break;
    case 's':
      if (name == "s32") return D::kS32;
      if (name == "s8") return D::kS8;
      if (name == "s64") return D::kS64;
      if (name == "s16") return D::kS16;
      break;
    case 'u':
      if (name == "u32") return D::kU32;
      if (name == "u8") return D::kU8;
      break;
    case 'p':
      if (name == "pred") return D::kPred;
      break;
    default:
      break;
  }
  std::optional<D> type = ir::DTypeFromName(name);
  if (type == D::kTuple) return std::nullopt;
  return type;
}

// "[8,<=16,?]" into `shape` (nullptr: only read); `rank` gets the count.
bool ParseDims(Scanner& s, ir::Shape* shape, size_t* rank) {
  if (!s.ConsumeChar('[')) return s.Fail("expected '[' starting the dimensions");
  int64_t inline_dims[kInlineDims];
  bool inline_dynamic[kInlineDims];
  std::vector<int64_t> dims;  // past kInlineDims dimensions
  ir::DynamicDims dynamic;
  size_t n = 0;
  bool any_dynamic = false;
  auto add = [&](int64_t dim, bool is_dynamic) {
    any_dynamic |= is_dynamic;
    if (n < kInlineDims) {
      inline_dims[n] = dim;
      inline_dynamic[n] = is_dynamic;
    } else {
      if (n == kInlineDims) {
        dims.assign(inline_dims, inline_dims + kInlineDims);
        dynamic.assign(inline_dynamic, inline_dynamic + kInlineDims);
      }
      dims.push_back(dim);
      dynamic.push_back(is_dynamic);
    }
    ++n;
  };
  if (!s.ConsumeChar(']')) {
    while (true) {
      const bool bounded = s.Consume("<=");
      int64_t dim = 0;
      if (s.ConsumeChar('?')) {
        add(-1, true);  // unbounded dynamic dimension
      } else if (s.ConsumeInt(&dim) && dim >= 0) {
        add(dim, bounded);
      } else {
        return s.Fail("expected a dimension size (N, <=N or ?)");
      }
      if (s.ConsumeChar(']')) break;
      if (!s.ConsumeChar(',')) return s.Fail("expected ',' or ']' in the dimensions");
    }
  }
  *rank = n;
  if (!shape) return true;
  if (n <= kInlineDims) {
    shape->dims.assign(inline_dims, inline_dims + n);
    if (any_dynamic) {
      shape->dynamic_dims.assign(inline_dynamic, inline_dynamic + n);
    } else {
      shape->dynamic_dims.clear();  // none dynamic: empty (ir/shape.h)
    }
  } else {
    shape->dims = std::move(dims);
    if (any_dynamic) {
      shape->dynamic_dims = std::move(dynamic);
    } else {
      shape->dynamic_dims.clear();
    }
  }
  return true;
}

// The value of "X(n)" in a layout's details ("E(4)", "S(1)"), if present.
bool ReadLayoutItem(std::string_view details, std::string_view tag, int64_t* value) {
  const size_t at = details.find(tag);
  if (at == std::string_view::npos) return false;
  Scanner item(details.data() + at + tag.size(), details.data() + details.size());
  return item.ConsumeInt(value);
}

// "{1,0}" or "{1,0:T(8,128)(2,1)S(1)}" into `shape` (nullptr: only read), for
// a shape of `rank` dimensions: minor_to_major is a permutation of 0..rank-1.
bool ParseLayout(Scanner& s, ir::Shape* shape, size_t rank) {
  s.ConsumeChar('{');
  int64_t inline_m2m[kInlineDims];
  std::vector<int64_t> m2m;  // past kInlineDims dimensions
  std::vector<bool> seen(rank, false);
  size_t n = 0;
  while (s.Peek() != '}' && s.Peek() != ':') {
    int64_t dim = 0;
    const char* dim_at = s.pos();
    if (!s.ConsumeInt(&dim)) return s.Fail("expected a layout such as {1,0}");
    if (dim < 0 || static_cast<size_t>(dim) >= rank || seen[static_cast<size_t>(dim)]) {
      s.set_pos(dim_at);
      return s.Fail(StrCat("expected a layout of the dimensions 0 to ",
                           static_cast<int64_t>(rank) - 1, ", each once"));
    }
    seen[static_cast<size_t>(dim)] = true;
    if (n < kInlineDims) {
      inline_m2m[n] = dim;
    } else {
      if (n == kInlineDims) m2m.assign(inline_m2m, inline_m2m + kInlineDims);
      m2m.push_back(dim);
    }
    ++n;
    if (!s.ConsumeChar(',')) break;
  }
  std::string_view details;
  if (s.ConsumeChar(':')) {
    // Details run to the '}' closing the layout; P(shape{...}) nests.
    const char* start = s.pos();
    int depth = 0;
    const char* p = start;
    for (; p < s.end(); ++p) {
      if (*p == '{') ++depth;
      if (*p == '}' && depth-- == 0) break;
    }
    details = std::string_view(start, static_cast<size_t>(p - start));
    s.set_pos(p);
  }
  if (!s.ConsumeChar('}')) return s.Fail("expected '}' closing the layout");
  if (!shape) return true;
  ir::Layout& layout = shape->layout.emplace();
  if (n <= kInlineDims) {
    layout.minor_to_major.assign(inline_m2m, inline_m2m + n);
  } else {
    layout.minor_to_major = std::move(m2m);
  }
  layout.details = details;
  int64_t value = 0;
  if (ReadLayoutItem(details, "E(", &value)) layout.element_size_bits = static_cast<int>(value);
  if (ReadLayoutItem(details, "S(", &value)) layout.memory_space = value;
  return true;
}

// A shape into `shape`, or with nullptr, read and checked but not kept.
bool ParseShapeAtDepth(Scanner& s, ir::Shape* shape, int depth) {
  if (depth > kMaxTupleDepth) return s.Fail("expected tuples nested at most 64 deep");
  if (s.ConsumeChar('(')) {
    if (shape) shape->dtype = ir::DType::kTuple;
    s.Skip();
    if (s.ConsumeChar(')')) return true;
    while (true) {
      s.Skip();
      ir::Shape* element = shape ? &shape->tuple_elements.emplace_back() : nullptr;
      if (!ParseShapeAtDepth(s, element, depth + 1)) return false;
      s.Skip();
      if (s.ConsumeChar(')')) return true;
      if (!s.ConsumeChar(',')) return s.Fail("expected ',' or ')' in a tuple shape");
    }
  }
  const char* type_at = s.pos();
  const std::string_view type = s.ConsumeName();
  const std::optional<ir::DType> dtype = LookupDType(type);
  if (!dtype) {
    s.set_pos(type_at);
    return s.Fail("expected a shape such as f32[8]{0} or (f32[], s32[])");
  }
  if (shape) shape->dtype = *dtype;
  size_t rank = 0;
  if (!ParseDims(s, shape, &rank)) return false;
  if (s.Peek() == '{') return ParseLayout(s, shape, rank);
  return true;
}

}  // namespace

bool ParseShapeAt(Scanner& s, ir::Shape* shape) { return ParseShapeAtDepth(s, shape, 0); }

bool SkipShapeAt(Scanner& s) { return ParseShapeAtDepth(s, nullptr, 0); }

namespace {

template <typename Ints>
bool ParseIntListInto(Scanner& s, Ints* out) {
  if (!s.Next('{')) return s.Fail("expected '{' starting a list of integers");
  s.Skip();
  if (s.ConsumeChar('}')) return true;
  while (true) {
    s.Skip();
    int64_t value = 0;
    if (!s.ConsumeInt(&value)) return s.Fail("expected an integer");
    out->push_back(value);
    s.Skip();
    if (s.ConsumeChar('}')) return true;
    if (!s.ConsumeChar(',')) return s.Fail("expected ',' or '}' in a list of integers");
  }
}

}  // namespace

bool ParseIntList(Scanner& s, std::vector<int64_t>* out) { return ParseIntListInto(s, out); }
bool ParseIntList(Scanner& s, ir::ThinVector<int64_t>* out) { return ParseIntListInto(s, out); }

bool ConsumeValueText(Scanner& s, std::string_view* value) {
  const char* start = s.pos();
  const char c = s.Peek();
  if (c == '"') {
    std::string_view inner;
    if (!s.ConsumeQuoted(&inner)) return s.Fail("expected '\"' closing the string");
  } else if (c == '{') {
    if (!s.SkipBalanced('{', '}')) return s.Fail("expected '}' closing this '{'");
  } else {
    // A bare value: up to a top-level ',', blank or line end, with (), []
    // and {} balanced and quoted strings passed.
    int64_t depth = 0;
    const char* p = start;
    for (; p < s.end(); ++p) {
      const char ch = *p;
      if (ch == '(' || ch == '[' || ch == '{') {
        ++depth;
      } else if (ch == ')' || ch == ']' || ch == '}') {
        if (depth == 0) break;
        --depth;
      } else if (ch == '"') {
        s.set_pos(p);
        std::string_view inner;
        if (!s.ConsumeQuoted(&inner)) return s.Fail("expected '\"' closing the string");
        p = s.pos() - 1;
      } else if (depth == 0 && (ch == ',' || ch == ' ' || ch == '\n' || ch == '\r' ||
                                ch == '\t')) {
        break;
      }
    }
    if (depth != 0) return s.Fail(start, "expected the brackets of this value to close");
    s.set_pos(p);
  }
  if (s.pos() == start) return s.Fail("expected a value");
  *value = std::string_view(start, static_cast<size_t>(s.pos() - start));
  return true;
}

void Warner::Warn(std::string_view kind, const char* at) {
  diagnostics_.Warn(kind, [&] {
    const char* begin = source_.text().data();
    if (!scanned_) scanned_ = begin;
    if (at < scanned_) return source_.LocationString(at);
    // Count the lines between the last located warning and this one.
    const char* p = scanned_;
    while (true) {
      const void* nl = std::memchr(p, '\n', static_cast<size_t>(at - p));
      if (!nl) break;
      p = static_cast<const char*>(nl) + 1;
      ++line_;
      line_start_ = p;
    }
    scanned_ = at;
    return StrCat(source_.name(), ":", line_, ":", at - line_start_ + 1);
  });
}

}  // namespace memplan::parsers::hlo_text
