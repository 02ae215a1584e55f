#include "parsers/jaxpr_parser.h"

#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/jaxpr_reader.h"

namespace memplan::parsers {
namespace jaxpr_internal {

absl::StatusOr<ir::JaxprModule> JaxprParser::ParseDocument(bool whole_text, size_t* end) {
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

bool JaxprParser::StartsEquation() {
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

void JaxprParser::CollectCalled(ir::JaxprEqn& eqn, const std::string& role, const JaxprParamValue& v) {
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

void JaxprParser::ReadAnnotations(ir::JaxprEqn& eqn, const std::vector<std::string_view>& comments) {
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

absl::Status JaxprParser::ParseEquation(Scope& scope, ir::JaxprId jaxpr_id) {
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

absl::Status JaxprParser::ParseEquationParts(Scope& scope, ir::JaxprId jaxpr_id, ir::JaxprEqn& eqn) {
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

absl::Status JaxprParser::ParseBinders(Scope& scope, ir::JaxprId id) {
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
      ir::Jaxpr& self = module_.jaxprs[static_cast<size_t>(id.value())];
      (part == 0 ? self.constvars : self.invars).push_back(v);
    }
  }
  return absl::OkStatus();
}

absl::Status JaxprParser::ParseEquations(Scope& scope, ir::JaxprId id) {
  for (;;) {
    SkipTrivia();
    if (Consume(';')) continue;
    const std::string_view word = PeekWord();
    if (word == "in" && CharAfterWord(word) == '(') break;
    if (pos_ >= text_.size()) return Error("expected an equation or \"in (...)\"");
    RETURN_IF_ERROR(ParseEquation(scope, id));
  }
  pos_ += 2;
  return absl::OkStatus();
}

absl::Status JaxprParser::ParseOutputs(Scope& scope, ir::JaxprId id) {
  auto self = [&]() -> ir::Jaxpr& { return module_.jaxprs[static_cast<size_t>(id.value())]; };
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
  return absl::OkStatus();
}

absl::StatusOr<ir::JaxprId> JaxprParser::ParseJaxprBody(ir::JaxprEqnId parent) {
  if (++nesting_ > kMaxNesting) return Error(StrCat("expected jaxprs nested at most ", kMaxNesting, " deep"));
  const size_t open_at = pos_;
  if (!Consume('{')) return Error("expected '{' opening a jaxpr");
  ir::Jaxpr jaxpr;
  jaxpr.id = ir::JaxprId(static_cast<int64_t>(module_.jaxprs.size()));
  jaxpr.parent = parent;
  jaxpr.input_line = LineOf(open_at);
  module_.jaxprs.push_back(jaxpr);
  const ir::JaxprId id = jaxpr.id;
  Scope scope;
  std::vector<std::string_view>* outer_comments = comments_;
  comments_ = nullptr;
  SkipTrivia();
  if (PeekWord() != "lambda") return Error("expected \"lambda\" after '{'");
  pos_ += 6;
  RETURN_IF_ERROR(ParseBinders(scope, id));
  SkipTrivia();
  if (PeekWord() != "let") return Error("expected \"let\" after the binders");
  pos_ += 3;
  RETURN_IF_ERROR(ParseEquations(scope, id));
  SkipTrivia();
  RETURN_IF_ERROR(ParseOutputs(scope, id));
  if (!Consume('}')) return Error("expected '}' closing the jaxpr");
  comments_ = outer_comments;
  --nesting_;
  return id;
}

}  // namespace jaxpr_internal

using jaxpr_internal::JaxprParser;

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
