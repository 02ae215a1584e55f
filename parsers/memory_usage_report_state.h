// Internal to the memory-usage report parser: the state one parse carries
// across lines, and the step that settles sizes and notes once every line is
// read (memory_usage_report_finish.cc).
#ifndef MEMPLAN_PARSERS_MEMORY_USAGE_REPORT_STATE_H_
#define MEMPLAN_PARSERS_MEMORY_USAGE_REPORT_STATE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/program.h"
#include "parsers/human_bytes.h"
#include "parsers/line_position.h"

namespace memplan::parsers::internal {

enum class Style { kAllocations2024, kMemorySpaces };
// 2024 style: before "Allocations sorted by size:", in its summary, or in
// "... with their values:". The newest style has only memory spaces.
enum class Section { kTop, kSummary, kWithValues, kMemorySpace };

// What the parse learns about an allocation beyond the IR's fields.
struct AllocationFacts {
  HumanBytes printed;       // 2024 style: the size as the header prints it
  std::string_view header;  // the header as first seen, for comparing repeats
  int64_t rows_end = 0;     // largest offset + size over its rows
  bool rows_exact = true;   // every row's size is exact
  bool truncated = false;   // "The rest N values ..." follows its table
  bool has_table = false;
  bool size_exact = false;  // after Finish: size known to the byte
};

struct ReportState : LinePosition {
  ir::Program program;
  Style style = Style::kAllocations2024;
  Section section = Section::kTop;

  std::vector<AllocationFacts> facts;  // parallel to program.allocations
  absl::flat_hash_map<int64_t, size_t> index_by_id;
  int64_t current_allocation = -1;  // index into program.allocations
  bool in_table = false;
  bool expect_dashes = false;
  bool summary_rows = false;
  bool with_values_seen = false;
  bool excerpt = false;  // allocation headers with no heading before them

  // Newest style: the memory space being read and the sum of "Total bytes".
  int64_t color = 0;
  bool in_memory_space = false;
  bool color_total_seen = false;
  int64_t stated_sum = 0;
  bool any_color_total = false;

  // Sums kept below kMaxTotalBytes.
  int64_t value_bytes = 0;
  int64_t allocation_bytes = 0;

  // For notes.
  int64_t omitted_allocations = 0;
  int64_t omitted_rows = 0;
  int64_t rounded_rows = 0;
  int64_t percentile = 0;

  void Warn(std::string_view kind, const char* at) { WarnAt(program.diagnostics, kind, at); }
};

// After the last line: each allocation's size (exact where the text pins it
// down, else as printed), the notes on what the report leaves out or rounds,
// allocations sorted by id, and a warning for each value that extends past
// its allocation's end.
void FinishReport(ReportState& state);

}  // namespace memplan::parsers::internal

#endif  // MEMPLAN_PARSERS_MEMORY_USAGE_REPORT_STATE_H_
