#include "parsers/buffer_assignment_parser.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ir/strings.h"
#include "ir/status_macros.h"
#include "parsers/allocation_attributes.h"
#include "parsers/buffer_assignment_state.h"
#include "parsers/shape_parser.h"

namespace memplan::parsers {
namespace internal {

size_t ParseState::ValueIndex(int64_t id) {
  // HloValue ids are small and dense, so most ids index a table (a hash
  // probe per value line was a tenth of the parse); the table grows to at
  // most 4 entries per value (plus 4096), and ids beyond go to the hash map.
  // A new id goes to whichever of the two it fits when first seen, so a
  // lookup checks both.
  constexpr uint32_t kNone = UINT32_MAX;
  const size_t next = program.values.size();
  const bool small = id >= 0 && next < kNone;
  if (small && static_cast<uint64_t>(id) < value_index_dense.size() &&
      value_index_dense[id] != kNone) {
    return value_index_dense[id];
  }
  if (!value_index_by_id.empty()) {
    if (auto it = value_index_by_id.find(id); it != value_index_by_id.end()) return it->second;
  }
  if (small && static_cast<uint64_t>(id) < 4 * (static_cast<uint64_t>(next) + 1024)) {
    if (static_cast<uint64_t>(id) >= value_index_dense.size()) {
      value_index_dense.resize(
          std::max<size_t>(static_cast<size_t>(id) + 1, 2 * value_index_dense.size()), kNone);
    }
    value_index_dense[id] = static_cast<uint32_t>(next);
  } else {
    value_index_by_id.emplace(id, next);
  }
  program.values.emplace_back();
  program.values.back().id = ir::ValueId(id);
  return next;
}

void ParseState::Warn(std::string_view kind, const char* at) {
  WarnAt(program.diagnostics, kind, at);
}

absl::Status ParseValueRef(ParseState& state, Cursor& c, ValueRef* ref) {
  if (!c.ConsumeChar('<')) return state.Error(c.position(), "expected '<' opening a value");
  if (!c.ConsumeInt(&ref->id)) return state.Error(c.position(), "expected a value id");
  if (!c.ConsumeChar(' ')) return state.Error(c.position(), "expected ' ' after the value id");
  ref->instruction = c.ConsumeUntilAny("{ >");
  if (ref->instruction.empty()) {
    return state.Error(c.position(), "expected an instruction name");
  }
  ref->index.clear();
  if (c.Peek() == '{' && !ParseShapeIndex(c, &ref->index)) {
    return state.Error(c.position(), "expected a shape index such as {0,1}");
  }
  ref->is_phi = c.Consume(" (phi)");
  if (!c.Consume(" @")) return state.Error(c.position(), "expected ' @color'");
  if (!c.ConsumeInt(&ref->color)) return state.Error(c.position(), "expected a color number");
  if (!c.ConsumeChar('>')) return state.Error(c.position(), "expected '>' closing the value");
  return absl::OkStatus();
}

// "allocation 48: size 32, output shape is |(...)|, maybe-live-out:"
absl::Status ParseAllocationHeader(ParseState& state, Cursor c) {
  c.Consume("allocation ");
  int64_t id = 0;
  const char* id_at = c.position();  // a negative index is reported where it starts
  if (!c.ConsumeInt(&id) || id < 0) {
    return state.Error(id_at, "expected an allocation index");
  }
  if (!state.allocation_ids.insert(id).second) {
    return state.Error(c.position(), StrCat("allocation ", id, " is listed twice"));
  }
  if (!c.ConsumeChar(':')) return state.Error(c.position(), "expected ': size '");
  // Older XLA prints the allocation's address first: "allocation 0: 0x27017c46b600, size 32768".
  if (c.StartsWith(" 0x")) {
    Cursor address = c;
    address.Advance(3);
    const std::string_view hex = address.ConsumeUntil(',');
    if (hex.empty() || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) {
      return state.Error(c.position() + 1, "expected a hexadecimal address such as 0x27017c46b600");
    }
    c = address;
    c.ConsumeChar(',');
  }
  if (!c.Consume(" size ")) return state.Error(c.position(), "expected ': size '");
  ir::Allocation allocation;
  allocation.id = ir::AllocationId(id);
  const char* size_at = c.position();
  if (!c.ConsumeInt(&allocation.size) || allocation.size < 0) {
    return state.Error(size_at, "expected the allocation size in bytes");
  }
  RETURN_IF_ERROR(state.CheckBytes(size_at, allocation.size, &state.allocation_bytes));
  std::string_view rest = c.rest();
  if (rest.empty() || rest.back() != ':') {
    return state.Error(rest.data() + rest.size(),
                       "expected ':' ending the allocation header");
  }
  RETURN_IF_ERROR(ParseAllocationAttributes(
      Cursor(rest.substr(0, rest.size() - 1)), *state.source, allocation,
      [&](std::string_view kind, const char* at) { state.Warn(kind, at); }));
  allocation.parameter_shape_text = state.interner.Intern(allocation.parameter_shape_text);
  if (allocation.output_shape_text) {
    allocation.output_shape_text = state.interner.Intern(*allocation.output_shape_text);
  }
  state.current_allocation = static_cast<int64_t>(state.program.allocations.size());
  state.in_color_reuse_block = false;
  state.program.allocations.push_back(std::move(allocation));
  state.section = Section::kAllocations;
  ++state.read.allocations;
  return absl::OkStatus();
}

// " value: <576 gemm_fusion_dot.35.0 @0> (size=589824,offset=0): bf16[32,9216]{1,0}"
absl::Status ParseAssignedValue(ParseState& state, Cursor c) {
  if (state.current_allocation < 0) {
    return state.Error(c.position(), "expected an 'allocation N: size S' header before this value");
  }
  c.Consume(" value: ");
  ValueRef ref;
  RETURN_IF_ERROR(ParseValueRef(state, c, &ref));
  int64_t size = 0;
  int64_t offset = 0;
  if (!c.Consume(" (size=")) return state.Error(c.position(), "expected ' (size='");
  const char* size_at = c.position();
  if (!c.ConsumeInt(&size) || size < 0) return state.Error(size_at, "expected the value size in bytes");
  RETURN_IF_ERROR(state.CheckBytes(size_at, size, &state.value_bytes));
  if (!c.Consume(",offset=")) return state.Error(c.position(), "expected ',offset='");
  const char* offset_at = c.position();
  if (!c.ConsumeInt(&offset) || offset < 0) return state.Error(offset_at, "expected the value offset");
  RETURN_IF_ERROR(state.CheckBytes(offset_at, offset));
  if (!c.Consume("): ")) return state.Error(c.position(), "expected '): ' before the shape");

  ir::Allocation& allocation = state.program.allocations[state.current_allocation];
  ir::Value& value = state.program.values[state.ValueIndex(ref.id)];
  if (value.allocation.valid()) {
    state.Warn("value assigned to more than one allocation (first kept)", c.position());
    return absl::OkStatus();
  }
  value.instruction = state.names.Resolve(ref.instruction);
  value.index = std::move(ref.index);
  value.is_phi = ref.is_phi;
  value.color = ref.color;
  value.size = size;
  value.offset = offset;
  value.allocation = allocation.id;
  // The shape is read from the program's copy of its text, so that its
  // layout's details point into the copy too.
  const std::string_view shape_text = c.rest();
  value.shape_text = state.interner.Intern(shape_text);
  Cursor shape_cursor(value.shape_text);
  if (!ParseShape(shape_cursor, &value.shape) || !shape_cursor.AtEnd()) {
    value.shape = ir::Shape();
    state.Warn("shape not understood (kept as text)",
               shape_text.data() + (shape_cursor.position() - value.shape_text.data()));
  }
  allocation.values.push_back(value.id);
  return absl::OkStatus();
}

// "  value: <12 x @1> (color=1)" inside " reused by buffers of a different color:"
absl::Status ParseColorReuseValue(ParseState& state, Cursor c) {
  c.Consume("  value: ");
  ValueRef ref;
  RETURN_IF_ERROR(ParseValueRef(state, c, &ref));
  ir::Allocation::ColorReuse reuse;
  reuse.value = ir::ValueId(ref.id);
  if (!c.Consume(" (color=") || !c.ConsumeInt(&reuse.color) || !c.ConsumeChar(')')) {
    return state.Error(c.position(), "expected ' (color=N)'");
  }
  state.program.allocations[state.current_allocation].reused_by_other_colors.push_back(reuse);
  return absl::OkStatus();
}

namespace {

absl::Status ParseTotalBytes(ParseState& state, Cursor c) {
  c.Consume("Total bytes used: ");
  int64_t total = 0;
  const char* total_at = c.position();
  if (!c.ConsumeInt(&total) || total < 0) {
    return state.Error(total_at, "expected the total number of bytes");
  }
  if (total > kMaxBytesSum) return state.Error(total_at, "expected a total of at most 2^60 bytes");
  state.program.stated_total_bytes = total;
  return absl::OkStatus();
}

// Dispatches one line (without its newline) to the section that owns it.
absl::Status ParseLine(ParseState& state, std::string_view line) {
  Cursor c(line);
  // Each prefix test first compares the line's first byte (most lines
  // match none of the section headers below).
  const char first = line.empty() ? '\0' : line.front();
  if (first == 'a' && c.StartsWith("allocation ")) return ParseAllocationHeader(state, c);
  if (first == ' ' && c.StartsWith(" value: ")) return ParseAssignedValue(state, c);
  if (state.current_allocation >= 0 && state.section == Section::kAllocations) {
    if (first == ' ' && c.StartsWith(" reused by buffers of a different color:")) {
      state.in_color_reuse_block = true;
      return absl::OkStatus();
    }
    if (state.in_color_reuse_block && c.StartsWith("  value: ")) {
      return ParseColorReuseValue(state, c);
    }
  }
  if (first == 'B' && c.StartsWith("BufferAssignment:")) {
    state.section = Section::kAllocations;
    state.read.header = true;
    return absl::OkStatus();
  }
  if (first == 'T' && c.StartsWith("Total bytes used: ")) {
    state.section = Section::kNone;
    state.read.total = true;
    return ParseTotalBytes(state, c);
  }
  if (first == 'U' && c.StartsWith("Used values:")) {
    state.section = Section::kUsedValues;
    state.read.used_values = true;
    state.current_used_value = -1;
    return absl::OkStatus();
  }
  if ((first == 'H' && c.StartsWith("HloLiveRange (max ")) || state.section == Section::kLiveRange) {
    state.section = Section::kLiveRange;
    return ParseLiveRangeLine(state, line);
  }
  if (state.section == Section::kUsedValues) return ParseUsedValueLine(state, line);
  --state.recognised_lines;
  state.Warn("unrecognized line (skipped)", line.data());
  return absl::OkStatus();
}

// A keyword for the part of the dump the parse is in, for kInputEndsEarly.
std::string_view PartName(const ParseState& state) {
  switch (state.section) {
    case Section::kAllocations:
      return "allocations";
    case Section::kUsedValues:
      return "used-values";
    case Section::kLiveRange:
      switch (state.live_range_part) {
        case LiveRangePart::kSequence:
          return "schedule";
        case LiveRangePart::kBufferLiveRange:
          return "buffer-live-ranges";
        case LiveRangePart::kPeak:
          return "peak-list";
        case LiveRangePart::kOther:
          return "stack-trace";
        case LiveRangePart::kNone:
          return "live-range";
      }
      return "live-range";
    case Section::kNone:
      return state.read.total ? "total" : "start";
  }
  return "start";
}

// The instruction name a dump line starting at `p` (before `end`) most
// likely holds: "    12:name", "    name{}:1-2", "  name, operand 0",
// " value: <12 name @0> ...". A guess for a prefetch, never for a result.
std::string_view LikelyName(const char* p, const char* end) {
  constexpr size_t kMaxName = 128;
  while (p < end && *p == ' ') ++p;
  if (end - p > 8 && std::memcmp(p, "value: <", 8) == 0) p += 8;
  const char* digits = p;
  while (p < end && *p >= '0' && *p <= '9') ++p;
  if (p == digits || p == end || (*p != ':' && *p != ' ')) {
    p = digits;
  } else {
    ++p;
  }
  const char* name = p;
  while (p < end && static_cast<size_t>(p - name) < kMaxName && *p != ' ' && *p != ',' &&
         *p != '{' && *p != ':' && *p != '>' && *p != '\n') {
    ++p;
  }
  return {name, static_cast<size_t>(p - name)};
}

// The name table's slot for the name a few lines ahead of the parse,
// prefetched line by line: a lookup in a table of a million names misses
// the cache, and this overlaps the miss with parsing the lines before it.
class NamePrefetch {
 public:
  // Starts kLookahead lines into `text`.
  explicit NamePrefetch(std::string_view text) : ahead_(text) {
    for (int i = 0; i < kLookahead && !ahead_.empty(); ++i) TakeLine();
  }

  // Prefetches the likely name of the next line ahead (if any) and moves
  // past that line.
  void Next(InstructionNames& names) {
    if (ahead_.empty()) return;
    const std::string_view line = TakeLine();
    const std::string_view name = LikelyName(line.data(), line.data() + line.size());
    if (!name.empty()) names.Prefetch(name);
  }

 private:
  static constexpr int kLookahead = 3;

  // The next line ahead without its '\n', removed from ahead_ with it.
  std::string_view TakeLine() {
    const char* newline = static_cast<const char*>(std::memchr(ahead_.data(), '\n', ahead_.size()));
    const char* end = newline ? newline : ahead_.data() + ahead_.size();
    const std::string_view line(ahead_.data(), static_cast<size_t>(end - ahead_.data()));
    ahead_.remove_prefix(line.size() + (newline ? 1 : 0));
    return line;
  }

  std::string_view ahead_;
};

// Sets `state` to read `source` from its first line, outside any section.
void StartFile(ParseState& state, const SourceText& source) {
  state.source = &source;
  state.line_number = 0;
  state.section = Section::kNone;
  state.current_allocation = -1;
  state.current_used_value = -1;
}

// After a file: an error where no line of it was recognised (the count
// still `recognised_before`), else records where its last parsed line
// (`last_line`, numbered `last_line_number`; none if nullptr) is and the
// part of the dump it was in.
absl::Status FinishFile(ParseState& state, const SourceText& source, int64_t recognised_before,
                        const char* last_line, int64_t last_line_number) {
  if (state.recognised_lines == recognised_before) {
    return source.ErrorAt(source.text().data(),
                          "expected an XLA buffer assignment ('BufferAssignment:', "
                          "'allocation N: size S', 'Used values:' or 'HloLiveRange')");
  }
  if (last_line != nullptr) {
    state.read.last_location = state.LocationAt(last_line, last_line_number, last_line);
    state.read.last_section = std::string(PartName(state));
  }
  return absl::OkStatus();
}

absl::Status ParseFile(ParseState& state, const SourceText& source) {
  StartFile(state, source);
  const int64_t recognised_before = state.recognised_lines;
  std::string_view text = source.text();
  // A text that does not end its last line may have been cut inside it.
  const bool last_line_open = !text.empty() && text.back() != '\n';
  // What has been parsed leaves resident memory as the parse goes (a large
  // dump is mostly read once; what the Program points into is mapped again
  // when read).
  constexpr size_t kReleaseEvery = size_t{4} << 20;
  const char* released = text.data();
  std::string_view line;
  const char* last_line = nullptr;
  int64_t last_line_number = 0;
  NamePrefetch prefetch(text);
  while (state.NextLine(text, &line)) {
    prefetch.Next(state.names);
    if (static_cast<size_t>(line.data() - released) >= kReleaseEvery) {
      source.ReleaseResident(released, line.data());
      released = line.data();
    }
    if (line.empty()) continue;
    state.rest = text;
    ++state.recognised_lines;
    absl::Status parsed = ParseLine(state, line);
    if (!parsed.ok() && last_line_open && text.empty()) {
      // The paste stops inside this line: keep what came before it.
      const char* stop = line.data() + line.size();
      state.read.partial_line_location = state.LocationInLine(stop);
      --state.recognised_lines;
      break;
    }
    RETURN_IF_ERROR(parsed);
    last_line = line.data();
    last_line_number = state.line_number;
  }
  source.ReleaseResident(released, text.data());
  return FinishFile(state, source, recognised_before, last_line, last_line_number);
}

}  // namespace
}  // namespace internal

bool LooksLikeBufferAssignment(std::string_view text) {
  const std::string_view head = text.substr(0, 4096);
  return head.starts_with("BufferAssignment:") || head.starts_with("allocation ") ||
         head.find("\nallocation ") != std::string_view::npos ||
         head.starts_with("Used values:") || head.starts_with("HloLiveRange (max ");
}

absl::StatusOr<ir::Program> ParseBufferAssignment(
    const std::vector<std::shared_ptr<const SourceText>>& files, ir::Program program) {
  if (files.empty()) return absl::InvalidArgumentError("no buffer-assignment file given");
  internal::ParseState state(std::move(program));
  state.program.input_format = "buffer-assignment";
  state.program.assignment_source = ir::AssignmentSource::kXla;
  // Room for the values and the instructions they name, estimated from the
  // input's size at one per 512 bytes (the synthetic dumps of bench/ spend
  // about 890 bytes per value; where the estimate is short the vectors grow
  // as before). Capacity never written is never touched, so it costs no
  // resident memory, and a vector not regrown is not copied (a regrowth held
  // both copies of every value at once).
  size_t bytes = 0;
  for (const auto& file : files) bytes += file->text().size();
  constexpr size_t kBytesPerValueAtLeast = 512;
  const size_t expected = bytes / kBytesPerValueAtLeast;
  state.program.values.reserve(state.program.values.size() + expected);
  if (state.program.module.instruction_count() == 0) state.program.module.Reserve(expected, 0);
  state.raw_live_ranges.reserve(expected);  // one per value in the HloLiveRange
  for (const auto& file : files) {
    state.program.source_files.push_back(file->name());
    RETURN_IF_ERROR(internal::ParseFile(state, *file));
  }
  internal::FinishProgram(state);
  // The program's texts are copies in the arena (or views into a module
  // text the program already keeps): it keeps the arena, not the files, so
  // the dump leaves memory when the caller drops it.
  state.program.KeepAlive(state.arena);
  return std::move(state.program);
}

}  // namespace memplan::parsers
