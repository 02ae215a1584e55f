// Strict well-formedness checks for the documents memplan writes, used by the
// view fuzzer (fuzz/view_fuzzer.cc) and the output-injection test: each
// returns nothing when the document is well-formed, else what is wrong and at
// which byte offset. They check the rules a consumer relies on, without a
// third-party parser (the fuzz build links no XML library).
#ifndef MEMPLAN_FUZZ_MARKUP_CHECK_H_
#define MEMPLAN_FUZZ_MARKUP_CHECK_H_

#include <optional>
#include <string>
#include <string_view>

namespace memplan::fuzz {

// Valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF),
// and no control character but tab, newline and carriage return.
std::optional<std::string> TextProblem(std::string_view text);

// An XML 1.0 document (JUnit, SVG): an optional declaration and DOCTYPE
// (without an internal subset), one root element, tags nested and matched,
// attributes quoted and not repeated within a tag, '<' only as markup, '&'
// only as a predefined or character reference to a valid XML character, no
// "]]>" in text, comments without "--", characters XML 1.0 allows.
std::optional<std::string> XmlProblem(std::string_view xml);

// memplan's HTML pages: "<!DOCTYPE html>" first, TextProblem's rules, every
// '<' outside <script>/<style> starting a tag, a comment or the doctype;
// attributes quoted (or bare names), none an event handler ("on...") and no
// "javascript:" URL; elements other than HTML's void ones closed in order
// (SVG's self-closing ones too); <script> and <style> text holding no "</"
// nor "<!--"; '&' only as a reference.
std::optional<std::string> HtmlProblem(std::string_view html);

// A Graphviz DOT graph: TextProblem's rules, "digraph" or "graph" first,
// double-quoted strings closed on their line (escapes only before a
// character), no HTML-like label, comments closed, braces and brackets
// balanced outside strings and comments, nothing after the closing brace
// but whitespace.
std::optional<std::string> DotProblem(std::string_view dot);

// JSON that llvm::json::parse reads, in valid UTF-8 (no raw C0 controls in
// strings: the parser refuses them; DEL is allowed, as RFC 8259 allows it).
std::optional<std::string> JsonProblem(std::string_view json);

}  // namespace memplan::fuzz

#endif  // MEMPLAN_FUZZ_MARKUP_CHECK_H_
