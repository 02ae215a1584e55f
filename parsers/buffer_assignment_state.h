// Internal to the buffer-assignment parser: the state one parse carries
// across lines and files, and the per-section line handlers.
#ifndef MEMPLAN_PARSERS_BUFFER_ASSIGNMENT_STATE_H_
#define MEMPLAN_PARSERS_BUFFER_ASSIGNMENT_STATE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "ir/program.h"
#include "parsers/cursor.h"
#include "parsers/source_text.h"

namespace memplan::parsers::internal {

enum class Section { kNone, kAllocations, kUsedValues, kLiveRange };
enum class LiveRangePart { kNone, kSequence, kBufferLiveRange, kPeak, kOther };
enum class UsedValuePart { kNone, kPositions, kUses };

// A BufferLiveRange line before it is matched to a value by name.
struct RawLiveRange {
  std::string_view instruction;
  ir::ShapeIndex index;
  ir::LiveRange range;
  const SourceText* source;
  const char* at;
};

struct ParseState {
  ir::Program program;
  const SourceText* source = nullptr;
  int64_t line_number = 0;
  const char* line_start = nullptr;

  Section section = Section::kNone;
  LiveRangePart live_range_part = LiveRangePart::kNone;
  UsedValuePart used_value_part = UsedValuePart::kNone;
  int64_t current_allocation = -1;  // index into program.allocations
  int64_t current_used_value = -1;  // index into program.values
  bool in_color_reuse_block = false;

  absl::flat_hash_map<int64_t, size_t> value_index_by_id;
  absl::flat_hash_set<int64_t> allocation_ids;
  std::vector<RawLiveRange> raw_live_ranges;
  int64_t recognised_lines = 0;

  // Index of the value with `id` in program.values, created if new.
  size_t ValueIndex(int64_t id);

  // Counts a recoverable problem at `at` (a pointer into the current line).
  void Warn(std::string_view kind, const char* at);
  absl::Status Error(const char* at, std::string_view expected) const {
    return source->ErrorAt(at, expected);
  }
};

// "<661 p5.32.0 @0>", "<706 tuple.810.0{} @0>", "<12 x{1} (phi) @2>".
struct ValueRef {
  int64_t id = 0;
  std::string_view instruction;
  ir::ShapeIndex index;
  bool is_phi = false;
  int64_t color = 0;
};
absl::Status ParseValueRef(ParseState& state, Cursor& c, ValueRef* ref);

absl::Status ParseAllocationHeader(ParseState& state, Cursor c);
absl::Status ParseAssignedValue(ParseState& state, Cursor c);
absl::Status ParseColorReuseValue(ParseState& state, Cursor c);
absl::Status ParseUsedValueLine(ParseState& state, std::string_view line);
absl::Status ParseLiveRangeLine(ParseState& state, std::string_view line);

// After all files: sorts, matches live ranges to values, checks invariants.
void FinishProgram(ParseState& state);

}  // namespace memplan::parsers::internal

#endif  // MEMPLAN_PARSERS_BUFFER_ASSIGNMENT_STATE_H_
