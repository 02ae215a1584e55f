// Parses XLA's buffer-assignment text dump into a Program.
//
// Understands the three layouts seen in the wild:
//   1. "*-buffer-assignment.txt" with the HloLiveRange appended (older XLA);
//   2. the same without the HloLiveRange;
//   3. the newest split into "*-buffer-assignment.txt",
//      "*-buffer-assignment-values.txt" and "*-live-range.txt".
// For (3) pass all files of one module; sections are recognised by their
// headers, whichever file holds them.
//
// One hand-written pass over the text, no regular expressions. Malformed
// lines of a known kind are errors ("file:line:col: error: expected ...");
// lines or attributes of unknown kinds are counted as warnings in
// Program::diagnostics and skipped.
#ifndef MEMPLAN_PARSERS_BUFFER_ASSIGNMENT_PARSER_H_
#define MEMPLAN_PARSERS_BUFFER_ASSIGNMENT_PARSER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/program.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// `files` must not be empty; the first is the main buffer-assignment file.
// Reads into `program` (ir::Program::Named(name), or one holding the
// module's graph read from its text, which the dump's names then resolve
// against) and returns it. What it keeps of the files' text (names, shape
// texts, metadata) are copies the program owns (parsers/text_arena.h): the
// program does not keep the files alive, and no view in it points into them.
absl::StatusOr<ir::Program> ParseBufferAssignment(
    const std::vector<std::shared_ptr<const SourceText>>& files, ir::Program program);

// True if `text` starts like a buffer-assignment dump (used to sniff inputs).
bool LooksLikeBufferAssignment(std::string_view text);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_BUFFER_ASSIGNMENT_PARSER_H_
