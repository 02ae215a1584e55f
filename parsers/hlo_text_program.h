// An HLO module's text as a memplan input: alone (a Program holding only the
// graph: no buffer assignment, so no allocations or live ranges), or beside
// a buffer-assignment dump, where it gives the graph the dump's names
// resolve to.
#ifndef MEMPLAN_PARSERS_HLO_TEXT_PROGRAM_H_
#define MEMPLAN_PARSERS_HLO_TEXT_PROGRAM_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/program.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// Reads `source` into `program`'s module, which must be empty, and keeps the
// text alive with the program. The module's name becomes the program's when
// the program has none.
absl::Status ReadModuleText(std::shared_ptr<const SourceText> source, ir::Program& program);

// The loader's entry for an HLO text file read on its own: `files` holds
// one file.
absl::StatusOr<ir::Program> ParseHloTextProgram(
    const std::vector<std::shared_ptr<const SourceText>>& files, ir::Program program);

// Sniff rule: the text starts like an HLO module ("HloModule name, ...").
bool LooksLikeHloTextProgram(std::string_view head, std::string_view file_name);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_HLO_TEXT_PROGRAM_H_
