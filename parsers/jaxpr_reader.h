// The jaxpr reader behind ParseJaxpr (parsers/jaxpr_parser.h): one pass
// over the text, a cursor with the position of every error. Its methods
// are in jaxpr_parser.cc (documents, jaxpr bodies, equations) and
// jaxpr_terms.cc (trivia, types, binders, literals, operands, parameter
// values). Internal to parsers/.
#ifndef MEMPLAN_PARSERS_JAXPR_READER_H_
#define MEMPLAN_PARSERS_JAXPR_READER_H_

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/jaxpr.h"
#include "parsers/source_text.h"

namespace memplan::parsers::jaxpr_internal {

using ir::JaxprParamValue;

// How deep jaxprs and parameter values may nest.
inline constexpr int kMaxNesting = 200;

inline bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Literal spellings that look like names.
inline bool IsLiteralWord(std::string_view w) {
  return w == "True" || w == "False" || w == "nan" || w == "inf" || w == "None";
}

class JaxprParser {
 public:
  JaxprParser(const SourceText& source, size_t offset)
      : source_(source), text_(source.text()), pos_(std::min(offset, source.text().size())) {
    module_.source_name = source.name();
  }

  absl::StatusOr<ir::JaxprModule> ParseDocument(bool whole_text, size_t* end);

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
  void SkipTrivia();
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
  char CharAfterWord(std::string_view word);

  int64_t LineOf(size_t offset) const { return source_.Locate(offset).line; }

  // --- avals ------------------------------------------------------------
  // "f32[2,3]", "bool[]", "key<fry>[]", "f32<host>[4]", "f32[4@x,4]{V:x}".
  absl::StatusOr<ir::JaxprAval> ParseAval();
  // Skips the "<fry>" / "<host>" tags after dtype `name`, appending the first
  // tag of a "key" dtype to `dtype_name`.
  absl::Status ParseAvalTags(std::string_view name, std::string& dtype_name);
  // One dimension and its "@x" / "@(x,y)" mesh axes: its size, or -1 for a
  // symbolic (named) dimension.
  absl::StatusOr<int64_t> ParseAvalDim();
  // Skips a "{V:x, U:(x,y)}" axes suffix, which must close on its line.
  absl::Status SkipAvalAxes();

  // --- binders and operands ----------------------------------------------
  struct Scope {
    std::map<std::string, ir::JaxprVarId, std::less<>> names;
  };

  absl::StatusOr<ir::JaxprVarId> ParseBinder(Scope& scope, ir::JaxprId jaxpr, ir::JaxprVar::Kind kind);

  // A literal: 1.0, -2, 1e-05, 1j, (1+2j), nan, inf, -inf, True, [...],
  // each optionally typed ":f32[]".
  absl::StatusOr<ir::JaxprAtom> ParseLiteral();

  absl::StatusOr<ir::JaxprAtom> ParseOperand(const Scope& scope);

  // Whether the text at pos_ starts the next equation: names (each maybe
  // typed) up to a single '='. Remembers how far it looked so that a long
  // operand list is scanned once.
  bool StartsEquation();

  // --- parameter values -------------------------------------------------
  absl::StatusOr<JaxprParamValue> ParseSequence(char close, JaxprParamValue::Kind kind, int depth);

  absl::StatusOr<JaxprParamValue> ParseValue(int depth);
  // At '{': a jaxpr ("{ lambda ...") or a braced sequence.
  absl::StatusOr<JaxprParamValue> ParseBraced(int depth);
  // At a quote: a string that closes on its line.
  absl::StatusOr<JaxprParamValue> ParseQuoted();
  // At a name: a call name(...), a shared jaxpr's name, or a plain name.
  absl::StatusOr<JaxprParamValue> ParseNamed(int depth);
  // Skips <...> (nested, on its line); an error when it does not close.
  absl::Status SkipAngled();
  // Skips a number's characters (digits, '.', exponent signs).
  void SkipNumber();

  // --- equations and jaxprs ---------------------------------------------
  void CollectCalled(ir::JaxprEqn& eqn, const std::string& role, const JaxprParamValue& v);

  void ReadAnnotations(ir::JaxprEqn& eqn, const std::vector<std::string_view>& comments);

  absl::Status ParseEquation(Scope& scope, ir::JaxprId jaxpr_id);

  absl::Status ParseEquationParts(Scope& scope, ir::JaxprId jaxpr_id, ir::JaxprEqn& eqn);

  // "{ lambda consts ; invars . let eqns in (outs) }"
  absl::StatusOr<ir::JaxprId> ParseJaxprBody(ir::JaxprEqnId parent);
  // After "lambda": constant binders up to ';', then input binders up to '.'.
  absl::Status ParseBinders(Scope& scope, ir::JaxprId id);
  // After "let": equations up to "in (".
  absl::Status ParseEquations(Scope& scope, ir::JaxprId id);
  // At "(": the outputs, then optional ": {effects}".
  absl::Status ParseOutputs(Scope& scope, ir::JaxprId id);

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

}  // namespace memplan::parsers::jaxpr_internal

#endif  // MEMPLAN_PARSERS_JAXPR_READER_H_
