// Parses the text XLA prints when a program runs out of device memory, as
// found in a log or an exception message, into a Program:
//
//   GPU/CPU (BufferAssignment::ToVerboseString, possibly after a
//   "RESOURCE_EXHAUSTED: Out of memory while trying to allocate N bytes."
//   line, a traceback, or a log prefix on every line):
//     BufferAssignment OOM Debugging.
//     BufferAssignment stats:
//                  parameter allocation:    6.00MiB
//     ...
//     Peak buffers:
//     <tab>Buffer 1:
//     <tab><tab>Size: 6.00MiB
//     <tab><tab>Operator: op_name="jit(f)/concatenate" source_file="m.py" source_line=689
//     <tab><tab>XLA Label: concatenate
//     <tab><tab>Shape: f32[4096,128,3]
//     <tab><tab>==========================
//
//   TPU ("Ran out of memory in memory space hbm. ..."): "Total hbm usage",
//   "Output size X; shares Y with arguments.", "Program hbm requirement" with
//   "HLO temp", and "Largest program allocations in hbm:" whose entries carry
//   "N. Size:", "Operator:", "Shape:", "XLA label:", "Allocation type:".
//
// What the Program gets: Program::stated_categories from the stats (sizes
// rounded as printed, said in Program::notes); one value per peak buffer
// (id = its number; size, shape, opcode, metadata). No allocations, schedule
// or live ranges: the message has none.
//
// Text before the message and after its last buffer is skipped. Inside the
// message, malformed lines of a known kind are errors ("file:line:col:
// error: expected ..."); unknown ones are counted as warnings.
#ifndef MEMPLAN_PARSERS_OOM_MESSAGE_PARSER_H_
#define MEMPLAN_PARSERS_OOM_MESSAGE_PARSER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/program.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

inline constexpr std::string_view kOomMarker = "BufferAssignment OOM Debugging.";
inline constexpr std::string_view kTpuOomMarker = "Ran out of memory in memory space ";

// Reads `files.front()`; InvalidArgument when `files` does not hold exactly
// one file. Only the first message of a log is read (a warning says so when
// more follow).
absl::StatusOr<ir::Program> ParseOomMessage(
    const std::vector<std::shared_ptr<const SourceText>>& files, ir::Program program);

// Sniff rule: `head` contains "BufferAssignment OOM Debugging." or the TPU
// "Ran out of memory in memory space ".
bool LooksLikeOomMessage(std::string_view head, std::string_view file_name);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_OOM_MESSAGE_PARSER_H_
