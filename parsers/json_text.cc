#include "parsers/json_text.h"

#include <string>

#include "ir/strings.h"
#include "llvm/Support/Error.h"
#include "parsers/utf8.h"

namespace memplan::parsers {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The offset of the first '[' or '{' outside strings that opens level
// `limit` + 1; nullopt when the text nests at most `limit` deep.
std::optional<size_t> FirstTooDeep(std::string_view text, int64_t limit) {
  int64_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

// Scans well-formed JSON. Each function starts at a value's first byte
// (after spaces) and returns the offset just past it.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  size_t SkipSpaces(size_t i) const {
    while (i < text_.size() && IsSpace(text_[i])) ++i;
    return i;
  }

  size_t SkipString(size_t i) const {
    ++i;  // the opening quote
    while (i < text_.size() && text_[i] != '"') i += text_[i] == '\\' ? 2 : 1;
    return i + 1;
  }

  // Any value, iteratively: nesting costs no stack.
  size_t SkipValue(size_t i) const {
    int64_t depth = 0;
    do {
      i = SkipSpaces(i);
      if (i >= text_.size()) return i;
      const char c = text_[i];
      if (c == '"') {
        i = SkipString(i);
      } else if (c == '[' || c == '{') {
        ++depth;
        ++i;
      } else if (c == ']' || c == '}') {
        --depth;
        ++i;
      } else if (c == ',' || c == ':') {
        ++i;
      } else {
        while (i < text_.size() && !IsSpace(text_[i]) && text_[i] != ',' && text_[i] != ']' &&
               text_[i] != '}') {
          ++i;
        }
      }
    } while (depth > 0);
    return i;
  }

  std::optional<size_t> Member(size_t object, std::string_view key) const {
    size_t i = SkipSpaces(object + 1);
    while (i < text_.size() && text_[i] == '"') {
      const size_t key_end = SkipString(i);
      llvm::Expected<llvm::json::Value> decoded = llvm::json::parse(
          llvm::StringRef(text_.data() + i, key_end - i));
      bool match = false;
      if (decoded) {
        if (auto s = decoded->getAsString()) {
          match = std::string_view(s->data(), s->size()) == key;
        }
      } else {
        llvm::consumeError(decoded.takeError());
      }
      i = SkipSpaces(SkipSpaces(key_end) + 1);  // past ':'
      if (match) return i;
      i = SkipSpaces(SkipValue(i));
      if (i < text_.size() && text_[i] == ',') i = SkipSpaces(i + 1);
    }
    return std::nullopt;
  }

  std::optional<size_t> Element(size_t array, int64_t index) const {
    size_t i = SkipSpaces(array + 1);
    for (int64_t k = 0; i < text_.size() && text_[i] != ']'; ++k) {
      if (k == index) return i;
      i = SkipSpaces(SkipValue(i));
      if (i < text_.size() && text_[i] == ',') i = SkipSpaces(i + 1);
    }
    return std::nullopt;
  }

  char At(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

 private:
  std::string_view text_;
};

// "[3:14, byte=40]: Expected , or ] after array element": the byte.
std::optional<size_t> ByteOfParseError(std::string_view message) {
  const size_t at = message.find("byte=");
  if (at == std::string_view::npos) return std::nullopt;
  size_t value = 0;
  size_t i = at + 5;
  bool digits = false;
  while (i < message.size() && message[i] >= '0' && message[i] <= '9') {
    value = value * 10 + static_cast<size_t>(message[i] - '0');
    ++i;
    digits = true;
  }
  return digits ? std::optional<size_t>(value) : std::nullopt;
}

}  // namespace

bool LooksLikeJson(std::string_view text) {
  size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 byte order mark
  while (i < text.size() && IsSpace(text[i])) ++i;
  return i < text.size() && (text[i] == '{' || text[i] == '[');
}

absl::StatusOr<llvm::json::Value> ParseJsonText(const SourceText& source) {
  const std::string_view text = source.text();
  if (const size_t bad = FirstInvalidUtf8(text); bad < text.size()) {
    return source.ErrorAt(text.data() + bad, "expected UTF-8 text (JSON)");
  }
  if (const std::optional<size_t> deep = FirstTooDeep(text, kMaxJsonDepth)) {
    return source.ErrorAt(text.data() + *deep,
                          StrCat("JSON nested more than ", kMaxJsonDepth,
                                 " levels deep; expected at most ", kMaxJsonDepth));
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse(llvm::StringRef(text.data(), text.size()));
  if (parsed) return std::move(*parsed);
  const std::string message = llvm::toString(parsed.takeError());
  std::optional<size_t> byte = ByteOfParseError(message);
  // llvm::json reports the offset after the character it stopped at.
  if (byte && *byte > 0) --*byte;
  const size_t colon = message.find("]: ");
  const std::string what =
      colon == std::string::npos ? message : message.substr(colon + 3);
  return source.ErrorAt(text.data() + (byte ? std::min(*byte, text.size()) : 0),
                        StrCat("expected valid JSON: ", what));
}

std::optional<size_t> LocateJsonValue(std::string_view text, const JsonPath& path) {
  const Scanner scanner(text);
  size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  i = scanner.SkipSpaces(i);
  for (const JsonStep& step : path) {
    std::optional<size_t> next;
    if (step.index >= 0) {
      if (scanner.At(i) != '[') return std::nullopt;
      next = scanner.Element(i, step.index);
    } else {
      if (scanner.At(i) != '{') return std::nullopt;
      next = scanner.Member(i, step.key);
    }
    if (!next) return std::nullopt;
    i = *next;
  }
  return i;
}

std::string JsonPathString(const JsonPath& path) {
  std::string out;
  for (const JsonStep& step : path) {
    if (step.index >= 0) {
      StrAppend(&out, "[", step.index, "]");
    } else {
      if (!out.empty()) out += '.';
      out += step.key;
    }
  }
  return out.empty() ? "the document" : out;
}

absl::Status JsonErrorAt(const SourceText& source, const JsonPath& path,
                         std::string_view message) {
  // The deepest prefix of the path that exists.
  JsonPath prefix = path;
  std::optional<size_t> at = LocateJsonValue(source.text(), prefix);
  while (!at && !prefix.empty()) {
    prefix.pop_back();
    at = LocateJsonValue(source.text(), prefix);
  }
  return source.ErrorAt(source.text().data() + at.value_or(0),
                        StrCat(JsonPathString(path), ": ", message));
}

}  // namespace memplan::parsers
