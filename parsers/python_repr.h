// A reader for the Python reprs in which JAX and PyTorch print meshes,
// partition specs and placements: names, quoted strings, integers and
// punctuation, each with its byte offset, and the helpers the sharding
// parsers share (located errors, keyword arguments, nested int lists).
#ifndef MEMPLAN_PARSERS_PYTHON_REPR_H_
#define MEMPLAN_PARSERS_PYTHON_REPR_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

struct PyToken {
  enum class Kind { kName, kString, kInt, kFloat, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;   // the name, the string's contents, the number, the punctuation
  int64_t value = 0;  // kInt
  size_t offset = 0;  // byte offset in the source
};

// Splits `source` into tokens (the last is kEnd). Names may hold '.', so
// "jax.sharding.Mesh" is one name. InvalidArgument, located, on an
// unterminated string, an integer beyond 2^40, or a character that has no
// place in these reprs.
absl::StatusOr<std::vector<PyToken>> TokenizePython(const SourceText& source);

// A cursor over the tokens with located errors.
class PyReader {
 public:
  PyReader(const SourceText& source, std::vector<PyToken> tokens)
      : source_(source), tokens_(std::move(tokens)) {}

  const PyToken& Peek(size_t ahead = 0) const;
  const PyToken& Next();
  bool AtEnd() const { return Peek().kind == PyToken::Kind::kEnd; }
  bool IsPunct(std::string_view p, size_t ahead = 0) const;
  bool IsName(std::string_view name, size_t ahead = 0) const;
  // Consumes the punctuation if it is next.
  bool TakePunct(std::string_view p);
  // The name of the call argument that comes next: a keyword's name
  // ("dim=0": consumes "dim ="), else positional[*index] (and counts it in
  // *index), else "" past the positional names.
  std::string TakeArgumentName(std::initializer_list<std::string_view> positional, size_t* index);
  // Consumes `p` or fails with "expected <what>" at the next token.
  absl::Status ExpectPunct(std::string_view p, std::string_view what);
  // "name:line:col: error: <message>" at the token.
  absl::Status ErrorAt(const PyToken& token, std::string_view message) const;
  absl::Status ErrorAtNext(std::string_view message) const { return ErrorAt(Peek(), message); }

  // A possibly negative integer.
  absl::StatusOr<int64_t> ExpectInt(std::string_view what);
  // A nested list or tuple of integers, or numpy's "array([...])": fills
  // `shape` with its nesting dims and `values` row-major. InvalidArgument,
  // located, on ragged nesting.
  absl::Status ExpectIntArray(std::vector<int64_t>* shape, std::vector<int64_t>* values);
  // Skips one balanced value (a name, string, number or bracketed group,
  // with any call parentheses after a name).
  absl::Status SkipValue();

  const SourceText& source() const { return source_; }

 private:
  const SourceText& source_;
  std::vector<PyToken> tokens_;
  size_t next_ = 0;
};

// Whether `t` is the name `name`, alone or as the last part of a dotted
// name ("jax.sharding.Mesh" ends with "Mesh").
bool EndsWithName(const PyToken& t, std::string_view name);

// A reader over `source`'s tokens.
absl::StatusOr<PyReader> OpenPython(const SourceText& source);

// OK at the end of the tokens, else "expected the end of the <what>".
absl::Status ExpectEnd(PyReader& reader, std::string_view what);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_PYTHON_REPR_H_
