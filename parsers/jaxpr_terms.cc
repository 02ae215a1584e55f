// JaxprParser's terms (parsers/jaxpr_reader.h): trivia and comments,
// types, binders, literals, operands and parameter values.
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/jaxpr_reader.h"

namespace memplan::parsers::jaxpr_internal {

void JaxprParser::SkipTrivia() {
  for (;;) {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
    if (!AtCommentStart()) return;
    TakeComment();
  }
}

char JaxprParser::CharAfterWord(std::string_view word) {
  const size_t save = pos_;
  std::vector<std::string_view>* comments = comments_;
  comments_ = nullptr;
  pos_ += word.size();
  SkipTrivia();
  const char c = Peek();
  pos_ = save;
  comments_ = comments;
  return c;
}

absl::Status JaxprParser::ParseAvalTags(std::string_view name, std::string& dtype_name) {
  while (Peek() == '<') {
    const size_t close = text_.find('>', pos_);
    if (close == std::string_view::npos || close - pos_ > 64) return Error("expected '>'");
    if (dtype_name.find('<') == std::string::npos && name == "key") {
      dtype_name += std::string(text_.substr(pos_, close + 1 - pos_));
    }
    pos_ = close + 1;
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> JaxprParser::ParseAvalDim() {
  int64_t dim = -1;
  if (IsDigit(Peek())) {
    dim = 0;
    while (IsDigit(Peek())) {
      if (dim > (INT64_MAX - 9) / 10) return Error("expected a dimension below 2^63");
      dim = dim * 10 + (Peek() - '0');
      ++pos_;
    }
  } else if (IsIdentStart(Peek())) {
    ReadIdent();  // a symbolic dimension
  } else {
    return Error("expected a dimension (a number or a name)");
  }
  // "@x" or "@(x,y)": the mesh axes a dimension is sharded over.
  if (Consume('@')) {
    if (Consume('(')) {
      const size_t close = text_.find(')', pos_);
      if (close == std::string_view::npos) return Error("expected ')'");
      pos_ = close + 1;
    } else if (ReadIdent().empty()) {
      return Error("expected a mesh axis name after '@'");
    }
  }
  return dim;
}

absl::Status JaxprParser::SkipAvalAxes() {
  if (Peek() != '{') return absl::OkStatus();
  const size_t close = text_.find('}', pos_);
  if (close == std::string_view::npos || text_.substr(pos_, close - pos_).find('\n') != std::string_view::npos) {
    return Error("expected '}' closing the type's axes");
  }
  pos_ = close + 1;
  return absl::OkStatus();
}

absl::StatusOr<ir::JaxprAval> JaxprParser::ParseAval() {
  ir::JaxprAval aval;
  const size_t start = pos_;
  std::string_view name = ReadIdent();
  if (name.empty()) return Error("expected a type such as f32[2,3]");
  aval.dtype_name = std::string(name);
  RETURN_IF_ERROR(ParseAvalTags(name, aval.dtype_name));
  if (!Consume('[')) return Error("expected '[' and the dimensions of the type");
  while (Peek() != ']') {
    if (!aval.dims.empty() || pos_ > 0) {
      while (Peek() == ' ') ++pos_;
    }
    ASSIGN_OR_RETURN(const int64_t dim, ParseAvalDim());
    aval.dims.push_back(dim);
    while (Peek() == ' ') ++pos_;
    if (Consume(',')) continue;
    if (Peek() != ']') return Error("expected ',' or ']' in the dimensions");
  }
  ++pos_;
  RETURN_IF_ERROR(SkipAvalAxes());  // "{V:x, U:(x,y)}": varying / unreduced mesh axes
  aval.known = true;
  aval.dtype = ir::JaxDTypeFromName(aval.dtype_name);
  aval.text = std::string(text_.substr(start, pos_ - start));
  return aval;
}

absl::StatusOr<ir::JaxprVarId> JaxprParser::ParseBinder(Scope& scope, ir::JaxprId jaxpr, ir::JaxprVar::Kind kind) {
  const size_t at = pos_;
  const std::string_view name = ReadIdent();
  if (name.empty()) return Error("expected a variable name");
  ir::JaxprVar var;
  var.id = ir::JaxprVarId(static_cast<int64_t>(module_.vars.size()));
  var.name = std::string(name);
  var.kind = name == "_" ? ir::JaxprVar::Kind::kDrop : kind;
  var.jaxpr = jaxpr;
  if (Consume(':')) {
    ASSIGN_OR_RETURN(var.aval, ParseAval());
  }
  if (name != "_") {
    if (scope.names.count(name)) {
      return ErrorAt(at, StrCat("expected a fresh variable name; '", name,
                                "' is already bound in this jaxpr"));
    }
    scope.names.emplace(std::string(name), var.id);
  }
  module_.vars.push_back(std::move(var));
  return module_.vars.back().id;
}

absl::StatusOr<ir::JaxprAtom> JaxprParser::ParseLiteral() {
  ir::JaxprAtom atom;
  const size_t start = pos_;
  if (Peek() == '(') {
    const size_t close = text_.find(')', pos_);
    if (close == std::string_view::npos || close - pos_ > 80) return Error("expected a complex literal");
    pos_ = close + 1;
  } else if (text_.substr(pos_, 5) == "[...]") {
    pos_ += 5;
  } else {
    if (Peek() == '-' || Peek() == '+') ++pos_;
    if (IsIdentStart(Peek())) {
      ReadIdent();
    } else {
      if (!IsDigit(Peek()) && Peek() != '.') return Error("expected an operand: a variable or a literal");
      while (IsDigit(Peek()) || Peek() == '.') ++pos_;
      if (Peek() == 'e' || Peek() == 'E') {
        ++pos_;
        if (Peek() == '+' || Peek() == '-') ++pos_;
        while (IsDigit(Peek())) ++pos_;
      }
      if (Peek() == 'j') ++pos_;
    }
  }
  atom.literal = std::string(text_.substr(start, pos_ - start));
  if (Peek() == ':') {
    ++pos_;
    ASSIGN_OR_RETURN(atom.literal_aval, ParseAval());
  }
  return atom;
}

absl::StatusOr<ir::JaxprAtom> JaxprParser::ParseOperand(const Scope& scope) {
  const std::string_view word = PeekWord();
  if (!word.empty() && !(IsLiteralWord(word) && (CharAfterWord(word) == ':' || !scope.names.count(word)))) {
    const auto it = scope.names.find(word);
    if (it == scope.names.end()) {
      return Error(StrCat("expected a variable bound earlier in this jaxpr; '", word, "' is not"));
    }
    pos_ += word.size();
    ir::JaxprAtom atom;
    atom.var = it->second;
    return atom;
  }
  return ParseLiteral();
}

absl::StatusOr<JaxprParamValue> JaxprParser::ParseSequence(char close, JaxprParamValue::Kind kind, int depth) {
  JaxprParamValue value;
  value.kind = kind;
  const size_t open_at = pos_ - 1;
  for (;;) {
    SkipTrivia();
    if (pos_ >= text_.size()) return ErrorAt(open_at, StrCat("expected '", std::string(1, close), "' closing this"));
    if (Consume(close)) break;
    std::string key;
    const std::string_view word = PeekWord();
    if (!word.empty() && CharAfterWord(word) == '=' ) {
      const size_t save = pos_;
      pos_ += word.size();
      SkipTrivia();
      if (Peek() == '=' && Peek(1) != '=') {
        ++pos_;
        key = std::string(word);
      } else {
        pos_ = save;
      }
    }
    const size_t before = pos_;
    ASSIGN_OR_RETURN(JaxprParamValue element, ParseValue(depth + 1));
    SkipTrivia();
    if (Peek() == ':' && key.empty()) {  // a dict entry "'k': v"
      ++pos_;
      key = element.text;
      SkipTrivia();
      ASSIGN_OR_RETURN(element, ParseValue(depth + 1));
      SkipTrivia();
    }
    if (pos_ == before) return Error("expected a value");
    value.elements.push_back(std::move(element));
    value.keys.push_back(std::move(key));
    Consume(',');
  }
  return value;
}

absl::StatusOr<JaxprParamValue> JaxprParser::ParseBraced(int depth) {
  const size_t save = pos_;
  ++pos_;
  SkipTrivia();
  const bool is_jaxpr = PeekWord() == "lambda";
  pos_ = save;
  JaxprParamValue value;
  if (!is_jaxpr) {
    ++pos_;
    ASSIGN_OR_RETURN(value, ParseSequence('}', JaxprParamValue::Kind::kBraces, depth));
    if (value.text.empty()) value.text = std::string(text_.substr(save, pos_ - save));
    return value;
  }
  value.kind = JaxprParamValue::Kind::kJaxpr;
  ASSIGN_OR_RETURN(value.jaxpr, ParseJaxprBody(current_eqn_));
  return value;
}

absl::StatusOr<JaxprParamValue> JaxprParser::ParseQuoted() {
  const size_t start = pos_;
  const char quote = text_[pos_++];
  while (pos_ < text_.size() && text_[pos_] != quote && text_[pos_] != '\n') {
    if (text_[pos_] == '\\') ++pos_;
    ++pos_;
  }
  if (!Consume(quote)) return ErrorAt(start, "expected the string to close on its line");
  JaxprParamValue value;
  value.kind = JaxprParamValue::Kind::kString;
  value.text = std::string(text_.substr(start + 1, pos_ - start - 2));
  return value;
}

absl::Status JaxprParser::SkipAngled() {
  const size_t start = pos_;
  int nesting = 0;
  while (pos_ < text_.size()) {
    if (text_[pos_] == '<') ++nesting;
    if (text_[pos_] == '>' && --nesting == 0) break;
    if (text_[pos_] == '\n') break;
    ++pos_;
  }
  if (!Consume('>')) return ErrorAt(start, "expected '>' closing this on its line");
  return absl::OkStatus();
}

void JaxprParser::SkipNumber() {
  ++pos_;
  while (IsIdentChar(Peek()) || Peek() == '.' ||
         ((Peek() == '-' || Peek() == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))) {
    ++pos_;
  }
}

absl::StatusOr<JaxprParamValue> JaxprParser::ParseNamed(int depth) {
  const size_t start = pos_;
  while (IsIdentChar(Peek()) || (Peek() == '.' && IsIdentStart(Peek(1)))) ++pos_;
  const std::string callee(text_.substr(start, pos_ - start));
  JaxprParamValue value;
  if (Peek() == '(') {
    ++pos_;
    ASSIGN_OR_RETURN(value, ParseSequence(')', JaxprParamValue::Kind::kCall, depth));
    value.text = callee;
    return value;
  }
  if (auto it = shared_.find(callee); it != shared_.end()) {
    value.kind = JaxprParamValue::Kind::kJaxpr;
    value.jaxpr = it->second;
    value.text = callee;
    return value;
  }
  value.kind = JaxprParamValue::Kind::kName;
  value.text = callee;
  return value;
}

absl::StatusOr<JaxprParamValue> JaxprParser::ParseValue(int depth) {
  if (depth > kMaxNesting) return Error(StrCat("expected values nested at most ", kMaxNesting, " deep"));
  SkipTrivia();
  const size_t start = pos_;
  const char c = Peek();
  if (c == '{') return ParseBraced(depth);
  if (c == '\'' || c == '"') return ParseQuoted();
  if (IsIdentStart(c)) return ParseNamed(depth);
  JaxprParamValue value;
  if (c == '(' || c == '[') {
    ++pos_;
    ASSIGN_OR_RETURN(value, ParseSequence(c == '(' ? ')' : ']',
                                          c == '(' ? JaxprParamValue::Kind::kTuple : JaxprParamValue::Kind::kList,
                                          depth));
  } else if (c == '<') {
    RETURN_IF_ERROR(SkipAngled());
    value.kind = JaxprParamValue::Kind::kOpaque;
  } else if (IsDigit(c) || ((c == '-' || c == '+') && (IsDigit(Peek(1)) || Peek(1) == '.'))) {
    SkipNumber();
    value.kind = JaxprParamValue::Kind::kNumber;
  } else {
    // Anything else up to a separator, as text.
    while (pos_ < text_.size()) {
      const char d = text_[pos_];
      if (d == ' ' || d == '\n' || d == '\t' || d == '\r' || d == ',' || d == ')' || d == ']' || d == '}') break;
      ++pos_;
    }
    if (pos_ == start) return Error("expected a parameter value");
    value.kind = JaxprParamValue::Kind::kOpaque;
  }
  if (value.text.empty()) value.text = std::string(text_.substr(start, pos_ - start));
  return value;
}

}  // namespace memplan::parsers::jaxpr_internal
