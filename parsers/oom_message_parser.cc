#include "parsers/oom_message_parser.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/cursor.h"
#include "parsers/human_bytes.h"
#include "parsers/instruction_names.h"
#include "parsers/line_position.h"
#include "parsers/oom_message_state.h"
#include "parsers/shape_parser.h"
#include "parsers/utf8.h"

namespace memplan::parsers {
namespace {

using internal::AllOf;
using internal::CloseBuffer;
using internal::IsDigit;
using internal::OomState;
using internal::ParseBufferLine;
using internal::Part;
using internal::Style;
using internal::TrimRight;

constexpr std::string_view kTryingToAllocate = "Out of memory while trying to allocate ";
// The older TPU message starts so ("... at the bottom of memory. That was not
// possible. There are 1.92G free, ...").
constexpr std::string_view kTpuReserveMarker = "Attempting to reserve ";

// A line quoted as a note, without the ':' that introduces its rows.
std::string_view TrimNoteEnd(std::string_view s) {
  s = TrimRight(s);
  if (!s.empty() && s.back() == ':') s.remove_suffix(1);
  return s;
}

// Records a stated category total.
absl::Status SetStat(OomState& state, std::optional<int64_t>& field, const HumanBytes& size) {
  if (!AddBounded(&state.stated_bytes, size.bytes)) {
    return state.Error(size.text.data(), "expected sizes below 1 EiB in all");
  }
  field = size.bytes;
  state.any_stat = true;
  if (!size.exact && !state.any_rounded_stat) {
    state.any_rounded_stat = true;
    state.rounded_example = size.text;
  }
  return absl::OkStatus();
}

absl::Status ConsumeHuman(OomState& state, Cursor& c, std::string_view what, HumanBytes* out) {
  c.SkipSpaces();
  if (!ParseHumanBytes(c, out)) {
    return state.Error(c.position(), StrCat("expected ", what, " such as 1.00MiB or 512B"));
  }
  return absl::OkStatus();
}

// "Out of memory while trying to allocate 6291456 bytes." anywhere in a line.
void NoteTryingToAllocate(OomState& state, std::string_view line) {
  const size_t at = line.find(kTryingToAllocate);
  if (at == std::string_view::npos || state.trying_to_allocate) return;
  Cursor c(line.substr(at + kTryingToAllocate.size()));
  int64_t bytes = 0;
  if (c.ConsumeInt(&bytes) && bytes >= 0 && c.Consume(" bytes")) state.trying_to_allocate = bytes;
}

// ------------------------------------------------------------------ stats

// "             parameter allocation:    6.00MiB"
// "              total fragmentation:         0B (0.00%)"
absl::Status ParseStatsRow(OomState& state, Cursor c) {
  const std::string_view label = c.ConsumeUntil(':');
  if (!c.Consume(": ")) {
    return state.Error(c.position(),
                       "expected a stats row such as 'total allocation: 1.00GiB', or "
                       "'Peak buffers:'");
  }
  HumanBytes size;
  RETURN_IF_ERROR(ConsumeHuman(state, c, "a size", &size));
  c.SkipSpaces();
  if (c.ConsumeChar('(')) {
    const size_t close = c.rest().find("%)");
    if (close == std::string_view::npos) return state.Error(c.position(), "expected 'N.NN%)'");
    c.Advance(close + 2);
  }
  if (!TrimRight(c.rest()).empty()) return state.Error(c.position(), "expected the end of the line");
  ir::StatedCategoryBytes& s = state.stats;
  if (label == "parameter allocation") {
    RETURN_IF_ERROR(SetStat(state, s.parameter, size));
  } else if (label == "constant allocation") {
    RETURN_IF_ERROR(SetStat(state, s.constant, size));
  } else if (label == "maybe_live_out allocation") {
    RETURN_IF_ERROR(SetStat(state, s.maybe_live_out, size));
  } else if (label == "preallocated temp allocation") {
    RETURN_IF_ERROR(SetStat(state, s.preallocated_temp, size));
  } else if (label == "total allocation") {
    RETURN_IF_ERROR(SetStat(state, s.total, size));
  } else if (label == "total fragmentation") {
    RETURN_IF_ERROR(SetStat(state, s.fragmentation, size));
  } else if (label != "preallocated temp fragmentation") {
    state.Warn("unknown stats row (skipped)", label.data());
  }
  return absl::OkStatus();
}

absl::Status ParseGpuLine(OomState& state, Cursor c) {
  switch (state.part) {
    case Part::kHeader:
      if (!c.Consume("BufferAssignment stats:") || !TrimRight(c.rest()).empty()) {
        return state.Error(c.position(), "expected 'BufferAssignment stats:'");
      }
      state.part = Part::kStats;
      return absl::OkStatus();
    case Part::kStats:
      if (c.Consume("Peak buffers:")) {
        if (!TrimRight(c.rest()).empty()) return state.Error(c.position(), "expected the end of the line");
        state.part = Part::kBuffers;
        return absl::OkStatus();
      }
      return ParseStatsRow(state, c);
    default:
      return ParseBufferLine(state, c);
  }
}

// ---------------------------------------------------------------- TPU text

// Skips " (99.9% utilization)" and the like.
void SkipParenthesized(Cursor& c) {
  Cursor probe = c;
  probe.SkipSpaces();
  if (!probe.ConsumeChar('(')) return;
  int depth = 1;
  while (!probe.AtEnd() && depth > 0) {
    const char ch = probe.Peek();
    probe.Advance(1);
    depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
  }
  if (depth == 0) c = probe;
}

// "unknown size" where a size belongs: the size is not stated (not 0).
bool ConsumeUnknownSize(OomState& state, Cursor& c, std::string_view what) {
  Cursor probe = c;
  probe.SkipSpaces();
  if (!probe.Consume("unknown")) return false;
  c = probe;
  state.program.notes.push_back({ir::NoteCode::kOomSizeNotStated, {}, {std::string(what)}});
  return true;
}

// After "Output size ": "unknown." or "5.06G (...); shares 0B with arguments."
absl::Status ParseTpuOutputSize(OomState& state, Cursor c) {
  if (c.StartsWith("unknown")) {  // "Output size unknown."
    state.program.notes.push_back({ir::NoteCode::kOomSizeNotStated, {}, {"output"}});
    return absl::OkStatus();
  }
  HumanBytes output;
  HumanBytes shared;
  RETURN_IF_ERROR(ConsumeHuman(state, c, "the output size", &output));
  SkipParenthesized(c);  // "(99.9% utilization)"
  if (!c.Consume("; shares ")) return state.Error(c.position(), "expected '; shares '");
  RETURN_IF_ERROR(ConsumeHuman(state, c, "the bytes shared with arguments", &shared));
  RETURN_IF_ERROR(SetStat(state, state.stats.maybe_live_out, output));
  return SetStat(state, state.stats.alias, shared);
}

// An indented row under "Persistent allocations", "Total ... usage" or
// "Program ... requirement": the arguments, output and HLO temp sizes;
// other rows (reserved, program, global, scoped, ...) are skipped. False
// when the row belongs to no such part.
absl::StatusOr<bool> ParseTpuIndentedRow(OomState& state, Cursor c) {
  if (state.part == Part::kPersistent) {
    // "arguments   478.07M (89.4% utilization)", "output   5.06G (71.6% ...) [may share ...]"
    const bool arguments = c.Consume("arguments");
    if (!arguments && !c.Consume("output")) return true;
    if (ConsumeUnknownSize(state, c, arguments ? "arguments" : "output")) return true;
    HumanBytes size;
    RETURN_IF_ERROR(ConsumeHuman(state, c, arguments ? "the arguments' size" : "the output size", &size));
    RETURN_IF_ERROR(SetStat(state, arguments ? state.stats.parameter : state.stats.maybe_live_out, size));
    return true;
  }
  if (state.part == Part::kUsage && c.Consume("arguments")) {
    if (ConsumeUnknownSize(state, c, "arguments")) return true;
    HumanBytes arguments;
    RETURN_IF_ERROR(ConsumeHuman(state, c, "the arguments' size", &arguments));
    RETURN_IF_ERROR(SetStat(state, state.stats.parameter, arguments));
    return true;
  }
  if (state.part == Part::kRequirement && c.Consume("HLO temp")) {
    HumanBytes temp;
    RETURN_IF_ERROR(ConsumeHuman(state, c, "the HLO temp size", &temp));
    RETURN_IF_ERROR(SetStat(state, state.stats.preallocated_temp, temp));
    return true;
  }
  return state.part == Part::kUsage || state.part == Part::kRequirement || state.part == Part::kOtherRows;
}

// A line quoted into the notes that starts a part of the message.
absl::Status QuoteAndEnter(OomState& state, std::string_view quoted, Part part) {
  state.program.notes.push_back({ir::NoteCode::kQuotedFromInput, {}, {std::string(quoted)}});
  state.part = part;
  return absl::OkStatus();
}

// "Total hbm usage >= 9.60G:" rows, "Program hbm requirement 9.08G:" rows,
// "Output size 0B; shares 0B with arguments." and the buffer list.
absl::Status ParseTpuLine(OomState& state, Cursor c, bool indented) {
  if (state.part == Part::kBuffers) return ParseBufferLine(state, c);
  if (c.StartsWith("Largest program allocations in ")) {
    state.part = Part::kBuffers;
    return absl::OkStatus();
  }
  if (c.StartsWith("Exceeded ")) {
    state.program.notes.push_back({ir::NoteCode::kQuotedFromInput, {}, {std::string(TrimRight(c.rest()))}});
    return absl::OkStatus();
  }
  if (c.StartsWith("Total ") && c.rest().find(" usage >= ") != std::string_view::npos) {
    return QuoteAndEnter(state, TrimNoteEnd(c.rest()), Part::kUsage);
  }
  if (c.StartsWith("Program ") && c.rest().find(" requirement ") != std::string_view::npos) {
    return QuoteAndEnter(state, TrimNoteEnd(c.rest()), Part::kRequirement);
  }
  if (c.Consume("Output size ")) return ParseTpuOutputSize(state, c);
  if (c.StartsWith("HBM capacity ") || c.StartsWith("Heap allocator status")) {
    state.part = Part::kOtherRows;
    return absl::OkStatus();
  }
  if (c.StartsWith("Persistent allocations")) {
    state.part = Part::kPersistent;
    return absl::OkStatus();
  }
  if (c.StartsWith("; attempting ")) return absl::OkStatus();  // older TPU: ends "HBM capacity"
  if (indented) {
    ASSIGN_OR_RETURN(const bool handled, ParseTpuIndentedRow(state, c));
    if (handled) return absl::OkStatus();
  }
  state.Warn("unrecognized line (skipped)", c.position());
  return absl::OkStatus();
}

// ------------------------------------------------------------------ lines

// Strips the log prefix the marker's line had from a later line.
std::string_view StripLogPrefix(const OomState& state, std::string_view line) {
  if (state.log_prefix_start.empty() || !line.starts_with(state.log_prefix_start)) return line;
  const size_t bracket = line.find("] ");
  return bracket == std::string_view::npos ? line : line.substr(bracket + 2);
}

// Finds the message's start in a line; remembers a log prefix before it.
bool StartsMessage(OomState& state, std::string_view line) {
  size_t at = line.find(kOomMarker);
  if (at != std::string_view::npos) {
    state.style = Style::kGpu;
    state.part = Part::kHeader;
  } else if ((at = line.find(kTpuOomMarker)) != std::string_view::npos ||
             (at = line.find(kTpuReserveMarker)) != std::string_view::npos) {
    state.style = Style::kTpu;
    state.part = Part::kUsage;
    std::string_view quoted = TrimRight(line.substr(at));
    if (quoted.ends_with(";")) quoted.remove_suffix(1);
    state.program.notes.push_back({ir::NoteCode::kQuotedFromInput, {}, {std::string(quoted)}});
  } else {
    return false;
  }
  // "2020-05-04 09:05:40.719745: E 1578 xla_util.cc:76] ..." or
  // "E0504 09:05:40.719745 1578 xla_util.cc:76] ...": a prefix every line
  // of the message repeats.
  const std::string_view before = line.substr(0, at);
  const size_t bracket = before.find("] ");
  if (bracket != std::string_view::npos && bracket >= 2 &&
      (IsDigit(before[0]) || (std::string_view("IWEF").find(before[0]) != std::string_view::npos &&
                              IsDigit(before[1])))) {
    state.log_prefix_start = before.substr(0, 2);
  }
  return true;
}

absl::Status ParseLine(OomState& state, std::string_view line) {
  // The message's lines are kept (as notes, names, shapes): they must be
  // UTF-8. Text around the message is skipped and may be anything.
  if (state.part != Part::kAfter &&
      (state.part != Part::kBefore || line.find(kOomMarker) != std::string_view::npos ||
       line.find(kTpuOomMarker) != std::string_view::npos ||
       line.find(kTpuReserveMarker) != std::string_view::npos)) {
    if (const size_t bad = FirstInvalidUtf8(line); bad < line.size()) {
      return state.Error(line.data() + bad, "expected UTF-8 text");
    }
  }
  if (state.part == Part::kBefore) {
    NoteTryingToAllocate(state, line);
    StartsMessage(state, line);
    return absl::OkStatus();
  }
  if (state.part == Part::kAfter) {
    if (!state.more_messages_warned && (line.find(kOomMarker) != std::string_view::npos ||
                                        line.find(kTpuOomMarker) != std::string_view::npos)) {
      state.more_messages_warned = true;
      state.Warn("more out-of-memory messages follow (only the first is read)", line.data());
    }
    return absl::OkStatus();
  }
  const std::string_view stripped = StripLogPrefix(state, line);
  Cursor c(stripped);
  c.SkipSpaces();
  const bool indented = c.position() != stripped.data();
  if (TrimRight(c.rest()).empty()) return absl::OkStatus();
  if (state.style == Style::kGpu) return ParseGpuLine(state, c);
  return ParseTpuLine(state, c, indented);
}

// Each value's instruction into the graph (known only by what the message
// says of it).
void ResolveInstructions(OomState& state) {
  ir::Program& program = state.program;
  InstructionNames names(program.module);
  for (size_t i = 0; i < program.values.size(); ++i) {
    const OomState::BufferInstruction& buffer = state.instructions[i];
    if (buffer.name.empty()) continue;
    program.values[i].instruction = names.Resolve(buffer.name);
    names.Describe(program.values[i].instruction, buffer.facts);
  }
  MarkNamesOnlyGraph(program.module);
}

void Finish(OomState& state) {
  ir::Program& program = state.program;
  ResolveInstructions(state);
  std::sort(program.values.begin(), program.values.end(),
            [](const ir::Value& a, const ir::Value& b) { return a.id < b.id; });
  if (state.any_stat) program.stated_categories = state.stats;
  const bool gpu = state.style == Style::kGpu;
  if (state.trying_to_allocate) {
    program.notes.push_back({ir::NoteCode::kOomAllocationFailed, {*state.trying_to_allocate}, {}});
  }
  if (state.any_rounded_stat) {
    program.notes.push_back(
        {ir::NoteCode::kOomCategoriesRounded, {}, {std::string(state.rounded_example)}});
  }
  if (gpu) {
    int64_t excess = 0;
    const ir::StatedCategoryBytes& s = state.stats;
    if (s.parameter && s.constant && s.maybe_live_out && s.preallocated_temp && s.total) {
      // Every allocation is in exactly one of these categories but for
      // donated parameters (parameter and maybe_live_out both) and
      // thread-local ones (neither): the excess over the total is about the
      // donated bytes.
      excess = std::max<int64_t>(
          0, *s.parameter + *s.constant + *s.maybe_live_out + *s.preallocated_temp - *s.total);
    }
    program.notes.push_back({ir::NoteCode::kOomAliasUnknown, {excess}, {}});
  } else {
    program.notes.push_back({ir::NoteCode::kOomNoStatedTotal, {}, {}});
  }
  program.notes.push_back({ir::NoteCode::kOomValuesAreListedBuffers, {gpu ? 1 : 0}, {}});
  if (state.rounded_buffers > 0) {
    program.notes.push_back({ir::NoteCode::kOomRoundedBufferSizes, {state.rounded_buffers}, {}});
  }
  if (!state.allocation_types.empty()) {
    ir::Note note{ir::NoteCode::kOomAllocationTypes, {}, {}};
    for (const auto& [type, count] : state.allocation_types) {
      note.texts.emplace_back(type);
      note.numbers.push_back(count);
    }
    program.notes.push_back(std::move(note));
  }
}

absl::Status ParseText(OomState& state) {
  const SourceText& source = *state.source;
  std::string_view text = source.text();
  std::string_view line;
  while (state.NextLine(text, &line)) {
    RETURN_IF_ERROR(ParseLine(state, line));
  }
  if (state.part == Part::kBefore) {
    return source.ErrorAt(source.text().data(),
                          StrCat("expected an XLA out-of-memory message: '", kOomMarker,
                                 "' (or the TPU '", kTpuOomMarker, "...' or '",
                                 kTpuReserveMarker, "...')"));
  }
  if (state.current >= 0) {
    RETURN_IF_ERROR(CloseBuffer(state, source.text().data() + source.text().size()));
    state.program.diagnostics.Warn("the message ends inside a buffer",
                                   source.LocationString(source.text().size()));
  }
  return absl::OkStatus();
}

}  // namespace

bool LooksLikeOomMessage(std::string_view head, std::string_view) {
  return head.find(kOomMarker) != std::string_view::npos ||
         head.find(kTpuOomMarker) != std::string_view::npos ||
         (head.find(kTpuReserveMarker) != std::string_view::npos &&
          head.find(" at the bottom of memory") != std::string_view::npos);
}

absl::StatusOr<ir::Program> ParseOomMessage(
    const std::vector<std::shared_ptr<const SourceText>>& files, ir::Program program) {
  if (files.size() != 1) return absl::InvalidArgumentError("an out-of-memory message is one file");
  OomState state;
  state.source = files.front().get();
  state.program = std::move(program);
  state.program.input_format = "oom-message";
  state.program.assignment_source = ir::AssignmentSource::kXla;
  state.program.source_files.push_back(files.front()->name());
  state.program.KeepAlive(files.front());
  RETURN_IF_ERROR(ParseText(state));
  Finish(state);
  return std::move(state.program);
}

}  // namespace memplan::parsers
