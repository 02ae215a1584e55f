#include "executor/json_locate.h"

#include "ir/strings.h"

namespace memplan::executor {
namespace {

// A forward scanner over well-formed JSON that skips values without building
// them. Every read is bounds-checked, so malformed text ends the scan early
// instead of reading past the end.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }

  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  // Reads a string at the cursor, decoding the escapes member names use in
  // practice (\uXXXX is kept verbatim: no plan key needs it).
  bool ReadString(std::string* out) {
    SkipSpace();
    if (Peek() != '"') return false;
    ++pos_;
    out->clear();
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\' && pos_ < text_.size()) {
        const char e = text_[pos_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'r': c = '\r'; break;
          case 'b': c = '\b'; break;
          case 'f': c = '\f'; break;
          case 'u': out->append("\\u"); continue;
          default: c = e; break;  // '"', '\\', '/'
        }
      }
      out->push_back(c);
    }
    if (pos_ >= text_.size()) return false;
    ++pos_;  // closing quote
    return true;
  }

  // Skips the value at the cursor. False when the text ends first.
  bool SkipValue(int depth = 0) {
    if (depth > 512) return false;
    SkipSpace();
    const char c = Peek();
    if (c == '"') {
      std::string ignored;
      return ReadString(&ignored);
    }
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++pos_;
      if (Consume(close)) return true;
      while (true) {
        if (c == '{') {
          std::string key;
          if (!ReadString(&key) || !Consume(':')) return false;
        }
        if (!SkipValue(depth + 1)) return false;
        if (Consume(',')) continue;
        return Consume(close);
      }
    }
    // A number, true, false or null.
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}' && text_[pos_] != ']' &&
           text_[pos_] != ' ' && text_[pos_] != '\n' && text_[pos_] != '\r' && text_[pos_] != '\t') {
      ++pos_;
    }
    return pos_ > start;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// Moves the cursor (at an object) to the value of member `key` (the last of
// that name). False when there is none.
bool EnterMember(Scanner& s, const std::string& key, size_t* name_at = nullptr) {
  if (!s.Consume('{')) return false;
  size_t found = std::string_view::npos;
  if (!s.Consume('}')) {
    std::string name;
    while (true) {
      s.SkipSpace();
      const size_t name_pos = s.pos();
      if (!s.ReadString(&name) || !s.Consume(':')) break;
      s.SkipSpace();
      if (name == key) {
        found = s.pos();
        if (name_at != nullptr) *name_at = name_pos;
      }
      if (!s.SkipValue()) break;
      if (!s.Consume(',')) break;
    }
  }
  if (found == std::string_view::npos) return false;
  s.set_pos(found);
  return true;
}

// Moves the cursor (at an array) to element `index`. False when there is none.
bool EnterElement(Scanner& s, int64_t index) {
  if (!s.Consume('[')) return false;
  if (s.Consume(']')) return false;
  for (int64_t i = 0;; ++i) {
    s.SkipSpace();
    if (i == index) return true;
    if (!s.SkipValue() || !s.Consume(',')) return false;
  }
}

}  // namespace

namespace {

size_t Locate(std::string_view text, const JsonPath& path, bool member_name) {
  Scanner s(text);
  s.SkipSpace();
  size_t at = s.pos();
  for (size_t i = 0; i < path.size(); ++i) {
    const JsonPathStep& step = path[i];
    size_t name_at = std::string_view::npos;
    const bool entered = step.index >= 0 ? EnterElement(s, step.index) : EnterMember(s, step.key, &name_at);
    if (!entered) return at;
    at = member_name && i + 1 == path.size() && name_at != std::string_view::npos ? name_at : s.pos();
  }
  return at;
}

}  // namespace

size_t LocateJsonPath(std::string_view text, const JsonPath& path) { return Locate(text, path, false); }

size_t LocateJsonMemberName(std::string_view text, const JsonPath& path) { return Locate(text, path, true); }

std::string JsonPathString(const JsonPath& path) {
  std::string out;
  for (const JsonPathStep& step : path) {
    if (step.index >= 0) {
      StrAppend(&out, "[", step.index, "]");
    } else {
      if (!out.empty()) out.push_back('.');
      out += step.key;
    }
  }
  return out.empty() ? "(top level)" : out;
}

}  // namespace memplan::executor
