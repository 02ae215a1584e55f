// The HloLiveRange section (appended to the buffer assignment, or in its own
// "-live-range.txt"):
//
//   HloLiveRange (max 166):
//     InstructionSequence:
//       0:p1.4.0
//     BufferLiveRange:
//       custom-call.19.0{0}:94-96
//     Live ranges at 158 (peak):
//       p5.32.0: 311164928 bytes                                (older XLA)
//       p5.32.0{}: 311164928 bytes (cumulative: 311164928 bytes)  (newer)
//     Stack trace breakdown for peak usage: 1 092 637 220 bytes   (newer)
//       ├── ... (tree lines, not needed: skipped)
#include "ir/strings.h"
#include "ir/status_macros.h"
#include "parsers/buffer_assignment_state.h"
#include "parsers/shape_parser.h"

namespace memplan::parsers::internal {
namespace {

absl::Status ParseHeader(ParseState& state, Cursor c) {
  c.Consume("HloLiveRange (max ");
  int64_t max_time = 0;
  const char* max_at = c.position();
  if (!c.ConsumeInt(&max_time) || max_time < -1) {
    return state.Error(c.position(), "expected the last schedule step after 'max '");
  }
  RETURN_IF_ERROR(state.CheckStep(max_at, max_time));
  if (!c.Consume("):")) return state.Error(c.position(), "expected '):'");
  state.program.schedule.max_time = max_time;
  state.program.has_live_ranges = true;
  state.live_range_part = LiveRangePart::kNone;
  state.read.live_range = true;
  return absl::OkStatus();
}

// "    12:p33.488.0"
absl::Status ParseSequenceEntry(ParseState& state, Cursor c) {
  int64_t step = 0;
  const char* step_at = c.position();
  if (!c.ConsumeInt(&step)) return state.Error(c.position(), "expected a schedule step");
  if (!c.ConsumeChar(':')) return state.Error(c.position(), "expected ':' after the step");
  auto& instructions = state.program.schedule.instructions;
  if (step != static_cast<int64_t>(instructions.size())) {
    return state.Error(step_at, StrCat("expected schedule step ",
                                                  instructions.size(), ", found ", step));
  }
  if (c.rest().empty()) return state.Error(c.position(), "expected an instruction name");
  instructions.push_back(state.names.Resolve(c.rest()));
  return absl::OkStatus();
}

// "    custom-call.19.0{0}:94-96"
absl::Status ParseBufferLiveRange(ParseState& state, Cursor c) {
  RawLiveRange raw;
  raw.at = c.position();
  raw.source = state.source;
  const std::string_view name = c.ConsumeUntil('{');
  if (name.empty() || !ParseShapeIndex(c, &raw.index)) {
    return state.Error(c.position(), "expected 'instruction{index}:start-end'");
  }
  raw.instruction = state.names.Resolve(name);
  if (!c.ConsumeChar(':') || !c.ConsumeInt(&raw.range.start) || !c.ConsumeChar('-') ||
      !c.ConsumeInt(&raw.range.end)) {
    return state.Error(c.position(), "expected ':start-end' after the value name");
  }
  RETURN_IF_ERROR(state.CheckStep(raw.at, raw.range.start));
  RETURN_IF_ERROR(state.CheckStep(raw.at, raw.range.end));
  if (raw.range.end < raw.range.start) {
    return state.Error(raw.at, "expected a live range whose end is not before its start");
  }
  state.raw_live_ranges.push_back(std::move(raw));
  return absl::OkStatus();
}

// "    p5.32.0: 311164928 bytes" or "    x{1}: 64 bytes (cumulative: 96 bytes)"
absl::Status ParsePeakEntry(ParseState& state, Cursor c) {
  ir::StatedPeakEntry entry;
  // Instruction names never hold ':' or '{'; the name ends at either.
  const std::string_view name = c.ConsumeUntilAny("{:");
  if (name.empty()) return state.Error(c.position(), "expected an instruction name");
  entry.instruction = state.names.Resolve(name);
  if (c.Peek() == '{') {
    ir::ShapeIndex index;
    if (!ParseShapeIndex(c, &index)) return state.Error(c.position(), "expected a shape index");
    entry.index = std::move(index);
  }
  const char* bytes_at = c.rest().substr(0, 2) == ": " ? c.position() + 2 : c.position();
  if (!c.Consume(": ") || !c.ConsumeInt(&entry.bytes) || !c.Consume(" bytes")) {
    return state.Error(c.position(), "expected ': N bytes'");
  }
  RETURN_IF_ERROR(state.CheckBytes(bytes_at, entry.bytes, &state.stated_peak_bytes));
  state.program.stated_peak->entries.push_back(std::move(entry));
  return absl::OkStatus();
}

absl::Status ParsePeakHeader(ParseState& state, Cursor c) {
  c.Consume("  Live ranges at ");
  ir::StatedPeak peak;
  const char* step_at = c.position();
  if (!c.ConsumeInt(&peak.step) || !c.Consume(" (peak):")) {
    return state.Error(c.position(), "expected 'Live ranges at N (peak):'");
  }
  RETURN_IF_ERROR(state.CheckStep(step_at, peak.step));
  state.program.stated_peak = std::move(peak);
  state.live_range_part = LiveRangePart::kPeak;
  state.read.peak = true;
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseLiveRangeLine(ParseState& state, std::string_view line) {
  Cursor c(line);
  // The part headers start with two spaces and a letter; entries (most
  // lines) with four spaces, and skip the header tests.
  const bool part_header = line.size() > 2 && line[2] != ' ';
  if (c.StartsWith("HloLiveRange (max ")) return ParseHeader(state, c);
  if (part_header && c.StartsWith("  InstructionSequence:")) {
    state.live_range_part = LiveRangePart::kSequence;
    state.read.sequence = true;
    return absl::OkStatus();
  }
  if (part_header && c.StartsWith("  BufferLiveRange:")) {
    state.live_range_part = LiveRangePart::kBufferLiveRange;
    state.read.buffer_live_ranges = true;
    return absl::OkStatus();
  }
  if (part_header && c.StartsWith("  Live ranges at ")) return ParsePeakHeader(state, c);
  if (part_header && c.StartsWith("  Stack trace breakdown for peak usage:")) {
    state.live_range_part = LiveRangePart::kOther;  // a tree memplan rebuilds itself
    return absl::OkStatus();
  }
  if (c.Consume("    ")) {
    switch (state.live_range_part) {
      case LiveRangePart::kSequence:
        return ParseSequenceEntry(state, c);
      case LiveRangePart::kBufferLiveRange:
        return ParseBufferLiveRange(state, c);
      case LiveRangePart::kPeak:
        return ParsePeakEntry(state, c);
      case LiveRangePart::kOther:
        return absl::OkStatus();
      case LiveRangePart::kNone:
        break;
    }
  }
  if (state.live_range_part == LiveRangePart::kOther) return absl::OkStatus();
  state.Warn("unrecognized line in 'HloLiveRange' (skipped)", line.data());
  return absl::OkStatus();
}

}  // namespace memplan::parsers::internal
