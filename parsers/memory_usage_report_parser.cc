#include "parsers/memory_usage_report_parser.h"


#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/allocation_attributes.h"
#include "parsers/cursor.h"
#include "parsers/dump_files.h"
#include "parsers/human_bytes.h"
#include "parsers/line_position.h"
#include "parsers/memory_usage_report_state.h"
#include "parsers/shape_parser.h"
#include "parsers/utf8.h"

namespace memplan::parsers {
namespace {

using internal::AllocationFacts;
using internal::ReportState;
using internal::Section;
using internal::Style;

constexpr std::string_view kTimes = "\xC3\x97";  // U+00D7 '×' in "2×f32[8]"

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllDashes(std::string_view s) {
  return !s.empty() && s.find_first_not_of('-') == std::string_view::npos;
}

absl::Status ConsumeHuman(ReportState& state, Cursor& c, std::string_view what,
                          HumanBytes* out) {
  c.SkipSpaces();
  if (!ParseHumanBytes(c, out)) {
    return state.Error(c.position(), StrCat("expected ", what, " such as 1.00MiB or 512B"));
  }
  return absl::OkStatus();
}

absl::Status ConsumeLiteral(ReportState& state, Cursor& c, std::string_view literal) {
  if (!c.Consume(literal)) return state.Error(c.position(), StrCat("expected '", literal, "'"));
  return absl::OkStatus();
}

absl::Status ConsumeCount(ReportState& state, Cursor& c, std::string_view what,
                          int64_t* out) {
  c.SkipSpaces();
  if (!c.ConsumeInt(out) || *out < 0) return state.Error(c.position(), StrCat("expected ", what));
  return absl::OkStatus();
}

absl::Status ExpectEnd(ReportState& state, const Cursor& c) {
  if (!c.AtEnd()) return state.Error(c.position(), "expected the end of the line");
  return absl::OkStatus();
}

// "( 31%)" as "%3.0f%%" prints it; "nan" when an allocation's rows sum to 0.
absl::Status ConsumePercent(ReportState& state, Cursor& c) {
  RETURN_IF_ERROR(ConsumeLiteral(state, c, "("));
  c.SkipSpaces();
  int64_t percent = 0;
  if (!c.ConsumeInt(&percent) && !c.Consume("-nan") && !c.Consume("nan") &&
      !c.Consume("inf")) {
    return state.Error(c.position(), "expected a percentage");
  }
  return ConsumeLiteral(state, c, "%)");
}

// "Total bytes used: 4724784 (4.51MiB)" / "Total bytes: 542616 (529.9KiB)"
absl::Status ParseStatedTotal(ReportState& state, Cursor c, std::string_view label,
                              int64_t* total) {
  c.Consume(label);
  if (!c.ConsumeInt(total) || *total < 0) {
    return state.Error(c.position(), "expected the total number of bytes");
  }
  RETURN_IF_ERROR(ConsumeLiteral(state, c, " ("));
  HumanBytes human;
  RETURN_IF_ERROR(ConsumeHuman(state, c, "the total in human-readable form", &human));
  RETURN_IF_ERROR(ConsumeLiteral(state, c, ")"));
  RETURN_IF_ERROR(ExpectEnd(state, c));
  if (!AgreesWithPrinted(*total, human)) {
    state.Warn("total bytes and their human-readable form disagree", human.text.data());
  }
  return absl::OkStatus();
}

// "Memory Space: default (color=0)"
absl::Status ParseMemorySpace(ReportState& state, Cursor c) {
  c.Consume("Memory Space: ");
  const size_t at = c.rest().rfind(" (color=");
  if (at == std::string_view::npos || at == 0) {
    return state.Error(c.position(), "expected 'NAME (color=N)' after 'Memory Space: '");
  }
  c.Advance(at + 8);
  if (!c.ConsumeInt(&state.color)) return state.Error(c.position(), "expected a color number");
  RETURN_IF_ERROR(ConsumeLiteral(state, c, ")"));
  RETURN_IF_ERROR(ExpectEnd(state, c));
  state.in_memory_space = true;
  state.color_total_seen = false;
  state.section = Section::kMemorySpace;
  return absl::OkStatus();
}

absl::Status ParseColorTotal(ReportState& state, Cursor c) {
  if (!state.in_memory_space) {
    return state.Error(c.position(), "expected 'Memory Space: NAME (color=N)' before 'Total bytes:'");
  }
  if (state.color_total_seen) {
    return state.Error(c.position(), "expected one 'Total bytes:' per memory space; this is the second");
  }
  int64_t total = 0;
  RETURN_IF_ERROR(ParseStatedTotal(state, c, "Total bytes: ", &total));
  if (!AddBounded(&state.stated_sum, total)) {
    return state.Error(c.position(), "expected totals below 1 EiB in all");
  }
  state.color_total_seen = true;
  state.any_color_total = true;
  return absl::OkStatus();
}

// "allocation 3: size 1.00MiB, parameter 0, shape |f32[8]| at ShapeIndex {}:"
// (ToShortString with a human-readable size). Makes it the current
// allocation, creating it unless listed before.
absl::Status ParseAllocationHeader(ReportState& state, Cursor c) {
  const char* header_start = c.position();
  c.Consume("allocation ");
  int64_t id = 0;
  if (!c.ConsumeInt(&id) || id < 0) return state.Error(c.position(), "expected an allocation index");
  RETURN_IF_ERROR(ConsumeLiteral(state, c, ": size "));
  ir::Allocation allocation;
  allocation.id = ir::AllocationId(id);
  AllocationFacts facts;
  if (!ParseHumanBytes(c, &facts.printed)) {
    return state.Error(c.position(), "expected the allocation size such as 1.00MiB or 512B");
  }
  allocation.size = facts.printed.bytes;
  const std::string_view rest = c.rest();
  if (rest.empty() || rest.back() != ':') {
    return state.Error(rest.data() + rest.size(), "expected ':' ending the allocation header");
  }
  RETURN_IF_ERROR(ParseAllocationAttributes(
      Cursor(rest.substr(0, rest.size() - 1)), *state.source, allocation,
      [&](std::string_view kind, const char* at) { state.Warn(kind, at); }));
  facts.header = std::string_view(header_start, rest.data() + rest.size() - header_start);
  auto [it, inserted] = state.index_by_id.try_emplace(id, state.program.allocations.size());
  if (inserted) {
    // Twice the printed size: the exact one may be up to 0.5% larger.
    if (!AddBounded(&state.allocation_bytes, allocation.size) ||
        !AddBounded(&state.allocation_bytes, allocation.size)) {
      return state.Error(header_start, "expected allocation sizes below 1 EiB in all");
    }
    state.program.allocations.push_back(std::move(allocation));
    state.facts.push_back(facts);
  } else if (state.facts[it->second].header != facts.header) {
    state.Warn("allocation listed twice with different headers (first kept)", header_start);
  }
  state.current_allocation = static_cast<int64_t>(it->second);
  return absl::OkStatus();
}

// "   1.00MiB( 22%);    3.51MiB; allocation 0: size 1.00MiB, ...:"
absl::Status ParseSummaryRow(ReportState& state, Cursor c) {
  HumanBytes ignored;
  RETURN_IF_ERROR(ConsumeHuman(state, c, "the cumulative size", &ignored));
  RETURN_IF_ERROR(ConsumePercent(state, c));
  RETURN_IF_ERROR(ConsumeLiteral(state, c, "; "));
  RETURN_IF_ERROR(ConsumeHuman(state, c, "the size not yet counted", &ignored));
  RETURN_IF_ERROR(ConsumeLiteral(state, c, "; "));
  if (!c.StartsWith("allocation ")) {
    return state.Error(c.position(), "expected 'allocation N: size S...:'");
  }
  RETURN_IF_ERROR(ParseAllocationHeader(state, c));
  state.current_allocation = -1;  // the summary lists no values
  return absl::OkStatus();
}

// "The rest 3 allocations are less than 5% of the total size and not shown."
// "The rest 7 values are less than 5% of the total size and not shown."
absl::Status ParseRest(ReportState& state, Cursor c, std::string_view noun, int64_t* count) {
  c.Consume("The rest ");
  if (!c.ConsumeInt(count) || *count < 0) return state.Error(c.position(), "expected a count");
  RETURN_IF_ERROR(ConsumeLiteral(state, c, StrCat(" ", noun, " are less than ")));
  int64_t percent = 0;
  if (!c.ConsumeInt(&percent)) return state.Error(c.position(), "expected a percentage");
  RETURN_IF_ERROR(ConsumeLiteral(state, c, "% of the total size and not shown."));
  RETURN_IF_ERROR(ExpectEnd(state, c));
  state.percentile = percent;
  return absl::OkStatus();
}

absl::Status StartTable(ReportState& state, const char* at) {
  if (state.style == Style::kAllocations2024) {
    if (state.section != Section::kWithValues || state.current_allocation < 0) {
      return state.Error(at, "expected an 'allocation N: size S...:' header before this table");
    }
    if (state.facts[state.current_allocation].has_table) {
      state.Warn("second table for one allocation (rows added to the first)", at);
    }
  } else {
    if (!state.in_memory_space) {
      return state.Error(at, "expected 'Memory Space: NAME (color=N)' before the first table");
    }
    ir::Allocation allocation;
    allocation.id = ir::AllocationId(static_cast<int64_t>(state.program.allocations.size()));
    allocation.color = state.color;
    state.current_allocation = static_cast<int64_t>(state.program.allocations.size());
    state.program.allocations.push_back(std::move(allocation));
    state.facts.emplace_back();
  }
  state.facts[state.current_allocation].has_table = true;
  state.in_table = true;
  state.expect_dashes = true;
  return absl::OkStatus();
}

// The shapes of one row: "f32[64,512], 2×f32[512,512]". Shapes hold ", "
// themselves, so the list is read with the shape grammar, not split.
struct RowShapes {
  bool understood = true;
  int64_t count = 0;           // values, adding up the "N×" counts
  int64_t largest_bytes = -1;  // the largest shape's byte size
  ir::Shape largest;
  const char* stopped_at = nullptr;  // where reading failed
};

RowShapes ReadRowShapes(std::string_view text) {
  RowShapes shapes;
  Cursor c(text);
  while (!c.AtEnd()) {
    int64_t repeat = 1;
    if (IsDigit(c.Peek())) {
      Cursor count = c;
      int64_t n = 0;
      if (count.ConsumeInt(&n) && count.Consume(kTimes)) {
        repeat = n;
        c = count;
      }
    }
    ir::Shape shape;
    std::optional<int64_t> bytes;
    if (!ParseShape(c, &shape) || !(bytes = CheckedByteSizeOf(shape)) ||
        __builtin_add_overflow(shapes.count, repeat, &shapes.count)) {
      shapes.understood = false;
      shapes.stopped_at = c.position();
      return shapes;
    }
    if (*bytes > shapes.largest_bytes) {
      shapes.largest_bytes = *bytes;
      shapes.largest = std::move(shape);
    }
    if (c.AtEnd()) break;
    if (!c.Consume(", ")) {
      shapes.understood = false;
      shapes.stopped_at = c.position();
      return shapes;
    }
  }
  if (shapes.largest_bytes < 0) shapes.understood = false;  // an empty list
  if (!shapes.understood && shapes.stopped_at == nullptr) shapes.stopped_at = c.position();
  return shapes;
}

// A row's numbers as printed.
struct PrintedRow {
  HumanBytes printed;
  int64_t offset = 0;
  int64_t count = 0;  // used_by_n_values
  std::string_view shapes_text;
};

// "    1.00MiB(100%);    1.00MiB;            0;                2; 2×f32[512,512]"
absl::StatusOr<PrintedRow> ReadRowFields(ReportState& state, Cursor& c) {
  PrintedRow row;
  HumanBytes cumulative;
  RETURN_IF_ERROR(ConsumeHuman(state, c, "the cumulative size", &cumulative));
  RETURN_IF_ERROR(ConsumePercent(state, c));
  RETURN_IF_ERROR(ConsumeLiteral(state, c, "; "));
  RETURN_IF_ERROR(ConsumeHuman(state, c, "the row's size", &row.printed));
  RETURN_IF_ERROR(ConsumeLiteral(state, c, "; "));
  RETURN_IF_ERROR(ConsumeCount(state, c, "the offset in bytes", &row.offset));
  RETURN_IF_ERROR(ConsumeLiteral(state, c, "; "));
  RETURN_IF_ERROR(ConsumeCount(state, c, "the number of values (used_by_n_values)", &row.count));
  // "; " then the shapes; a row of no values ends with "; ".
  if (!c.Consume("; ") && !c.Consume(";")) return state.Error(c.position(), "expected '; '");
  row.shapes_text = c.rest();
  return row;
}

// The row's size: its largest shape's bytes when the shapes read and agree
// with the printed size (exact), else the printed size; warns why not.
std::pair<int64_t, bool> RowSize(ReportState& state, const PrintedRow& row, const RowShapes& shapes) {
  if (!shapes.understood) {
    state.Warn("shape not understood (row size kept as printed)", shapes.stopped_at);
    return {row.printed.bytes, row.printed.exact};
  }
  if (shapes.count != row.count) {
    state.Warn("a row's shape counts do not add up to its used_by_n_values", row.shapes_text.data());
  }
  if (AgreesWithPrinted(shapes.largest_bytes, row.printed)) return {shapes.largest_bytes, true};
  state.Warn("a row's shapes do not give its printed size (printed size kept)", row.printed.text.data());
  return {row.printed.bytes, row.printed.exact};
}

absl::Status ParseTableRow(ReportState& state, Cursor c) {
  ASSIGN_OR_RETURN(const PrintedRow row, ReadRowFields(state, c));
  const RowShapes shapes = ReadRowShapes(row.shapes_text);
  const auto [size, exact] = RowSize(state, row, shapes);
  if (!exact) ++state.rounded_rows;
  int64_t end = row.offset;
  if (!AddBounded(&end, size) || !AddBounded(&state.value_bytes, size)) {
    return state.Error(row.printed.text.data(), "expected offsets and sizes below 1 EiB in all");
  }
  ir::Allocation& allocation = state.program.allocations[state.current_allocation];
  AllocationFacts& facts = state.facts[state.current_allocation];
  if (end > facts.rows_end) {
    // The allocation may grow to its last row's end: keep that in the bound.
    if (!AddBounded(&state.allocation_bytes, end - facts.rows_end)) {
      return state.Error(row.printed.text.data(), "expected allocation sizes below 1 EiB in all");
    }
    facts.rows_end = end;
  }
  facts.rows_exact = facts.rows_exact && exact;
  ir::Value value;
  value.id = ir::ValueId(static_cast<int64_t>(state.program.values.size()));
  value.color = allocation.color;
  value.size = size;
  value.allocation = allocation.id;
  value.offset = row.offset;
  value.shape_text = row.shapes_text;
  if (shapes.understood) value.shape = shapes.largest;
  allocation.values.push_back(value.id);
  state.program.values.push_back(std::move(value));
  return absl::OkStatus();
}

// Lines inside a table: dashes, rows, and "The rest N values ...".
absl::Status ParseTableLine(ReportState& state, Cursor c) {
  if (AllDashes(c.rest())) {
    if (!state.expect_dashes) state.Warn("unexpected dashed line", c.position());
    state.expect_dashes = false;
    return absl::OkStatus();
  }
  state.expect_dashes = false;
  if (c.StartsWith("The rest ")) {
    int64_t count = 0;
    RETURN_IF_ERROR(ParseRest(state, c, "values", &count));
    state.facts[state.current_allocation].truncated = true;
    state.omitted_rows += count;
    return absl::OkStatus();
  }
  return ParseTableRow(state, c);
}

// "cumulative_size; total_size - cumulative_size; allocation" or the
// per-allocation "cumulative_size;       size;       offset; ...".
absl::Status ParseColumnHeader(ReportState& state, Cursor c) {
  const std::string_view text = c.rest();
  if (text.find("shapes_list") != std::string_view::npos) return StartTable(state, c.position());
  if (text.find("allocation") != std::string_view::npos &&
      state.style == Style::kAllocations2024 && state.section == Section::kSummary) {
    state.summary_rows = true;
    state.expect_dashes = true;
    return absl::OkStatus();
  }
  return state.Error(c.position(),
                     "expected a column header ending in 'shapes_list' (or, after "
                     "'Allocations sorted by size:', in 'allocation')");
}

absl::Status Parse2024Line(ReportState& state, Cursor c, bool indented) {
  if (c.StartsWith("Total bytes used: ")) {
    if (state.program.stated_total_bytes) {
      return state.Error(c.position(), "expected one 'Total bytes used:' line; this is the second");
    }
    int64_t total = 0;
    RETURN_IF_ERROR(ParseStatedTotal(state, c, "Total bytes used: ", &total));
    if (total >= kMaxTotalBytes) return state.Error(c.position(), "expected a total below 1 EiB");
    state.program.stated_total_bytes = total;
    return absl::OkStatus();
  }
  if (c.Consume("Allocations sorted by size with their values:")) {
    RETURN_IF_ERROR(ExpectEnd(state, c));
    state.section = Section::kWithValues;
    state.with_values_seen = true;
    state.summary_rows = false;
    state.current_allocation = -1;
    return absl::OkStatus();
  }
  if (c.Consume("Allocations sorted by size:")) {
    RETURN_IF_ERROR(ExpectEnd(state, c));
    state.section = Section::kSummary;
    return absl::OkStatus();
  }
  if (state.section == Section::kSummary && c.StartsWith("The rest ")) {
    state.summary_rows = false;
    return ParseRest(state, c, "allocations", &state.omitted_allocations);
  }
  if (state.section == Section::kSummary && state.summary_rows && IsDigit(c.Peek())) {
    state.expect_dashes = false;
    return ParseSummaryRow(state, c);
  }
  if ((state.section == Section::kWithValues || state.section == Section::kTop) && !indented &&
      c.StartsWith("allocation ")) {
    // A section pasted without its "Allocations sorted by size with their
    // values:" heading starts at its allocation header.
    if (state.section == Section::kTop) state.excerpt = true;
    state.section = Section::kWithValues;
    return ParseAllocationHeader(state, c);
  }
  state.Warn("unrecognized line (skipped)", c.position());
  return absl::OkStatus();
}

absl::Status ParseLine(ReportState& state, std::string_view line) {
  Cursor c(line);
  c.SkipSpaces();
  const bool indented = c.position() != line.data();
  if (c.AtEnd()) {  // a blank line ends a table or the summary's rows
    state.in_table = false;
    state.expect_dashes = false;
    state.summary_rows = false;
    return absl::OkStatus();
  }
  if (!state.in_table && indented && IsDigit(c.Peek()) &&
      state.style == Style::kAllocations2024 && state.section == Section::kWithValues &&
      state.current_allocation >= 0 && !state.facts[state.current_allocation].has_table) {
    // A pasted section whose column header was left out: rows follow the
    // allocation header directly.
    RETURN_IF_ERROR(StartTable(state, c.position()));
    state.expect_dashes = false;
  }
  if (state.in_table && indented && !c.StartsWith("cumulative_size;")) {
    return ParseTableLine(state, c);
  }
  state.in_table = false;
  if (c.StartsWith("cumulative_size;")) return ParseColumnHeader(state, c);
  if (AllDashes(c.rest())) {
    if (!state.expect_dashes) state.Warn("unexpected dashed line", c.position());
    state.expect_dashes = false;
    return absl::OkStatus();
  }
  if (state.style == Style::kAllocations2024) return Parse2024Line(state, c, indented);
  if (c.StartsWith("Memory Space: ")) return ParseMemorySpace(state, c);
  if (c.StartsWith("Total bytes: ")) return ParseColorTotal(state, c);
  state.Warn("unrecognized line (skipped)", c.position());
  return absl::OkStatus();
}

absl::Status ParseText(ReportState& state) {
  const SourceText& source = *state.source;
  std::string_view text = source.text();
  if (const size_t bad = FirstInvalidUtf8(text); bad < text.size()) {
    return source.ErrorAt(text.data() + bad, "expected UTF-8 text");
  }
  bool first = true;
  std::string_view line;
  while (state.NextLine(text, &line)) {
    if (first) {
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      first = false;
      if (line.starts_with("Total bytes used: ")) {
        state.style = Style::kAllocations2024;
      } else if (line.starts_with("Memory Space: ")) {
        state.style = Style::kMemorySpaces;
      } else {
        return source.ErrorAt(line.data(),
                              "expected an XLA memory-usage report, starting with 'Total bytes "
                              "used: N (...)' or 'Memory Space: NAME (color=N)'");
      }
    }
    RETURN_IF_ERROR(ParseLine(state, line));
  }
  if (first) {
    return source.ErrorAt(source.text().data() + source.text().size(),
                          "expected an XLA memory-usage report, starting with 'Total bytes "
                          "used: N (...)' or 'Memory Space: NAME (color=N)'");
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

// "allocation 19: size 22.81GiB, ..." at a line's start: a size with a unit,
// as only the report prints it (a buffer assignment prints bytes).
bool HasHumanSizedAllocation(std::string_view head) {
  for (size_t at = head.find("allocation "); at != std::string_view::npos;
       at = head.find("allocation ", at + 1)) {
    if (at != 0 && head[at - 1] != '\n') continue;
    Cursor c(head.substr(at + 11));
    int64_t id = 0;
    if (!c.ConsumeInt(&id) || !c.Consume(": size ")) continue;
    HumanBytes size;
    return ParseHumanBytes(c, &size) && !size.text.empty() && !IsDigit(size.text.back());
  }
  return false;
}

}  // namespace

bool LooksLikeMemoryUsageReport(std::string_view head, std::string_view file_name) {
  if (file_name.ends_with(kMemoryUsageReportSuffix)) return true;
  if (head.starts_with("Memory Space: ")) return true;
  // A section pasted alone: "Total bytes used: N (24.28GiB)" then
  // "allocation 19: size 22.81GiB, preallocated-temp:" and its rows.
  return head.starts_with("Total bytes used:") &&
         (head.find("Allocations sorted by size") != std::string_view::npos ||
          HasHumanSizedAllocation(head));
}

absl::StatusOr<ir::Program> ParseMemoryUsageReport(
    const std::vector<std::shared_ptr<const SourceText>>& files, ir::Program program) {
  if (files.size() != 1) {
    return absl::InvalidArgumentError("a memory-usage report is one file");
  }
  ReportState state;
  state.source = files.front().get();
  state.program = std::move(program);
  state.program.input_format = "memory-usage-report";
  state.program.assignment_source = ir::AssignmentSource::kXla;
  state.program.source_files.push_back(files.front()->name());
  state.program.KeepAlive(files.front());
  RETURN_IF_ERROR(ParseText(state));
  FinishReport(state);
  return std::move(state.program);
}

}  // namespace memplan::parsers
