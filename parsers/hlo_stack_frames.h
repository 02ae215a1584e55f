// Reads the stack-frame tables at the top of an HLO module's text
// ("FileNames", "FunctionNames", "FileLocations", "StackFrames"), which newer
// XLA prints instead of source_file/source_line in each instruction's
// metadata (metadata then says stack_frame_id=N).
#ifndef MEMPLAN_PARSERS_HLO_STACK_FRAMES_H_
#define MEMPLAN_PARSERS_HLO_STACK_FRAMES_H_

#include <vector>

#include "absl/status/status.h"
#include "ir/program.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// Appends the frames `source` holds to `frames` (frame N at index N-1).
// Stops at the first computation. A module text without the tables adds
// nothing. In the text, parent_frame_id is printed one above the id the
// HloProto stores (the proto's "no parent" 0 prints as 1): the frames read
// here use the proto's ids, so both inputs attribute alike.
absl::Status ParseHloStackFrames(const SourceText& source, std::vector<ir::SourceFrame>* frames);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_HLO_STACK_FRAMES_H_
