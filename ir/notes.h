// What an input cannot tell, or how a number was derived, as data: a code
// and its numbers (and any text quoted from the input). Views word each code
// (viz/notes.h); libraries never build the sentence.
#ifndef MEMPLAN_IR_NOTES_H_
#define MEMPLAN_IR_NOTES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memplan::ir {

enum class NoteCode : uint16_t {
  // A line of the input worth repeating as it reads. texts: {line}.
  kQuotedFromInput,
  // An HloProto carries no HloLiveRange, so there is no live peak.
  kProtoHasNoLiveRanges,
  // The module text beside a dump could not be read, so instructions are
  // known only by the names the dump gives. texts: {path, why}.
  kNoModuleText,
  // An HLO module read without its buffer assignment: the graph, but no
  // allocations, schedule or live ranges.
  kModuleWithoutBufferAssignment,

  // OOM messages.
  // numbers: {bytes the failing allocation asked for}.
  kOomAllocationFailed,
  // Category totals are rounded as printed. texts: {an example}.
  kOomCategoriesRounded,
  // The message does not say which parameters are donated, so alias reads 0.
  // numbers: {excess of parameter+constant+output+temp over the total, or 0}.
  kOomAliasUnknown,
  // The TPU message states no total: total = argument + output - alias + temp.
  kOomNoStatedTotal,
  // Values are the message's buffer list. numbers: {1 for the GPU "Peak
  // buffers", 0 for the TPU "Largest program allocations"}.
  kOomValuesAreListedBuffers,
  // numbers: {buffers whose sizes are rounded as printed}.
  kOomRoundedBufferSizes,
  // The listed buffers' allocation types. texts: {type...}; numbers: {count...}.
  kOomAllocationTypes,

  // Any input.
  // The text was cleaned before it was read (parsers/input_text.h).
  // numbers: {byte-order mark 0/1, CRLF line ends, lone-CR line ends, colour
  // codes removed, lines a log prefix was removed from, continuation lines
  // joined, terminal width they were wrapped at (0: unknown)};
  // texts: {file, log prefix kind ("glog", "ray", ...) or ""}.
  kInputCleaned,
  // The input stops before the dump does: its numbers may be wrong (too few
  // allocations, values without live ranges, a cut peak list).
  // texts: {where the text stops ("file:line:col"), the part it stops in
  // ("allocations", "used-values", "schedule", "buffer-live-ranges",
  // "peak-list", ...), then what is missing, each one of: "partial-line",
  // "allocations", "total", "used-values", "schedule", "buffer-live-ranges",
  // "peak-list"};
  // numbers: {values (in allocations), used-value records, schedule steps
  // listed, schedule steps stated, values with no live range, peak entries
  // listed, live ranges at the stated peak step}.
  kInputEndsEarly,
  // The input lists no allocations and no values: nothing to measure.
  // texts: {file}.
  kInputListsNothing,
  // An OOM message says it does not know a size. texts: {what: "arguments",
  // "output"}.
  kOomSizeNotStated,

  // Memory-usage reports.
  // numbers: {rounded allocation sizes, allocations}; texts: {an example}.
  kReportRoundedAllocationSizes,
  // The newer report prints no allocation headers (each table one allocation)
  // and no categories.
  kReportNoAllocationHeaders,
  // numbers: {bytes of the stated total in no listed row}.
  kReportBytesOutsideRows,
  // Values are the report's table rows (one per offset).
  kReportValuesAreRows,
  // numbers: {small allocations left out}.
  kReportOmitsAllocations,
  // numbers: {rows left out, the percentage each is below}.
  kReportOmitsRows,
  // numbers: {value sizes rounded as printed}.
  kReportRoundedValueSizes,
};

// A stable keyword for `code` ("oom-allocation-failed"), for JSON.
std::string_view NoteCodeName(NoteCode code);

struct Note {
  NoteCode code;
  std::vector<int64_t> numbers;
  std::vector<std::string> texts;
  friend bool operator==(const Note&, const Note&) = default;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_NOTES_H_
