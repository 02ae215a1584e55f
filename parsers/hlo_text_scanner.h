// A forward reader over HLO text for the HLO text parser: raw pointers into
// the mapped input, no allocation, no regex. Whitespace (spaces, tabs,
// newlines) and comments (`/* ... */`, as XLA prints `/*index=5*/`, and
// `// ...` to the end of the line) separate tokens; Skip() passes them.
//
// Consume* functions either consume what they name and return true, or
// leave the position unchanged and return false; Fail() records the first
// error (where, and what was expected) for the caller to report.
#ifndef MEMPLAN_PARSERS_HLO_TEXT_SCANNER_H_
#define MEMPLAN_PARSERS_HLO_TEXT_SCANNER_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace memplan::parsers::hlo_text {

// Characters of names: XLA sanitizes instruction and computation names to
// [A-Za-z0-9_.-]; '$' and bytes >= 0x80 are accepted too.
inline bool IsNameChar(char c) {
  static constexpr auto kTable = [] {
    struct T {
      bool v[256] = {};
    } t;
    for (int c = 'a'; c <= 'z'; ++c) t.v[c] = true;
    for (int c = 'A'; c <= 'Z'; ++c) t.v[c] = true;
    for (int c = '0'; c <= '9'; ++c) t.v[c] = true;
    t.v[static_cast<unsigned char>('_')] = true;
    t.v[static_cast<unsigned char>('.')] = true;
    t.v[static_cast<unsigned char>('-')] = true;
    t.v[static_cast<unsigned char>('$')] = true;
    for (int c = 0x80; c < 256; ++c) t.v[c] = true;
    return t;
  }();
  return kTable.v[static_cast<unsigned char>(c)];
}

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

class Scanner {
 public:
  Scanner(const char* begin, const char* end) : pos_(begin), end_(end) {}

  const char* pos() const { return pos_; }
  const char* end() const { return end_; }
  void set_pos(const char* p) { pos_ = p; }
  bool AtEnd() const { return pos_ >= end_; }
  // The next byte without skipping anything; '\0' at the end.
  char Peek() const { return pos_ < end_ ? *pos_ : '\0'; }
  char PeekAt(size_t k) const { return pos_ + k < end_ ? pos_[k] : '\0'; }

  // Passes whitespace and comments. An unterminated /* comment runs to the
  // end of the text.
  void Skip() {
    while (pos_ < end_) {
      const char c = *pos_;
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < end_ && pos_[1] == '*') {
        const char* close = Find("*/", pos_ + 2);
        pos_ = close ? close + 2 : end_;
      } else if (c == '/' && pos_ + 1 < end_ && pos_[1] == '/') {
        const void* nl = std::memchr(pos_, '\n', static_cast<size_t>(end_ - pos_));
        pos_ = nl ? static_cast<const char*>(nl) : end_;
      } else {
        return;
      }
    }
  }
  // Passes spaces and tabs only (within one line).
  void SkipBlanks() {
    while (pos_ < end_ && (*pos_ == ' ' || *pos_ == '\t')) ++pos_;
  }

  bool ConsumeChar(char c) {
    if (pos_ >= end_ || *pos_ != c) return false;
    ++pos_;
    return true;
  }
  // Skip(), then ConsumeChar(c).
  bool Next(char c) {
    Skip();
    return ConsumeChar(c);
  }
  bool StartsWith(std::string_view literal) const {
    return static_cast<size_t>(end_ - pos_) >= literal.size() &&
           std::memcmp(pos_, literal.data(), literal.size()) == 0;
  }
  bool Consume(std::string_view literal) {
    if (!StartsWith(literal)) return false;
    pos_ += literal.size();
    return true;
  }
  // A keyword: `literal` not followed by a name character.
  bool ConsumeWord(std::string_view literal) {
    if (!StartsWith(literal)) return false;
    const char* after = pos_ + literal.size();
    if (after < end_ && IsNameChar(*after)) return false;
    pos_ = after;
    return true;
  }

  // A run of name characters (possibly empty).
  std::string_view ConsumeName() {
    const char* p = pos_;
    while (p < end_ && IsNameChar(*p)) ++p;
    const std::string_view name(pos_, static_cast<size_t>(p - pos_));
    pos_ = p;
    return name;
  }
  // An instruction or computation reference: "%name" or "name".
  std::string_view ConsumeReference() {
    const char* start = pos_;
    ConsumeChar('%');
    const std::string_view name = ConsumeName();
    if (name.empty()) pos_ = start;
    return name;
  }

  // A decimal integer with an optional '-'; fails on int64 overflow.
  bool ConsumeInt(int64_t* out) {
    const char* p = pos_;
    const bool negative = p < end_ && *p == '-';
    if (negative) ++p;
    const char* digits = p;
    uint64_t value = 0;
    while (p < end_ && IsDigit(*p)) {
      const uint64_t digit = static_cast<uint64_t>(*p - '0');
      if (value > (UINT64_C(9223372036854775807) - digit) / 10) return false;
      value = value * 10 + digit;
      ++p;
    }
    if (p == digits) return false;
    *out = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
    pos_ = p;
    return true;
  }
  bool ConsumeBool(bool* out) {
    if (ConsumeWord("true")) {
      *out = true;
      return true;
    }
    if (ConsumeWord("false")) {
      *out = false;
      return true;
    }
    return false;
  }

  // A double-quoted string with backslash escapes; `inner` is the text
  // between the quotes, escapes kept.
  bool ConsumeQuoted(std::string_view* inner) {
    if (Peek() != '"') return false;
    const char* close = ClosingQuote(pos_ + 1);
    if (!close) return false;
    *inner = std::string_view(pos_ + 1, static_cast<size_t>(close - pos_ - 1));
    pos_ = close + 1;
    return true;
  }

  // At `open`: passes the balanced group it opens up to its matching
  // `close`, stepping over quoted strings (whose braces do not count).
  // False, position unchanged, when the group does not close.
  bool SkipBalanced(char open, char close) {
    if (Peek() != open) return false;
    int64_t depth = 0;
    for (const char* p = pos_; p < end_; ++p) {
      const char c = *p;
      if (c == open) {
        ++depth;
      } else if (c == close) {
        if (--depth == 0) {
          pos_ = p + 1;
          return true;
        }
      } else if (c == '"') {
        p = ClosingQuote(p + 1);
        if (!p) return false;
      }
    }
    return false;
  }

  // The first error recorded (Fail), or nullptr.
  const char* error_at() const { return error_at_; }
  const std::string& error() const { return error_; }
  // Records "expected ..." at `at` unless an error is already recorded;
  // returns false so that parsers can `return s.Fail(...)`.
  bool Fail(const char* at, std::string expected) {
    if (!error_at_) {
      error_at_ = at;
      error_ = std::move(expected);
    }
    return false;
  }
  bool Fail(std::string expected) { return Fail(pos_, std::move(expected)); }

 private:
  // First occurrence of `needle` at or after `from`, or nullptr.
  const char* Find(std::string_view needle, const char* from) const {
    while (from < end_) {
      const void* hit = std::memchr(from, needle[0], static_cast<size_t>(end_ - from));
      if (!hit) return nullptr;
      const char* p = static_cast<const char*>(hit);
      if (static_cast<size_t>(end_ - p) < needle.size()) return nullptr;
      if (std::memcmp(p, needle.data(), needle.size()) == 0) return p;
      from = p + 1;
    }
    return nullptr;
  }
  // The unescaped '"' closing a string whose text starts at `from`.
  const char* ClosingQuote(const char* from) const {
    while (from < end_) {
      const void* hit = std::memchr(from, '"', static_cast<size_t>(end_ - from));
      if (!hit) return nullptr;
      const char* q = static_cast<const char*>(hit);
      size_t backslashes = 0;
      for (const char* b = q; b > from && b[-1] == '\\'; --b) ++backslashes;
      if (backslashes % 2 == 0) return q;
      from = q + 1;
    }
    return nullptr;
  }

  const char* pos_;
  const char* end_;
  const char* error_at_ = nullptr;
  std::string error_;
};

}  // namespace memplan::parsers::hlo_text

#endif  // MEMPLAN_PARSERS_HLO_TEXT_SCANNER_H_
