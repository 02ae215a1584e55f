// A forward-only reader over one line of text, for hand-written parsers.
// Every Consume* either consumes what it names and returns true, or leaves
// the cursor where it was and returns false, so callers can report the exact
// column where the expected text was missing.
#ifndef MEMPLAN_PARSERS_CURSOR_H_
#define MEMPLAN_PARSERS_CURSOR_H_

#include <cstdint>
#include <cstring>
#include <string_view>

namespace memplan::parsers {

class Cursor {
 public:
  explicit Cursor(std::string_view text) : rest_(text) {}

  const char* position() const { return rest_.data(); }
  std::string_view rest() const { return rest_; }
  bool AtEnd() const { return rest_.empty(); }
  char Peek() const { return rest_.empty() ? '\0' : rest_.front(); }

  // A memcmp of the literal's own length: with a literal argument that
  // length is a constant once inlined and the compiler compares in place
  // (comparing substr(0, n) with it called memcmp: a tenth of the dump
  // parse's line dispatch).
  bool StartsWith(std::string_view literal) const {
    return literal.empty() ||
           (rest_.size() >= literal.size() &&
            std::memcmp(rest_.data(), literal.data(), literal.size()) == 0);
  }
  bool Consume(std::string_view literal) {
    if (!StartsWith(literal)) return false;
    rest_.remove_prefix(literal.size());
    return true;
  }
  bool ConsumeChar(char c) {
    if (rest_.empty() || rest_.front() != c) return false;
    rest_.remove_prefix(1);
    return true;
  }
  void SkipSpaces() {
    size_t n = 0;
    while (n < rest_.size() && (rest_[n] == ' ' || rest_[n] == '\t')) ++n;
    rest_.remove_prefix(n);
  }
  void Advance(size_t n) { rest_.remove_prefix(n < rest_.size() ? n : rest_.size()); }

  // A decimal integer with an optional '-'. Fails on overflow of int64.
  bool ConsumeInt(int64_t* out) {
    size_t n = 0;
    const bool negative = !rest_.empty() && rest_[0] == '-';
    if (negative) ++n;
    const size_t digits_start = n;
    uint64_t value = 0;
    while (n < rest_.size() && rest_[n] >= '0' && rest_[n] <= '9') {
      const uint64_t digit = static_cast<uint64_t>(rest_[n] - '0');
      if (value > (UINT64_C(9223372036854775807) - digit) / 10) return false;
      value = value * 10 + digit;
      ++n;
    }
    if (n == digits_start) return false;
    *out = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
    rest_.remove_prefix(n);
    return true;
  }

  // Up to (not including) the first `c`; the whole rest if there is none.
  std::string_view ConsumeUntil(char c) {
    const size_t n = rest_.find(c);
    const std::string_view taken = rest_.substr(0, n);
    rest_.remove_prefix(taken.size());
    return taken;
  }
  // Up to the first of any character in `stops`.
  // (A loop over the few stops per byte: std::string_view::find_first_of
  // calls memchr on `stops` once per byte of the text.)
  std::string_view ConsumeUntilAny(std::string_view stops) {
    size_t n = 0;
    for (; n < rest_.size(); ++n) {
      const char ch = rest_[n];
      bool stop = false;
      for (const char s : stops) stop |= ch == s;
      if (stop) break;
    }
    const std::string_view taken = rest_.substr(0, n);
    rest_.remove_prefix(taken.size());
    return taken;
  }

 private:
  std::string_view rest_;
};

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_CURSOR_H_
