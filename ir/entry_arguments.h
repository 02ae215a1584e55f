// A program's entry arguments as a plan addresses them: parameter number,
// the pytree path JAX writes into the parameter's op_name, and the shape.
// Shared by plan files (parsers/plan_parser.h) and plan families
// (analyzer/plan_families.h).
#ifndef MEMPLAN_IR_ENTRY_ARGUMENTS_H_
#define MEMPLAN_IR_ENTRY_ARGUMENTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "ir/shape.h"

namespace memplan::ir {

struct EntryArgument {
  int64_t parameter = 0;  // entry parameter number
  std::string name;       // op_name unescaped ("params['w_q']"); may be empty
  Shape shape;            // the parameter's shape (an array for JAX programs)
  // The program may reuse its buffer: it is in input_output_alias or
  // buffer_donor (JAX's donate_argnums).
  bool donated = false;
};

// The entry computation's parameters in parameter order. A name is the
// parameter's op_name metadata with HLO text's escapes (\' \" \\) undone.
// `donated` from the module header's aliases and donors.
// InvalidArgument when the module has no entry computation or a parameter
// number is missing.
absl::StatusOr<std::vector<EntryArgument>> EntryArguments(const Module& module);

// The entry computation's outputs: the root shape's array leaves in order
// (one element for an array root).
std::vector<Shape> EntryOutputs(const Module& module);

// `text` with backslash escapes of ', " and \ undone.
std::string UnescapeOpName(std::string_view text);

// The top-level name of a pytree path: the text before the first '[' or
// '.' ("params" for "params['w']"; "x" for "x").
std::string_view PytreeTop(std::string_view name);

// Whether `glob` matches all of `name`: '*' any run of characters
// (possibly empty), '?' one character, every other character literal.
bool GlobMatches(std::string_view glob, std::string_view name);

// Whether `text` holds a glob character ('*' or '?').
bool IsGlob(std::string_view text);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_ENTRY_ARGUMENTS_H_
