// Internal to the buffer-assignment parser: the state one parse carries
// across lines and files, and the per-section line handlers.
#ifndef MEMPLAN_PARSERS_BUFFER_ASSIGNMENT_STATE_H_
#define MEMPLAN_PARSERS_BUFFER_ASSIGNMENT_STATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "ir/program.h"
#include "parsers/cursor.h"
#include "parsers/instruction_names.h"
#include "parsers/line_position.h"
#include "parsers/source_text.h"
#include "parsers/text_arena.h"

namespace memplan::parsers::internal {

enum class Section { kNone, kAllocations, kUsedValues, kLiveRange };

// Bounds that keep the sums the analyses take inside int64; no real program
// comes near them. A byte count is at most 2^50 (1 PiB), the byte counts of
// one kind (allocation sizes, value sizes, the peak list) sum to at most
// 2^60, and a schedule step lies within +-2^40.
inline constexpr int64_t kMaxBytes = int64_t{1} << 50;
inline constexpr int64_t kMaxBytesSum = int64_t{1} << 60;
inline constexpr int64_t kMaxStep = int64_t{1} << 40;

enum class LiveRangePart { kNone, kSequence, kBufferLiveRange, kPeak, kOther };
enum class UsedValuePart { kNone, kPositions, kUses };

// A BufferLiveRange line before it is matched to a value by name.
struct RawLiveRange {
  ir::InstructionId instruction;
  ir::ShapeIndex index;
  ir::LiveRange range;
  const SourceText* source;
  const char* at;
};

// Which sections the files held, and where the text stopped: the facts
// FinishProgram checks to tell a dump cut short (see kInputEndsEarly).
struct SectionsRead {
  bool header = false;          // "BufferAssignment:"
  int64_t allocations = 0;
  bool total = false;           // "Total bytes used:"
  bool used_values = false;     // "Used values:"
  int64_t used_value_records = 0;
  bool last_record_whole = true;  // the last "<id ...>" record got its "from instruction"
  bool live_range = false;      // "HloLiveRange (max N):"
  bool sequence = false;        // "  InstructionSequence:"
  bool buffer_live_ranges = false;  // "  BufferLiveRange:"
  bool peak = false;            // "  Live ranges at N (peak):"
  // The last file's last non-blank line: "file:line", and what it was in.
  std::string last_location;
  std::string last_section;     // "allocations", "used-values", "schedule", ...
  // A last line without its line end that did not parse, dropped:
  // "file:line:col" where it stops.
  std::string partial_line_location;
};

struct ParseState : LinePosition {
  ir::Program program;
  // Copies of every text the program keeps from the dump (names, shape
  // texts, metadata; equal texts once): the program keeps the arena alive,
  // not the dump, which is let go when the parse ends.
  std::shared_ptr<TextArena> arena = std::make_shared<TextArena>();
  TextInterner interner{*arena};
  // Resolves names against program.module (which may hold the module's
  // text, read first); names it adds and facts it records are copies.
  InstructionNames names{program.module};

  // The text after the current line (for a section that counts its lines
  // ahead, to reserve exactly).
  std::string_view rest;
  Section section = Section::kNone;
  LiveRangePart live_range_part = LiveRangePart::kNone;
  UsedValuePart used_value_part = UsedValuePart::kNone;
  int64_t current_allocation = -1;  // index into program.allocations
  int64_t current_used_value = -1;  // index into program.values
  bool in_color_reuse_block = false;

  // Index into program.values by value id (see ValueIndex): a table for
  // the small, dense ids dumps use, a hash map for any others.
  std::vector<uint32_t> value_index_dense;
  absl::flat_hash_map<int64_t, size_t> value_index_by_id;
  absl::flat_hash_set<int64_t> allocation_ids;
  std::vector<RawLiveRange> raw_live_ranges;
  int64_t recognised_lines = 0;
  SectionsRead read;
  // Running sums checked against kMaxBytesSum.
  int64_t allocation_bytes = 0;
  int64_t value_bytes = 0;
  int64_t stated_peak_bytes = 0;

  explicit ParseState(ir::Program start) : program(std::move(start)) {
    names.CopyTextsInto(arena.get(), &interner);
  }
  ParseState(const ParseState&) = delete;  // `names` refers to `program`
  ParseState& operator=(const ParseState&) = delete;

  // Index of the value with `id` in program.values, created if new.
  size_t ValueIndex(int64_t id);

  // Counts a recoverable problem at `at` (a pointer into the current line).
  void Warn(std::string_view kind, const char* at);
  // An error at `at` unless 0 <= bytes <= kMaxBytes and, when `sum` is
  // given, the sum plus `bytes` stays within kMaxBytesSum (then added).
  absl::Status CheckBytes(const char* at, int64_t bytes, int64_t* sum = nullptr) const {
    if (bytes < 0 || bytes > kMaxBytes) {
      return Error(at, "expected a byte count between 0 and 2^50");
    }
    if (sum != nullptr) {
      if (*sum > kMaxBytesSum - bytes) {
        return Error(at, "expected byte counts that sum to at most 2^60");
      }
      *sum += bytes;
    }
    return absl::OkStatus();
  }
  // An error at `at` unless -kMaxStep <= step <= kMaxStep.
  absl::Status CheckStep(const char* at, int64_t step) const {
    if (step < -kMaxStep || step > kMaxStep) {
      return Error(at, "expected a schedule step between -2^40 and 2^40");
    }
    return absl::OkStatus();
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
