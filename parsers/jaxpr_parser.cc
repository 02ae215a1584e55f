#include "parsers/jaxpr_parser.h"

#include <cctype>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::parsers {
namespace {

using ir::JaxprParamValue;

constexpr int kMaxNesting = 200;

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Literal spellings that look like names.
bool IsLiteralWord(std::string_view w) {
  return w == "True" || w == "False" || w == "nan" || w == "inf" || w == "None";
}

class JaxprParser {
 public:
  JaxprParser(const SourceText& source, size_t offset)
      : source_(source), text_(source.text()), pos_(std::min(offset, source.text().size())) {
    module_.source_name = source.name();
  }

  absl::StatusOr<ir::JaxprModule> ParseDocument(bool whole_text, size_t* end) {
    SkipTrivia();
    // Shared jaxprs: "let name = { lambda ... } in".
    while (PeekWord() == "let") {
      const size_t save = pos_;
      pos_ += 3;
      SkipTrivia();
      const std::string_view name = ReadIdent();
      SkipTrivia();
      if (name.empty() || !Consume('=')) {
        pos_ = save;
        return Error("expected \"let NAME = { lambda ... } in\" or a jaxpr \"{ lambda ... }\"");
      }
      SkipTrivia();
      ASSIGN_OR_RETURN(const ir::JaxprId id, ParseJaxprBody(ir::JaxprEqnId()));
      module_.jaxprs[static_cast<size_t>(id.value())].shared_name = std::string(name);
      shared_[std::string(name)] = id;
      SkipTrivia();
      if (PeekWord() != "in") return Error("expected \"in\" after a shared jaxpr");
      pos_ += 2;
      SkipTrivia();
    }
    if (Peek() != '{') return Error("expected a jaxpr: \"{ lambda ... }\"");
    ASSIGN_OR_RETURN(module_.top, ParseJaxprBody(ir::JaxprEqnId()));
    if (whole_text) {
      SkipTrivia();
      if (pos_ < text_.size()) return Error("expected the end of the jaxpr");
    }
    if (end != nullptr) *end = pos_;
    return std::move(module_);
  }

 private:
  // --- characters, trivia, errors -------------------------------------
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  absl::Status Error(std::string_view expected) const {
    return source_.ErrorAt(text_.data() + pos_, expected);
  }
  absl::Status ErrorAt(size_t at, std::string_view expected) const {
    return source_.ErrorAt(text_.data() + at, expected);
  }

  // Skips whitespace and "#"/"//" comments; comments go to `comments_`
  // when an equation is collecting them.
  void SkipTrivia() {
    for (;;) {
      while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                     text_[pos_] == '\n' || text_[pos_] == '\r')) {
        ++pos_;
      }
      if (!AtCommentStart()) return;
      TakeComment();
    }
  }
  bool AtCommentStart() const { return Peek() == '#' || (Peek() == '/' && Peek(1) == '/'); }
  void TakeComment() {
    const size_t start = pos_ + (Peek() == '#' ? 1 : 2);
    size_t end = text_.find('\n', start);
    if (end == std::string_view::npos) end = text_.size();
    if (comments_ != nullptr) comments_->push_back(text_.substr(start, end - start));
    pos_ = end;
  }
  // Spaces (not line breaks), then a comment on the same line, if any.
  void TakeSameLineComment() {
    while (Peek() == ' ' || Peek() == '\t') ++pos_;
    if (AtCommentStart()) TakeComment();
  }

  std::string_view PeekWord() const {
    size_t end = pos_;
    while (end < text_.size() && IsIdentChar(text_[end])) ++end;
    if (end == pos_ || !IsIdentStart(text_[pos_])) return {};
    return text_.substr(pos_, end - pos_);
  }
  std::string_view ReadIdent() {
    const std::string_view w = PeekWord();
    pos_ += w.size();
    return w;
  }
  // The next non-trivia character after the word at pos_, without moving.
  char CharAfterWord(std::string_view word) {
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

  int64_t LineOf(size_t offset) const { return source_.Locate(offset).line; }

  // --- avals ------------------------------------------------------------
  // "f32[2,3]", "bool[]", "key<fry>[]", "f32<host>[4]", "f32[4@x,4]{V:x}".
  absl::StatusOr<ir::JaxprAval> ParseAval() {
    ir::JaxprAval aval;
    const size_t start = pos_;
    std::string_view name = ReadIdent();
    if (name.empty()) return Error("expected a type such as f32[2,3]");
    aval.dtype_name = std::string(name);
    // "<fry>" of an extended dtype, or "<host>" of a memory space.
    while (Peek() == '<') {
      const size_t close = text_.find('>', pos_);
      if (close == std::string_view::npos || close - pos_ > 64) return Error("expected '>'");
      if (aval.dtype_name.find('<') == std::string::npos && name == "key") {
        aval.dtype_name += std::string(text_.substr(pos_, close + 1 - pos_));
      }
      pos_ = close + 1;
    }
    if (!Consume('[')) return Error("expected '[' and the dimensions of the type");
    while (Peek() != ']') {
      if (!aval.dims.empty() || pos_ > 0) {
        while (Peek() == ' ') ++pos_;
      }
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
      aval.dims.push_back(dim);
      while (Peek() == ' ') ++pos_;
      if (Consume(',')) continue;
      if (Peek() != ']') return Error("expected ',' or ']' in the dimensions");
    }
    ++pos_;
    // "{V:x, U:(x,y)}": varying / unreduced mesh axes.
    if (Peek() == '{') {
      const size_t close = text_.find('}', pos_);
      if (close == std::string_view::npos || text_.substr(pos_, close - pos_).find('\n') != std::string_view::npos) {
        return Error("expected '}' closing the type's axes");
      }
      pos_ = close + 1;
    }
    aval.known = true;
    aval.dtype = ir::JaxDTypeFromName(aval.dtype_name);
    aval.text = std::string(text_.substr(start, pos_ - start));
    return aval;
  }

  // --- binders and operands ----------------------------------------------
  struct Scope {
    std::map<std::string, ir::JaxprVarId, std::less<>> names;
  };

  absl::StatusOr<ir::JaxprVarId> ParseBinder(Scope& scope, ir::JaxprId jaxpr, ir::JaxprVar::Kind kind) {
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

  // A literal: 1.0, -2, 1e-05, 1j, (1+2j), nan, inf, -inf, True, [...],
  // each optionally typed ":f32[]".
  absl::StatusOr<ir::JaxprAtom> ParseLiteral() {
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

  absl::StatusOr<ir::JaxprAtom> ParseOperand(const Scope& scope) {
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

  // Whether the text at pos_ starts the next equation: names (each maybe
  // typed) up to a single '='. Remembers how far it looked so that a long
  // operand list is scanned once.
  bool StartsEquation() {
    if (pos_ < lookahead_until_) return false;
    const size_t save = pos_;
    std::vector<std::string_view>* comments = comments_;
    comments_ = nullptr;
    bool first = true;
    bool previous_typed = true;
    bool decided_not = false;
    for (;;) {
      const size_t before = pos_;
      SkipTrivia();
      const bool newline = text_.substr(before, pos_ - before).find('\n') != std::string_view::npos;
      const std::string_view word = PeekWord();
      if (word.empty()) break;
      // Untyped binders (old jaxprs) do not wrap: a name on a new line
      // after an untyped one starts something else.
      if (!first && newline && !previous_typed) {
        decided_not = true;
        break;
      }
      if (IsLiteralWord(word)) break;  // "nan:f32[]" is an operand
      first = false;
      pos_ += word.size();
      previous_typed = false;
      if (Peek() == ':') {
        ++pos_;
        if (!ParseAval().ok()) break;
        previous_typed = true;
      }
    }
    bool result = false;
    if (!decided_not) {
      SkipTrivia();
      result = Peek() == '=' && Peek(1) != '=';
    }
    lookahead_until_ = result ? 0 : pos_;
    pos_ = save;
    comments_ = comments;
    return result;
  }

  // --- parameter values -------------------------------------------------
  absl::StatusOr<JaxprParamValue> ParseSequence(char close, JaxprParamValue::Kind kind, int depth) {
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

  absl::StatusOr<JaxprParamValue> ParseValue(int depth) {
    if (depth > kMaxNesting) return Error(StrCat("expected values nested at most ", kMaxNesting, " deep"));
    SkipTrivia();
    const size_t start = pos_;
    const char c = Peek();
    JaxprParamValue value;
    if (c == '{') {
      const size_t save = pos_;
      ++pos_;
      SkipTrivia();
      const bool is_jaxpr = PeekWord() == "lambda";
      pos_ = save;
      if (is_jaxpr) {
        value.kind = JaxprParamValue::Kind::kJaxpr;
        ASSIGN_OR_RETURN(value.jaxpr, ParseJaxprBody(current_eqn_));
        return value;
      }
      ++pos_;
      ASSIGN_OR_RETURN(value, ParseSequence('}', JaxprParamValue::Kind::kBraces, depth));
    } else if (c == '(') {
      ++pos_;
      ASSIGN_OR_RETURN(value, ParseSequence(')', JaxprParamValue::Kind::kTuple, depth));
    } else if (c == '[') {
      ++pos_;
      ASSIGN_OR_RETURN(value, ParseSequence(']', JaxprParamValue::Kind::kList, depth));
    } else if (c == '\'' || c == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != c && text_[pos_] != '\n') {
        if (text_[pos_] == '\\') ++pos_;
        ++pos_;
      }
      if (!Consume(c)) return ErrorAt(start, "expected the string to close on its line");
      value.kind = JaxprParamValue::Kind::kString;
      value.text = std::string(text_.substr(start + 1, pos_ - start - 2));
      return value;
    } else if (c == '<') {
      int nesting = 0;
      while (pos_ < text_.size()) {
        if (text_[pos_] == '<') ++nesting;
        if (text_[pos_] == '>' && --nesting == 0) break;
        if (text_[pos_] == '\n') break;
        ++pos_;
      }
      if (!Consume('>')) return ErrorAt(start, "expected '>' closing this on its line");
      value.kind = JaxprParamValue::Kind::kOpaque;
    } else if (IsDigit(c) || ((c == '-' || c == '+') && (IsDigit(Peek(1)) || Peek(1) == '.'))) {
      ++pos_;
      while (IsIdentChar(Peek()) || Peek() == '.' ||
             ((Peek() == '-' || Peek() == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))) {
        ++pos_;
      }
      value.kind = JaxprParamValue::Kind::kNumber;
    } else if (IsIdentStart(c)) {
      while (IsIdentChar(Peek()) || (Peek() == '.' && IsIdentStart(Peek(1)))) ++pos_;
      const std::string callee(text_.substr(start, pos_ - start));
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

  // --- equations and jaxprs ---------------------------------------------
  void CollectCalled(ir::JaxprEqn& eqn, const std::string& role, const JaxprParamValue& v) {
    if (v.kind == JaxprParamValue::Kind::kJaxpr) {
      eqn.called.push_back({role, v.jaxpr});
      return;
    }
    if (v.kind == JaxprParamValue::Kind::kTuple || v.kind == JaxprParamValue::Kind::kList) {
      for (size_t i = 0; i < v.elements.size(); ++i) {
        CollectCalled(eqn, StrCat(role, "[", i, "]"), v.elements[i]);
      }
    }
  }

  void ReadAnnotations(ir::JaxprEqn& eqn, const std::vector<std::string_view>& comments) {
    for (std::string_view c : comments) {
      while (!c.empty() && c.front() == ' ') c.remove_prefix(1);
      while (!c.empty() && (c.back() == ' ' || c.back() == '\r')) c.remove_suffix(1);
      if (c.size() >= 2 && c.front() == '[' && c.back() == ']') {
        if (eqn.name_stack.empty()) eqn.name_stack = std::string(c.substr(1, c.size() - 2));
        continue;
      }
      // "file:line:col (function)" or "file:line (function)".
      const size_t paren = c.rfind(" (");
      if (!eqn.source.file.empty() || paren == std::string_view::npos || c.back() != ')') continue;
      std::string_view location = c.substr(0, paren);
      int64_t numbers[2] = {0, 0};
      int found = 0;
      for (int k = 0; k < 2; ++k) {
        const size_t colon = location.rfind(':');
        if (colon == std::string_view::npos) break;
        const std::string_view digits = location.substr(colon + 1);
        if (digits.empty() || digits.size() > 12 ||
            digits.find_first_not_of("0123456789") != std::string_view::npos) {
          break;
        }
        int64_t v = 0;
        for (char d : digits) v = v * 10 + (d - '0');
        numbers[k] = v;
        ++found;
        location = location.substr(0, colon);
      }
      if (found == 0 || location.empty()) continue;
      eqn.source.file = std::string(location);
      eqn.source.line = found == 2 ? numbers[1] : numbers[0];
      eqn.source.column = found == 2 ? numbers[0] : 0;
      eqn.source.function = std::string(c.substr(paren + 2, c.size() - paren - 3));
    }
  }

  absl::Status ParseEquation(Scope& scope, ir::JaxprId jaxpr_id) {
    ir::JaxprEqn eqn;
    eqn.id = ir::JaxprEqnId(static_cast<int64_t>(module_.eqns.size()));
    eqn.jaxpr = jaxpr_id;
    eqn.input_line = LineOf(pos_);
    module_.eqns.emplace_back();  // reserve the id; nested jaxprs add after
    std::vector<std::string_view> comments;
    std::vector<std::string_view>* outer_comments = comments_;
    comments_ = &comments;
    const ir::JaxprEqnId outer_eqn = current_eqn_;
    current_eqn_ = eqn.id;
    absl::Status status = ParseEquationParts(scope, jaxpr_id, eqn);
    current_eqn_ = outer_eqn;
    if (status.ok()) {
      TakeSameLineComment();
      ReadAnnotations(eqn, comments);
    }
    comments_ = outer_comments;
    RETURN_IF_ERROR(status);
    for (ir::JaxprVarId v : eqn.outvars) module_.vars[static_cast<size_t>(v.value())].defined_by = eqn.id;
    module_.jaxprs[static_cast<size_t>(jaxpr_id.value())].eqns.push_back(eqn.id);
    module_.eqns[static_cast<size_t>(eqn.id.value())] = std::move(eqn);
    return absl::OkStatus();
  }

  absl::Status ParseEquationParts(Scope& scope, ir::JaxprId jaxpr_id, ir::JaxprEqn& eqn) {
    // Outputs: binders up to '=' (none for an equation without results).
    if (StartsEquation()) {
      for (;;) {
        SkipTrivia();
        if (Peek() == '=') {
          ++pos_;
          break;
        }
        ASSIGN_OR_RETURN(const ir::JaxprVarId v, ParseBinder(scope, jaxpr_id, ir::JaxprVar::Kind::kEqnOutput));
        eqn.outvars.push_back(v);
      }
    }
    SkipTrivia();
    const size_t name_at = pos_;
    while (IsIdentChar(Peek()) || (Peek() == '.' && IsIdentStart(Peek(1))) || Peek() == '-') ++pos_;
    if (pos_ == name_at) return Error("expected a primitive name");
    eqn.primitive = std::string(text_.substr(name_at, pos_ - name_at));
    if (Consume('[')) {
      for (;;) {
        SkipTrivia();
        if (Consume(']')) break;
        const size_t key_at = pos_;
        const std::string_view key = ReadIdent();
        if (key.empty()) return Error("expected a parameter name or ']'");
        SkipTrivia();
        if (!Consume('=')) return Error(StrCat("expected '=' after the parameter name '", key, "'"));
        ir::JaxprParam param;
        param.name = std::string(key);
        ASSIGN_OR_RETURN(param.value, ParseValue(0));
        (void)key_at;
        // name=layer names the call; it is not the shared jaxpr "layer".
        if (param.name == "name" && param.value.kind == JaxprParamValue::Kind::kJaxpr &&
            !param.value.text.empty()) {
          param.value.kind = JaxprParamValue::Kind::kName;
          param.value.jaxpr = ir::JaxprId();
        }
        CollectCalled(eqn, param.name, param.value);
        eqn.params.push_back(std::move(param));
      }
    }
    // Operands, up to the next equation, "in (", ";" or a closing bracket.
    for (;;) {
      const size_t before_trivia = pos_;
      SkipTrivia();
      const char c = Peek();
      if (c == '\0' || c == ';' || c == '}' || c == ')' || c == ']') break;
      const std::string_view word = PeekWord();
      if (word == "in" && CharAfterWord(word) == '(') break;
      if (StartsEquation()) break;
      if (word.empty() && !IsDigit(c) && c != '-' && c != '+' && c != '.' && c != '(' && c != '[') {
        return Error("expected an operand, the next equation or \"in\"");
      }
      (void)before_trivia;
      ASSIGN_OR_RETURN(ir::JaxprAtom atom, ParseOperand(scope));
      eqn.invars.push_back(std::move(atom));
    }
    return absl::OkStatus();
  }

  // "{ lambda consts ; invars . let eqns in (outs) }"
  absl::StatusOr<ir::JaxprId> ParseJaxprBody(ir::JaxprEqnId parent) {
    if (++nesting_ > kMaxNesting) return Error(StrCat("expected jaxprs nested at most ", kMaxNesting, " deep"));
    const size_t open_at = pos_;
    if (!Consume('{')) return Error("expected '{' opening a jaxpr");
    ir::Jaxpr jaxpr;
    jaxpr.id = ir::JaxprId(static_cast<int64_t>(module_.jaxprs.size()));
    jaxpr.parent = parent;
    jaxpr.input_line = LineOf(open_at);
    module_.jaxprs.push_back(jaxpr);
    const ir::JaxprId id = jaxpr.id;
    auto self = [&]() -> ir::Jaxpr& { return module_.jaxprs[static_cast<size_t>(id.value())]; };
    Scope scope;
    std::vector<std::string_view>* outer_comments = comments_;
    comments_ = nullptr;
    SkipTrivia();
    if (PeekWord() != "lambda") return Error("expected \"lambda\" after '{'");
    pos_ += 6;
    // Constant binders up to ';', then input binders up to '.'.
    for (int part = 0; part < 2; ++part) {
      const char end = part == 0 ? ';' : '.';
      for (;;) {
        SkipTrivia();
        if (Consume(end)) break;
        if (PeekWord().empty()) {
          return Error(part == 0 ? "expected a constant binder or ';'" : "expected an input binder or '.'");
        }
        ASSIGN_OR_RETURN(const ir::JaxprVarId v,
                         ParseBinder(scope, id, part == 0 ? ir::JaxprVar::Kind::kConst : ir::JaxprVar::Kind::kInput));
        (part == 0 ? self().constvars : self().invars).push_back(v);
      }
    }
    SkipTrivia();
    if (PeekWord() != "let") return Error("expected \"let\" after the binders");
    pos_ += 3;
    for (;;) {
      SkipTrivia();
      if (Consume(';')) continue;
      const std::string_view word = PeekWord();
      if (word == "in" && CharAfterWord(word) == '(') break;
      if (pos_ >= text_.size()) return Error("expected an equation or \"in (...)\"");
      RETURN_IF_ERROR(ParseEquation(scope, id));
    }
    pos_ += 2;
    SkipTrivia();
    if (!Consume('(')) return Error("expected '(' and the outputs");
    for (;;) {
      SkipTrivia();
      if (Consume(')')) break;
      ASSIGN_OR_RETURN(ir::JaxprAtom atom, ParseOperand(scope));
      self().outvars.push_back(std::move(atom));
      SkipTrivia();
      if (Consume(',')) continue;
      if (Peek() != ')') return Error("expected ',' or ')' after an output");
    }
    SkipTrivia();
    if (Consume(':')) {  // effects
      SkipTrivia();
      const size_t effects_at = pos_;
      if (!Consume('{')) return Error("expected '{' and the effects");
      const size_t close = text_.find('}', pos_);
      if (close == std::string_view::npos) return Error("expected '}' closing the effects");
      pos_ = close + 1;
      self().effects = std::string(text_.substr(effects_at, pos_ - effects_at));
      SkipTrivia();
    }
    if (!Consume('}')) return Error("expected '}' closing the jaxpr");
    comments_ = outer_comments;
    --nesting_;
    return id;
  }

  const SourceText& source_;
  std::string_view text_;
  size_t pos_;
  ir::JaxprModule module_;
  std::map<std::string, ir::JaxprId, std::less<>> shared_;
  std::vector<std::string_view>* comments_ = nullptr;
  ir::JaxprEqnId current_eqn_;
  size_t lookahead_until_ = 0;
  int nesting_ = 0;
};

}  // namespace

absl::StatusOr<ir::JaxprModule> ParseJaxpr(const SourceText& source) {
  JaxprParser parser(source, 0);
  return parser.ParseDocument(/*whole_text=*/true, nullptr);
}

absl::StatusOr<ir::JaxprModule> ParseJaxprAt(const SourceText& source, size_t offset, size_t* end) {
  JaxprParser parser(source, offset);
  return parser.ParseDocument(/*whole_text=*/false, end);
}

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// `text` without leading whitespace and whole-line comments.
std::string_view SkipBlankAndComments(std::string_view text) {
  for (;;) {
    size_t i = 0;
    while (i < text.size() && IsSpace(text[i])) ++i;
    text.remove_prefix(i);
    if (text.starts_with("#") || text.starts_with("//")) {
      const size_t eol = text.find('\n');
      text.remove_prefix(eol == std::string_view::npos ? text.size() : eol);
      continue;
    }
    return text;
  }
}

// Consumes `word` after optional whitespace.
bool Eat(std::string_view& text, std::string_view word) {
  size_t i = 0;
  while (i < text.size() && IsSpace(text[i])) ++i;
  if (text.substr(i, word.size()) != word) return false;
  text.remove_prefix(i + word.size());
  return true;
}

}  // namespace

bool LooksLikeJaxpr(std::string_view head) {
  std::string_view text = SkipBlankAndComments(head);
  if (Eat(text, "let")) {
    size_t i = 0;
    while (i < text.size() && IsSpace(text[i])) ++i;
    const size_t name = i;
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
    if (i == name) return false;
    text.remove_prefix(i);
    if (!Eat(text, "=")) return false;
  }
  return Eat(text, "{") && Eat(text, "lambda");
}

}  // namespace memplan::parsers
