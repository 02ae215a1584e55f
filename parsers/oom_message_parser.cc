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
#include "parsers/line_position.h"
#include "parsers/human_bytes.h"
#include "parsers/instruction_names.h"
#include "parsers/shape_parser.h"
#include "parsers/utf8.h"

namespace memplan::parsers {
namespace {

constexpr std::string_view kTryingToAllocate = "Out of memory while trying to allocate ";
// The older TPU message starts so ("... at the bottom of memory. That was not
// possible. There are 1.92G free, ...").
constexpr std::string_view kTpuReserveMarker = "Attempting to reserve ";

enum class Style { kGpu, kTpu };
// Where in the message a line falls.
enum class Part {
  kBefore,       // text before the message (a traceback, log lines)
  kHeader,       // GPU: after the marker, before "BufferAssignment stats:"
  kStats,        // GPU: the stats rows
  kUsage,        // TPU: "Total hbm usage >= X:" rows
  kRequirement,  // TPU: "Program hbm requirement X:" rows
  kPersistent,   // older TPU: "Persistent allocations include some or all of:" rows
  kOtherRows,    // older TPU: "HBM capacity X:", "Heap allocator status:" rows
  kBuffers,      // "Peak buffers:" / "Largest program allocations in hbm:"
  kAfter,        // text after the last buffer
};

struct OomState : LinePosition {
  ir::Program program;
  ir::StatedCategoryBytes stats;
  bool any_stat = false;
  int64_t stated_bytes = 0;  // all stated totals, kept below kMaxTotalBytes
  int64_t buffer_bytes = 0;  // all buffer sizes, likewise
  bool any_rounded_stat = false;
  std::string_view rounded_example;
  Style style = Style::kGpu;
  Part part = Part::kBefore;

  // A log prefix ("2020-05-04 09:05:40.719745: E ... xla_util.cc:76] ")
  // repeated on every line: its first two characters, when the marker's
  // line had one.
  std::string_view log_prefix_start;

  int64_t current = -1;  // index into program.values of the open buffer
  // What the message says of each value's instruction, by index into
  // program.values: its name ("Buffer 3" when it names none) and facts.
  struct BufferInstruction {
    std::string_view name;
    InstructionFacts facts;
  };
  std::vector<BufferInstruction> instructions;
  bool size_seen = false;
  HumanBytes printed_size;  // the open buffer's "Size:"
  absl::flat_hash_set<int64_t> buffer_numbers;
  int64_t rounded_buffers = 0;
  std::optional<int64_t> trying_to_allocate;
  std::map<std::string_view, int64_t> allocation_types;  // TPU
  bool more_messages_warned = false;

  void Warn(std::string_view kind, const char* at) { WarnAt(program.diagnostics, kind, at); }
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllOf(std::string_view s, char c) {
  return !s.empty() && s.find_first_not_of(c) == std::string_view::npos;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

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

// ----------------------------------------------------------------- buffers

// `op_type="..." op_name="..." source_file="..." source_line=N` and any other
// key=value the metadata has (deduplicated_name="...", profile_type={...}).
absl::Status ParseOperator(OomState& state, Cursor c, ir::OpMetadata* metadata) {
  while (true) {
    c.SkipSpaces();
    if (c.AtEnd()) return absl::OkStatus();
    const std::string_view key = c.ConsumeUntilAny("= ");
    if (key.empty() || !c.ConsumeChar('=')) {
      return state.Error(c.position(), "expected 'key=value' in the operator's metadata");
    }
    std::string_view value;
    const char* value_at = c.position();
    if (c.ConsumeChar('"')) {
      const std::string_view rest = c.rest();
      size_t n = 0;
      while (n < rest.size() && rest[n] != '"') n += rest[n] == '\\' ? 2 : 1;
      if (n >= rest.size()) {
        return state.Error(rest.data() + rest.size(),
                           StrCat("expected '\"' closing the value of ", key));
      }
      value = rest.substr(0, n);
      c.Advance(n + 1);
    } else if (c.Peek() == '{') {
      const std::string_view rest = c.rest();
      const size_t close = rest.find('}');
      if (close == std::string_view::npos) {
        return state.Error(rest.data() + rest.size(), StrCat("expected '}' closing ", key));
      }
      value = rest.substr(0, close + 1);
      c.Advance(close + 1);
    } else {
      value = c.ConsumeUntil(' ');
    }
    if (key == "op_type") {
      metadata->op_type = value;
    } else if (key == "op_name") {
      metadata->op_name = value;
    } else if (key == "source_file") {
      metadata->source_file = value;
    } else if (key == "source_line") {
      Cursor number(value);
      int64_t line = 0;
      if (!number.ConsumeInt(&line) || !number.AtEnd()) {
        return state.Error(value_at, "expected a line number after 'source_line='");
      }
      metadata->source_line = line;
    }
  }
}

absl::Status CloseBuffer(OomState& state, const char* at) {
  if (state.current < 0) return absl::OkStatus();
  ir::Value& value = state.program.values[state.current];
  if (!state.size_seen) {
    return state.Error(at, StrCat("expected 'Size:' in buffer ", value.id.value()));
  }
  // Exact when printed in bytes, or when the shape gives the printed size.
  if (!state.printed_size.exact) {
    std::optional<int64_t> bytes;
    if (!value.shape_text.empty() && value.shape.dtype != ir::DType::kInvalid) {
      bytes = CheckedByteSizeOf(value.shape);
    }
    if (bytes && AgreesWithPrinted(*bytes, state.printed_size)) {
      value.size = *bytes;
    } else {
      ++state.rounded_buffers;
    }
  }
  state.current = -1;
  return absl::OkStatus();
}

// "Buffer 3:" (GPU) or "3. Size: 1.00G" (TPU; the size follows on the line).
absl::Status OpenBuffer(OomState& state, Cursor& c, std::string_view name) {
  if (state.current >= 0) {
    state.Warn("buffer not closed by a '====' line", c.position());
    RETURN_IF_ERROR(CloseBuffer(state, c.position()));
  }
  int64_t number = 0;
  const char* number_at = c.position();
  if (!c.ConsumeInt(&number) || number < 0) return state.Error(c.position(), "expected a buffer number");
  if (!state.buffer_numbers.insert(number).second) {
    return state.Error(number_at, StrCat("expected each buffer once; buffer ", number,
                                         " is listed twice"));
  }
  ir::Value value;
  value.id = ir::ValueId(number);
  state.current = static_cast<int64_t>(state.program.values.size());
  state.program.values.push_back(std::move(value));
  state.instructions.push_back({name, {}});
  state.size_seen = false;
  return absl::OkStatus();
}

absl::Status ReadSize(OomState& state, Cursor c) {
  if (!ParseHumanBytes(c, &state.printed_size)) {
    return state.Error(c.position(), "expected the buffer's size such as 1.00MiB or 512B");
  }
  if (!TrimRight(c.rest()).empty()) return state.Error(c.position(), "expected the end of the line");
  if (!AddBounded(&state.buffer_bytes, state.printed_size.bytes)) {
    return state.Error(state.printed_size.text.data(), "expected buffer sizes below 1 EiB in all");
  }
  state.program.values[state.current].size = state.printed_size.bytes;
  state.size_seen = true;
  return absl::OkStatus();
}

void ReadShape(OomState& state, Cursor c) {
  ir::Value& value = state.program.values[state.current];
  value.shape_text = TrimRight(c.rest());
  Cursor shape_cursor(value.shape_text);
  if (!ParseShape(shape_cursor, &value.shape) || !shape_cursor.AtEnd()) {
    value.shape = ir::Shape();
    state.Warn("shape not understood (kept as text)", shape_cursor.position());
  }
}

// The TPU's "XLA label:" is HLO text, possibly cut short with "...":
// "%fusion.6043 = f32[8,128]{1,0:T(8,128)} fusion(...)" or, newer,
// "fusion.1265.remat3 = fusion(custom-call.224, ...), kind=kOutput".
void ReadTpuLabel(std::string_view label, OomState::BufferInstruction& instruction) {
  Cursor c(label);
  c.ConsumeChar('%');
  const std::string_view name = c.ConsumeUntil(' ');
  if (name.empty() || !c.Consume(" = ")) return;
  instruction.name = name;
  const std::string_view rest = c.rest();
  const std::string_view before_paren = rest.substr(0, rest.find('('));
  if (!before_paren.empty() && before_paren.size() < rest.size() &&
      before_paren.find_first_of("[ ") == std::string_view::npos) {
    instruction.facts.opcode = before_paren;  // no shape printed
    return;
  }
  ir::Shape shape;
  if (!ParseShape(c, &shape)) return;
  c.SkipSpaces();
  const std::string_view opcode = c.ConsumeUntilAny("( ");
  if (!opcode.empty() && c.Peek() == '(') instruction.facts.opcode = opcode;
  instruction.facts.shape = std::move(shape);
}

// One line inside "Peak buffers:" / "Largest program allocations": a field
// of the open buffer, the start of the next, or (when no buffer is open and
// the line is none of these) the end of the message.
absl::Status ParseBufferLine(OomState& state, Cursor c) {
  const std::string_view content = c.rest();
  if (state.style == Style::kGpu && c.StartsWith("Buffer ")) {
    const char* name_start = c.position();
    c.Consume("Buffer ");
    RETURN_IF_ERROR(OpenBuffer(state, c, {}));
    state.instructions[state.current].name =
        std::string_view(name_start, c.position() - name_start);
    if (!c.ConsumeChar(':') || !TrimRight(c.rest()).empty()) {
      return state.Error(c.position(), "expected ':' ending 'Buffer N:'");
    }
    return absl::OkStatus();
  }
  if (state.style == Style::kTpu && IsDigit(c.Peek())) {
    Cursor number = c;
    int64_t ignored = 0;
    if (number.ConsumeInt(&ignored) && number.Consume(". Size: ")) {
      RETURN_IF_ERROR(OpenBuffer(state, c, {}));
      c.Consume(". Size: ");
      return ReadSize(state, c);
    }
  }
  if (AllOf(TrimRight(content), '=')) return CloseBuffer(state, c.position());
  if (state.current < 0) {  // not a buffer's line: the message is over
    state.part = Part::kAfter;
    return absl::OkStatus();
  }
  ir::Value& value = state.program.values[state.current];
  OomState::BufferInstruction& instruction = state.instructions[state.current];
  if (c.Consume("Size: ")) {
    if (state.size_seen) return state.Error(c.position(), "expected one 'Size:' per buffer");
    return ReadSize(state, c);
  }
  if (c.Consume("Operator: ")) return ParseOperator(state, c, &instruction.facts.metadata);
  if (c.Consume("Entry Parameter Subshape: ")) {
    instruction.facts.opcode = "parameter";
    ReadShape(state, c);
    return absl::OkStatus();
  }
  if (c.Consume("Shape: ")) {
    ReadShape(state, c);
    return absl::OkStatus();
  }
  if (c.Consume("XLA Label: ")) {
    instruction.facts.opcode = TrimRight(c.rest());
    return absl::OkStatus();
  }
  if (c.Consume("XLA label: ")) {
    ReadTpuLabel(TrimRight(c.rest()), instruction);
    return absl::OkStatus();
  }
  if (c.Consume("Allocation type: ")) {
    ++state.allocation_types[TrimRight(c.rest())];
    return absl::OkStatus();
  }
  if (c.StartsWith("Unpadded size: ") || c.StartsWith("Extra memory due to padding: ")) {
    return absl::OkStatus();
  }
  state.Warn("unknown buffer field (skipped)", c.position());
  return absl::OkStatus();
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
    state.program.notes.push_back({ir::NoteCode::kQuotedFromInput, {}, {std::string(TrimNoteEnd(c.rest()))}});
    state.part = Part::kUsage;
    return absl::OkStatus();
  }
  if (c.StartsWith("Program ") && c.rest().find(" requirement ") != std::string_view::npos) {
    state.program.notes.push_back({ir::NoteCode::kQuotedFromInput, {}, {std::string(TrimNoteEnd(c.rest()))}});
    state.part = Part::kRequirement;
    return absl::OkStatus();
  }
  if (c.Consume("Output size ")) {
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
    RETURN_IF_ERROR(SetStat(state, state.stats.alias, shared));
    return absl::OkStatus();
  }
  if (c.StartsWith("HBM capacity ") || c.StartsWith("Heap allocator status")) {
    state.part = Part::kOtherRows;
    return absl::OkStatus();
  }
  if (c.StartsWith("Persistent allocations")) {
    state.part = Part::kPersistent;
    return absl::OkStatus();
  }
  if (c.StartsWith("; attempting ")) return absl::OkStatus();  // older TPU: ends "HBM capacity"
  if (indented && state.part == Part::kPersistent) {
    // "arguments   478.07M (89.4% utilization)", "output   5.06G (71.6% ...) [may share ...]"
    const bool arguments = c.Consume("arguments");
    if (arguments || c.Consume("output")) {
      if (ConsumeUnknownSize(state, c, arguments ? "arguments" : "output")) return absl::OkStatus();
      HumanBytes size;
      RETURN_IF_ERROR(ConsumeHuman(state, c, arguments ? "the arguments' size" : "the output size",
                                   &size));
      return SetStat(state, arguments ? state.stats.parameter : state.stats.maybe_live_out, size);
    }
    return absl::OkStatus();
  }
  if (indented && state.part == Part::kUsage && c.Consume("arguments")) {
    if (ConsumeUnknownSize(state, c, "arguments")) return absl::OkStatus();
    HumanBytes arguments;
    RETURN_IF_ERROR(ConsumeHuman(state, c, "the arguments' size", &arguments));
    RETURN_IF_ERROR(SetStat(state, state.stats.parameter, arguments));
    return absl::OkStatus();
  }
  if (indented && state.part == Part::kRequirement && c.Consume("HLO temp")) {
    HumanBytes temp;
    RETURN_IF_ERROR(ConsumeHuman(state, c, "the HLO temp size", &temp));
    RETURN_IF_ERROR(SetStat(state, state.stats.preallocated_temp, temp));
    return absl::OkStatus();
  }
  if (indented && (state.part == Part::kUsage || state.part == Part::kRequirement ||
                   state.part == Part::kOtherRows)) {
    return absl::OkStatus();  // reserved, program, global, scoped, ...
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
  state.program.source_files.push_back(files.front()->name());
  state.program.KeepAlive(files.front());
  RETURN_IF_ERROR(ParseText(state));
  Finish(state);
  return std::move(state.program);
}

}  // namespace memplan::parsers
