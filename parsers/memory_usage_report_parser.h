// Parses XLA's "*-memory-usage-report.txt" into a Program, in both styles:
//
//   2024 ("Total bytes used:" style):
//     Total bytes used: 4724784 (4.51MiB)
//     Allocations sorted by size:
//     cumulative_size; total_size - cumulative_size; allocation
//       1.00MiB( 22%);    3.51MiB; allocation 0: size 1.00MiB, parameter 0, ...:
//     Allocations sorted by size with their values:
//     allocation 5: size 416.0KiB, preallocated-temp:
//     <tab>cumulative_size;       size;       offset; used_by_n_values; shapes_list
//     <tab> 128.0KiB( 31%);   128.0KiB;            0;                1; f32[64,512]
//
//   newest ("Memory Space:" style): per memory space a "Total bytes:" line and
//     one table per allocation, with no allocation header.
//
// What the Program gets: the stated total (exact); allocations where the
// report has their headers (2024 style; sizes exact where the text or the
// shapes pin them down, else rounded as printed, said in Program::notes), or
// one allocation per table (newest style; size = end of its last row); one
// value per table row (offset exact, size = the largest byte size of the
// row's shapes). Program::notes says what the report cannot tell.
//
// One hand-written pass, no regular expressions. Malformed lines of a known
// kind are errors ("file:line:col: error: expected ..."); unknown lines are
// counted as warnings and skipped.
#ifndef MEMPLAN_PARSERS_MEMORY_USAGE_REPORT_PARSER_H_
#define MEMPLAN_PARSERS_MEMORY_USAGE_REPORT_PARSER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/program.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// Reads `files.front()` (one report per module); InvalidArgument when
// `files` does not hold exactly one file.
absl::StatusOr<ir::Program> ParseMemoryUsageReport(
    const std::vector<std::shared_ptr<const SourceText>>& files, ir::Program program);

// Sniff rule: `head` starts with "Total bytes used:" followed by "Allocations
// sorted by size", or with "Memory Space:"; or `file_name` ends with
// "-memory-usage-report.txt".
bool LooksLikeMemoryUsageReport(std::string_view head, std::string_view file_name);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_MEMORY_USAGE_REPORT_PARSER_H_
