#include "parsers/python_repr.h"

#include <utility>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/sharding_limits.h"

namespace memplan::parsers {
namespace {

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9') || c == '.'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

constexpr size_t kMaxTokens = 1 << 22;
constexpr int kMaxNesting = 32;

}  // namespace

absl::StatusOr<std::vector<PyToken>> TokenizePython(const SourceText& source) {
  const std::string_view text = source.text();
  std::vector<PyToken> tokens;
  size_t i = 0;
  while (true) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    if (tokens.size() >= kMaxTokens) return source.ErrorAt(text.data() + i, "expected a shorter text");
    PyToken token;
    token.offset = i;
    if (i >= text.size()) {
      tokens.push_back(std::move(token));
      return tokens;
    }
    const char c = text[i];
    if (IsNameStart(c)) {
      const size_t start = i;
      while (i < text.size() && IsNameChar(text[i])) ++i;
      token.kind = PyToken::Kind::kName;
      token.text = std::string(text.substr(start, i - start));
    } else if (IsDigit(c) || (c == '-' && i + 1 < text.size() && IsDigit(text[i + 1]))) {
      const size_t start = i;
      const bool negative = c == '-';
      if (negative) ++i;
      uint64_t value = 0;
      while (i < text.size() && IsDigit(text[i])) {
        value = value * 10 + static_cast<uint64_t>(text[i] - '0');
        if (value > kMaxShardingInt) return source.ErrorAt(text.data() + start, "expected an integer below 2^40");
        ++i;
      }
      token.kind = PyToken::Kind::kInt;
      // A float (1., 2.5, 1e-3) is a value the sharding reprs carry but never read.
      if (i < text.size() && (text[i] == '.' || text[i] == 'e' || text[i] == 'E')) {
        token.kind = PyToken::Kind::kFloat;
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        while (i < text.size() && (IsDigit(text[i]) || text[i] == 'e' || text[i] == 'E' || text[i] == '.')) ++i;
      }
      token.text = std::string(text.substr(start, i - start));
      token.value = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
    } else if (c == '\'' || c == '"') {
      const size_t end = text.find(c, i + 1);
      if (end == std::string_view::npos) return source.ErrorAt(text.data() + i, "expected a closing quote");
      token.kind = PyToken::Kind::kString;
      token.text = std::string(text.substr(i + 1, end - i - 1));
      i = end + 1;
    } else if (std::string_view("()[]{},:=").find(c) != std::string_view::npos) {
      token.kind = PyToken::Kind::kPunct;
      token.text = std::string(1, c);
      ++i;
    } else {
      return source.ErrorAt(text.data() + i, StrCat("expected a name, a number, a string or one of ()[]{},:= (found '",
                                                    std::string(1, c), "')"));
    }
    tokens.push_back(std::move(token));
  }
}

const PyToken& PyReader::Peek(size_t ahead) const {
  const size_t i = next_ + ahead;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

const PyToken& PyReader::Next() {
  const PyToken& token = Peek();
  if (next_ + 1 < tokens_.size()) ++next_;
  return token;
}

bool PyReader::IsPunct(std::string_view p, size_t ahead) const {
  const PyToken& t = Peek(ahead);
  return t.kind == PyToken::Kind::kPunct && t.text == p;
}

bool PyReader::IsName(std::string_view name, size_t ahead) const {
  const PyToken& t = Peek(ahead);
  return t.kind == PyToken::Kind::kName && t.text == name;
}

bool PyReader::TakePunct(std::string_view p) {
  if (!IsPunct(p)) return false;
  Next();
  return true;
}

std::string PyReader::TakeArgumentName(std::initializer_list<std::string_view> positional,
                                       size_t* index) {
  if (Peek().kind == PyToken::Kind::kName && IsPunct("=", 1)) {
    std::string name = Next().text;
    Next();
    return name;
  }
  const size_t at = (*index)++;
  return at < positional.size() ? std::string(positional.begin()[at]) : std::string();
}

absl::Status PyReader::ExpectPunct(std::string_view p, std::string_view what) {
  if (TakePunct(p)) return absl::OkStatus();
  return ErrorAtNext(StrCat("expected ", what));
}

absl::Status PyReader::ErrorAt(const PyToken& token, std::string_view message) const {
  return source_.ErrorAt(source_.text().data() + token.offset, message);
}

absl::StatusOr<int64_t> PyReader::ExpectInt(std::string_view what) {
  if (Peek().kind != PyToken::Kind::kInt) return ErrorAtNext(StrCat("expected ", what));
  return Next().value;
}

namespace {

// ExpectIntArray's walk over one nested list or tuple of integers: the
// closer and element count of each list still open, and each level's length
// as the first element at every level fixed it. Fails, located, where
// siblings disagree in length or depth.
class IntArrayWalk {
 public:
  explicit IntArrayWalk(PyReader& r) : r_(r) {}

  // Reads the list or tuple that opens at the next token through its
  // closer, appending its integers to `values` row-major.
  absl::Status Read(std::vector<int64_t>* values) {
    if (!r_.IsPunct("[") && !r_.IsPunct("(")) return r_.ErrorAtNext("expected a list of device ids");
    RETURN_IF_ERROR(Open());
    while (depth_ > 0) {
      if (r_.IsPunct(closers_.back())) {
        RETURN_IF_ERROR(Close());
      } else if (r_.IsPunct("[") || r_.IsPunct("(")) {
        if (!first_path_ && closers_.size() >= dims_.size()) {
          return r_.ErrorAtNext("expected every row of the device array to have the same depth");
        }
        RETURN_IF_ERROR(Open());
      } else {
        RETURN_IF_ERROR(Element(values));
      }
    }
    return absl::OkStatus();
  }

  // The length of each nesting level, outermost first (after Read).
  const std::vector<int64_t>& dims() const { return dims_; }

 private:
  // Consumes the next '[' or '(' and opens a level for it.
  absl::Status Open() {
    const PyToken& t = r_.Next();
    if (++depth_ > kMaxNesting) return r_.ErrorAt(t, "expected less nesting");
    closers_.push_back(t.text == "[" ? "]" : ")");
    counts_.push_back(0);
    if (first_path_) dims_.push_back(-1);
    return absl::OkStatus();
  }

  // Consumes the innermost level's closer: fixes that level's length or
  // checks it against the length fixed before, and counts the closed list
  // as an element of the level around it (with its ',').
  absl::Status Close() {
    const PyToken& closer = r_.Next();
    const size_t level = closers_.size() - 1;
    if (dims_[level] == -1) {
      dims_[level] = counts_[level];
    } else if (dims_[level] != counts_[level]) {
      return r_.ErrorAt(closer, "expected every row of the device array to have the same length");
    }
    closers_.pop_back();
    counts_.pop_back();
    --depth_;
    if (depth_ > 0) {
      ++counts_.back();
      first_path_ = false;
      r_.TakePunct(",");
    }
    return absl::OkStatus();
  }

  // Reads one integer of the innermost level and the ',' or closer after it.
  absl::Status Element(std::vector<int64_t>* values) {
    if (closers_.size() != dims_.size()) {
      return r_.ErrorAtNext("expected every row of the device array to have the same depth");
    }
    if (values->size() >= static_cast<size_t>(kMaxShardingDevices)) return r_.ErrorAtNext("expected fewer devices");
    absl::StatusOr<int64_t> v = r_.ExpectInt("a device id");
    if (!v.ok()) return v.status();
    values->push_back(*v);
    ++counts_.back();
    if (!r_.TakePunct(",") && !r_.IsPunct(closers_.back())) {
      return r_.ErrorAtNext(StrCat("expected ',' or '", closers_.back(), "'"));
    }
    return absl::OkStatus();
  }

  PyReader& r_;
  std::vector<int64_t> dims_;
  std::vector<int64_t> counts_;
  std::vector<std::string> closers_;
  int depth_ = 0;
  bool first_path_ = true;  // still inside the first element at every level
};

// The rest of numpy's "array([...], dtype=int32)" after the list: skips
// any further arguments (keyword or positional) and consumes the ')'.
absl::Status FinishNumpyArray(PyReader& r) {
  while (r.TakePunct(",")) {
    if (r.IsPunct(")")) break;
    RETURN_IF_ERROR(r.SkipValue());  // dtype=int32
    if (r.TakePunct("=")) RETURN_IF_ERROR(r.SkipValue());
  }
  return r.ExpectPunct(")", "')' to close array(");
}

}  // namespace

absl::Status PyReader::ExpectIntArray(std::vector<int64_t>* shape, std::vector<int64_t>* values) {
  // numpy's repr: array([[0, 1], [2, 3]]) or array([0, 1], dtype=int32).
  bool numpy = false;
  if (IsName("array") || IsName("np.array") || IsName("numpy.array")) {
    Next();
    RETURN_IF_ERROR(ExpectPunct("(", "'(' after array"));
    numpy = true;
  }
  IntArrayWalk walk(*this);
  RETURN_IF_ERROR(walk.Read(values));
  *shape = walk.dims();
  if (numpy) RETURN_IF_ERROR(FinishNumpyArray(*this));
  return absl::OkStatus();
}

absl::Status PyReader::SkipValue() {
  int depth = 0;
  bool started = false;
  while (true) {
    const PyToken& t = Peek();
    if (t.kind == PyToken::Kind::kEnd) {
      if (started && depth == 0) return absl::OkStatus();
      return ErrorAt(t, "expected a value");
    }
    if (t.kind == PyToken::Kind::kPunct) {
      if (t.text == "(" || t.text == "[" || t.text == "{") {
        if (++depth > kMaxNesting) return ErrorAt(t, "expected less nesting");
        Next();
        started = true;
        continue;
      }
      if (t.text == ")" || t.text == "]" || t.text == "}") {
        if (depth == 0) return started ? absl::OkStatus() : ErrorAt(t, "expected a value");
        --depth;
        Next();
        if (depth == 0 && !IsPunct("(")) return absl::OkStatus();
        continue;
      }
      if (depth == 0) return started ? absl::OkStatus() : ErrorAt(t, "expected a value");
      Next();
      continue;
    }
    Next();
    started = true;
    if (depth == 0 && !IsPunct("(")) return absl::OkStatus();
  }
}

bool EndsWithName(const PyToken& t, std::string_view name) {
  if (t.kind != PyToken::Kind::kName) return false;
  if (t.text == name) return true;
  return t.text.size() > name.size() && t.text.ends_with(name) &&
         t.text[t.text.size() - name.size() - 1] == '.';
}

absl::StatusOr<PyReader> OpenPython(const SourceText& source) {
  ASSIGN_OR_RETURN(std::vector<PyToken> tokens, TokenizePython(source));
  return PyReader(source, std::move(tokens));
}

absl::Status ExpectEnd(PyReader& r, std::string_view what) {
  if (!r.AtEnd()) return r.ErrorAtNext(StrCat("expected the end of the ", what));
  return absl::OkStatus();
}

// An axis name: 'quoted' (JAX) or bare (memplan's x=4 form, DeviceMesh's dp=2).
}  // namespace memplan::parsers
