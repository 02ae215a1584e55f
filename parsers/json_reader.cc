#include "parsers/json_reader.h"

#include <algorithm>
#include <cstring>

#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::parsers {
namespace {

void AppendUtf8(uint32_t code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

bool Hex4(const char* p, const char* end, uint32_t* out) {
  if (end - p < 4) return false;
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') {
      v |= static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      v |= static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      v |= static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return false;
    }
  }
  *out = v;
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

JsonReader::JsonReader(const SourceText& source)
    : source_(source), at_(source.text().data()), end_(source.text().data() + source.text().size()) {}

absl::Status JsonReader::ErrorAt(const char* at, std::string_view expected) const {
  const std::string_view text = source_.text();
  const char* begin = text.data();
  at = std::clamp(at, begin, begin + text.size());
  const size_t offset = static_cast<size_t>(at - begin);
  size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  line_start = (line_start == std::string_view::npos || offset == 0) ? 0 : line_start + 1;
  if (offset > 0 && text[offset - 1] == '\n') line_start = offset;
  size_t line_end = text.find('\n', offset);
  if (line_end == std::string_view::npos) line_end = text.size();
  // A window of the line: 40 characters either side of `at`.
  const size_t from = std::max(line_start, offset >= 40 ? offset - 40 : 0);
  const size_t to = std::min(line_end, offset + 40);
  std::string excerpt(text.substr(from, to - from));
  for (char& c : excerpt) {
    if (c == '\t' || c == '\r') c = ' ';
  }
  const std::string prefix = from > line_start ? "..." : "";
  const std::string suffix = to < line_end ? "..." : "";
  return absl::InvalidArgumentError(StrCat(source_.LocationString(offset), ": error: ", expected, "\n",
                                           prefix, excerpt, suffix, "\n",
                                           std::string(prefix.size() + (offset - from), ' '), "^"));
}

void JsonReader::SkipWhitespace() {
  while (at_ < end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')) ++at_;
}

const char* JsonReader::position() {
  SkipWhitespace();
  return at_;
}

bool JsonReader::AtEnd() {
  SkipWhitespace();
  return at_ == end_;
}

absl::Status JsonReader::Expect(char c, std::string_view what) {
  SkipWhitespace();
  if (at_ == end_ || *at_ != c) return ErrorAt(at_, StrCat("expected ", what));
  ++at_;
  return absl::OkStatus();
}

absl::StatusOr<JsonReader::Kind> JsonReader::Peek() {
  SkipWhitespace();
  if (at_ == end_) return Kind::kEnd;
  switch (*at_) {
    case '{':
      return Kind::kObject;
    case '[':
      return Kind::kArray;
    case '"':
      return Kind::kString;
    case 't':
      return Kind::kTrue;
    case 'f':
      return Kind::kFalse;
    case 'n':
      return Kind::kNull;
    default:
      if (*at_ == '-' || IsDigit(*at_)) return Kind::kNumber;
      return ErrorAt(at_, "expected a JSON value");
  }
}

absl::Status JsonReader::BeginObject() {
  RETURN_IF_ERROR(Expect('{', "'{'"));
  if (started_.size() >= kMaxDepth) {
    return ErrorAt(at_ - 1, StrCat("expected JSON nested at most ", kMaxDepth, " deep"));
  }
  started_.push_back(false);
  return absl::OkStatus();
}

absl::Status JsonReader::BeginArray() {
  RETURN_IF_ERROR(Expect('[', "'['"));
  if (started_.size() >= kMaxDepth) {
    return ErrorAt(at_ - 1, StrCat("expected JSON nested at most ", kMaxDepth, " deep"));
  }
  started_.push_back(false);
  return absl::OkStatus();
}

absl::StatusOr<bool> JsonReader::NextMember(std::string_view* key, std::string* storage) {
  SkipWhitespace();
  if (started_.empty()) return ErrorAt(at_, "expected an open object");
  if (at_ < end_ && *at_ == '}') {
    ++at_;
    started_.pop_back();
    return false;
  }
  if (started_.back()) {
    if (at_ == end_ || *at_ != ',') return ErrorAt(at_, "expected ',' or '}' after an object member");
    ++at_;
    SkipWhitespace();
  }
  started_.back() = true;
  if (at_ == end_ || *at_ != '"') return ErrorAt(at_, "expected a member name in double quotes");
  ASSIGN_OR_RETURN(*key, ReadString(storage));
  RETURN_IF_ERROR(Expect(':', "':' after the member name"));
  return true;
}

absl::StatusOr<bool> JsonReader::NextElement(bool allow_unclosed) {
  SkipWhitespace();
  if (started_.empty()) return ErrorAt(at_, "expected an open array");
  if (at_ < end_ && *at_ == ']') {
    ++at_;
    started_.pop_back();
    return false;
  }
  if (allow_unclosed && at_ == end_) {
    started_.pop_back();
    return false;
  }
  if (started_.back()) {
    if (at_ == end_ || *at_ != ',') return ErrorAt(at_, "expected ',' or ']' after an array element");
    ++at_;
    SkipWhitespace();
    if (allow_unclosed && at_ == end_) {
      started_.pop_back();
      return false;
    }
  }
  started_.back() = true;
  return true;
}

absl::StatusOr<std::string_view> JsonReader::ReadString(std::string* storage) {
  RETURN_IF_ERROR(Expect('"', "a string"));
  const char* begin = at_;
  // Fast path: no escapes.
  while (at_ < end_ && *at_ != '"' && *at_ != '\\') ++at_;
  if (at_ == end_) return ErrorAt(begin - 1, "expected the string to end with '\"'");
  if (*at_ == '"') {
    const std::string_view s(begin, static_cast<size_t>(at_ - begin));
    ++at_;
    return s;
  }
  storage->assign(begin, static_cast<size_t>(at_ - begin));
  while (at_ < end_ && *at_ != '"') {
    if (*at_ != '\\') {
      storage->push_back(*at_++);
      continue;
    }
    const char* escape = at_++;
    if (at_ == end_) break;
    const char c = *at_++;
    switch (c) {
      case '"': storage->push_back('"'); break;
      case '\\': storage->push_back('\\'); break;
      case '/': storage->push_back('/'); break;
      case 'b': storage->push_back('\b'); break;
      case 'f': storage->push_back('\f'); break;
      case 'n': storage->push_back('\n'); break;
      case 'r': storage->push_back('\r'); break;
      case 't': storage->push_back('\t'); break;
      case 'u': {
        uint32_t unit = 0;
        if (!Hex4(at_, end_, &unit)) return ErrorAt(escape, "expected four hex digits after \\u");
        at_ += 4;
        if (unit >= 0xD800 && unit < 0xDC00) {
          uint32_t low = 0;
          if (end_ - at_ >= 6 && at_[0] == '\\' && at_[1] == 'u' && Hex4(at_ + 2, end_, &low) &&
              low >= 0xDC00 && low < 0xE000) {
            at_ += 6;
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
          } else {
            unit = 0xFFFD;  // a lone surrogate
          }
        } else if (unit >= 0xDC00 && unit < 0xE000) {
          unit = 0xFFFD;
        }
        AppendUtf8(unit, storage);
        break;
      }
      default:
        return ErrorAt(escape, "expected a JSON escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
    }
  }
  if (at_ == end_) return ErrorAt(begin - 1, "expected the string to end with '\"'");
  ++at_;
  return std::string_view(*storage);
}

absl::StatusOr<std::string_view> JsonReader::ReadNumber() {
  SkipWhitespace();
  const char* begin = at_;
  const char* p = at_;
  if (p < end_ && *p == '-') ++p;
  if (p == end_ || !IsDigit(*p)) return ErrorAt(begin, "expected a number");
  while (p < end_ && IsDigit(*p)) ++p;
  if (p < end_ && *p == '.') {
    ++p;
    if (p == end_ || !IsDigit(*p)) return ErrorAt(p, "expected digits after the decimal point");
    while (p < end_ && IsDigit(*p)) ++p;
  }
  if (p < end_ && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end_ && (*p == '+' || *p == '-')) ++p;
    if (p == end_ || !IsDigit(*p)) return ErrorAt(p, "expected digits in the exponent");
    while (p < end_ && IsDigit(*p)) ++p;
  }
  at_ = p;
  return std::string_view(begin, static_cast<size_t>(p - begin));
}

absl::StatusOr<bool> JsonReader::ReadBool() {
  SkipWhitespace();
  if (end_ - at_ >= 4 && std::memcmp(at_, "true", 4) == 0) {
    at_ += 4;
    return true;
  }
  if (end_ - at_ >= 5 && std::memcmp(at_, "false", 5) == 0) {
    at_ += 5;
    return false;
  }
  return ErrorAt(at_, "expected true or false");
}

absl::Status JsonReader::ReadNull() {
  SkipWhitespace();
  if (end_ - at_ >= 4 && std::memcmp(at_, "null", 4) == 0) {
    at_ += 4;
    return absl::OkStatus();
  }
  return ErrorAt(at_, "expected null");
}

absl::Status JsonReader::Skip() {
  // Iterative, so that deep nesting costs no stack: one entry per container
  // opened by this call, true for an object.
  std::vector<bool> is_object;
  std::string scratch;
  for (;;) {
    ASSIGN_OR_RETURN(const Kind kind, Peek());
    switch (kind) {
      case Kind::kEnd:
        return ErrorAt(at_, "expected a JSON value");
      case Kind::kObject:
        RETURN_IF_ERROR(BeginObject());
        is_object.push_back(true);
        break;
      case Kind::kArray:
        RETURN_IF_ERROR(BeginArray());
        is_object.push_back(false);
        break;
      case Kind::kString:
        RETURN_IF_ERROR(ReadString(&scratch).status());
        break;
      case Kind::kNumber:
        RETURN_IF_ERROR(ReadNumber().status());
        break;
      case Kind::kTrue:
      case Kind::kFalse:
        RETURN_IF_ERROR(ReadBool().status());
        break;
      case Kind::kNull:
        RETURN_IF_ERROR(ReadNull());
        break;
    }
    // Move to the next value to read, closing the containers that end.
    for (;;) {
      if (is_object.empty()) return absl::OkStatus();
      bool more = false;
      if (is_object.back()) {
        std::string_view key;
        ASSIGN_OR_RETURN(more, NextMember(&key, &scratch));
      } else {
        ASSIGN_OR_RETURN(more, NextElement());
      }
      if (more) break;
      is_object.pop_back();
    }
  }
}

bool ParseDecimalScaled(std::string_view text, int scale_digits, int64_t* out) {
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) ++i;
  // Collect the digits and the position of the decimal point.
  std::string digits;
  int64_t point = -1;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (IsDigit(c)) {
      if (digits.size() < 40) digits.push_back(c);
      else if (point < 0) return false;  // too many integer digits
    } else if (c == '.' && point < 0) {
      point = static_cast<int64_t>(digits.size());
    } else {
      break;
    }
  }
  if (digits.empty()) return false;
  if (point < 0) point = static_cast<int64_t>(digits.size());
  int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    if (i == text.size()) return false;
    for (; i < text.size(); ++i) {
      if (!IsDigit(text[i])) return false;
      exponent = exponent * 10 + (text[i] - '0');
      if (exponent > 400) return false;
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != text.size()) return false;
  // The value is 0.digits * 10^(point + exponent); keep `kept` digits.
  const int64_t kept = point + exponent + scale_digits;
  uint64_t value = 0;
  constexpr uint64_t kLimit = UINT64_C(9223372036854775807);
  for (int64_t k = 0; k < kept; ++k) {
    const uint64_t d = k < static_cast<int64_t>(digits.size())
                           ? static_cast<uint64_t>(digits[static_cast<size_t>(k)] - '0')
                           : 0;
    if (value > (kLimit - d) / 10) return false;
    value = value * 10 + d;
  }
  if (kept >= 0 && kept < static_cast<int64_t>(digits.size()) &&
      digits[static_cast<size_t>(kept)] >= '5') {
    if (value == kLimit) return false;
    ++value;
  }
  *out = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
  return true;
}

}  // namespace memplan::parsers
