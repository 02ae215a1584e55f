// Parses jaxpr text as JAX prints it (str(jax.make_jaxpr(f)(...)) and
// Jaxpr.pretty_print(source_info=True, name_stack=True)), from jax 0.2's
// untyped binders ("let c = add a b") to today's typed ones
// ("c:f32[3] = add a 1.0:f32[]"):
//
//   let shared = { lambda ; a:f32[4]. let ... in (b,) } in   (shared jaxprs)
//   { lambda c:f32[2,3]; d:f32[2,3] e:bool[]. let
//       f:f32[2,3] = dot_general[
//         dimension_numbers=(([1], [0]), ([], []))
//         preferred_element_type=float32
//       ] d c
//       g:f32[2,3] = pjit[name=inner jaxpr={ lambda ; ... }] f
//       h:f32[2,3] = cond[branches=(
//         { lambda ; ... } { lambda ; ... }
//       )] e g
//     in (h,) }
//
// Equations may also be joined by "; " on one line. "#" and "//" start
// comments to the end of the line (seed 003 carries hand-written ones); a
// comment "file:line:col (function)" or "[name/stack]" after an equation,
// as JAX prints with source_info / name_stack, is kept on the equation.
// Errors name file:line:col and what was expected there.
#ifndef MEMPLAN_PARSERS_JAXPR_PARSER_H_
#define MEMPLAN_PARSERS_JAXPR_PARSER_H_

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/jaxpr.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// The whole text is one document: shared jaxprs, then the main one, then
// only whitespace and comments.
absl::StatusOr<ir::JaxprModule> ParseJaxpr(const SourceText& source);

// One jaxpr document starting at byte `offset` (at "{" or "let", after
// whitespace); `*end` receives the offset just past it. For jaxprs inside
// other text (Alpa's logs).
// Sniff rule: after whitespace and "#" / "//" comment lines, the text starts
// a jaxpr document: "{ lambda" or "let NAME = { lambda".
bool LooksLikeJaxpr(std::string_view head);

absl::StatusOr<ir::JaxprModule> ParseJaxprAt(const SourceText& source, size_t offset, size_t* end);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_JAXPR_PARSER_H_
