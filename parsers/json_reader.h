// A pull reader over JSON text (RFC 8259), for inputs too large to hold as a
// DOM (profiler traces run to gigabytes). The caller walks the document
// value by value; nothing is copied except strings with escapes. Errors name
// "file:line:col" and what was expected there. Nesting deeper than
// kMaxDepth is an error, so no input can exhaust the stack.
#ifndef MEMPLAN_PARSERS_JSON_READER_H_
#define MEMPLAN_PARSERS_JSON_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

class JsonReader {
 public:
  static constexpr int kMaxDepth = 256;

  enum class Kind { kObject, kArray, kString, kNumber, kTrue, kFalse, kNull, kEnd };

  explicit JsonReader(const SourceText& source);

  // Kind of the next value (after whitespace); kEnd at the end of the text.
  // Error when the next character starts no value.
  absl::StatusOr<Kind> Peek();

  // Consumes '{'. Then call NextMember() until it returns false.
  absl::Status BeginObject();
  // Reads the next member's key (and its ':'), or consumes '}' and returns
  // false. `storage` backs the key when it has escapes.
  absl::StatusOr<bool> NextMember(std::string_view* key, std::string* storage);

  // Consumes '['. Then call NextElement() before each element until it
  // returns false.
  absl::Status BeginArray();
  // True when another element follows (the ',' is consumed), false when the
  // array closed (the ']' is consumed). With `allow_unclosed`, the end of
  // the text and a trailing ',' also end the array (Chrome's JSON Array
  // Format may be cut off).
  absl::StatusOr<bool> NextElement(bool allow_unclosed = false);

  // A string value, unescaped; the view points into the text or `storage`.
  absl::StatusOr<std::string_view> ReadString(std::string* storage);
  // A number value's text as written ("-1.5e3").
  absl::StatusOr<std::string_view> ReadNumber();
  absl::StatusOr<bool> ReadBool();
  absl::Status ReadNull();
  // Skips one value of any kind.
  absl::Status Skip();

  // Where the next value starts (after whitespace).
  const char* position();
  // The text not yet read, after whitespace.
  bool AtEnd();
  // "file:line:col: error: <expected>", then up to 80 characters of the
  // line around `at` (JSON often sits on one long line) and a caret.
  absl::Status ErrorAt(const char* at, std::string_view expected) const;

 private:
  void SkipWhitespace();
  absl::Status Expect(char c, std::string_view what);

  const SourceText& source_;
  const char* at_;
  const char* end_;
  // Per open container: whether an element/member has been read.
  std::vector<bool> started_;
};

// "12", "-3", "1.5", "1e3" as an int64 scaled by 10^scale_digits
// (ParseDecimalScaled("11.627", 3) == 11627), rounding half away from zero
// beyond the kept digits. False on overflow or malformed text.
bool ParseDecimalScaled(std::string_view text, int scale_digits, int64_t* out);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_JSON_READER_H_
