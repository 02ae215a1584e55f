// Settles a memory-usage report once every line is read: sizes, notes,
// order (memory_usage_report_state.h).
#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>

#include "ir/strings.h"
#include "parsers/allocation_attributes.h"
#include "parsers/cursor.h"
#include "parsers/human_bytes.h"
#include "parsers/memory_usage_report_state.h"
#include "parsers/shape_parser.h"

namespace memplan::parsers::internal {
namespace {

// The byte size of the parameter's shape at its index: V2024 prints the whole
// parameter shape, newer XLA the sub-shape already.
std::optional<int64_t> ParameterBytes(const ir::Allocation& a) {
  ir::Shape shape;
  Cursor c(a.parameter_shape_text);
  if (!ParseShape(c, &shape) || !c.AtEnd()) return std::nullopt;
  const ir::Shape* sub = &shape;
  for (int64_t i : a.parameter_index) {
    if (!sub->IsTuple()) break;  // already the sub-shape
    if (i < 0 || i >= static_cast<int64_t>(sub->tuple_elements.size())) return std::nullopt;
    sub = &sub->tuple_elements[i];
  }
  return CheckedByteSizeOf(*sub);
}

std::optional<int64_t> OutputBytes(const ir::Allocation& a) {
  if (!a.output_shape_text) return std::nullopt;
  ir::Shape shape;
  Cursor c(*a.output_shape_text);
  if (!ParseShape(c, &shape) || !c.AtEnd()) return std::nullopt;
  return CheckedByteSizeOf(shape);
}

// 2024 style: each allocation's exact size where the text pins it down (an
// exact "<n>B", the parameter's or output's shape, the end of a complete
// table, or the stated total less every other allocation) and agrees with the
// printed size; else the printed, rounded one.
void ResolveSizes2024(ReportState& state) {
  ir::Program& program = state.program;
  std::vector<size_t> unresolved;
  for (size_t i = 0; i < program.allocations.size(); ++i) {
    ir::Allocation& a = program.allocations[i];
    AllocationFacts& f = state.facts[i];
    std::optional<int64_t> candidates[3] = {
        ParameterBytes(a), OutputBytes(a),
        f.has_table && !f.truncated && f.rows_exact ? std::optional<int64_t>(f.rows_end)
                                                    : std::nullopt};
    f.size_exact = f.printed.exact;
    for (const std::optional<int64_t>& candidate : candidates) {
      if (f.size_exact) break;
      if (candidate && AgreesWithPrinted(*candidate, f.printed)) {
        a.size = *candidate;
        f.size_exact = true;
      }
    }
    if (!f.size_exact) unresolved.push_back(i);
  }
  const bool all_listed = state.with_values_seen || state.omitted_allocations == 0;
  if (unresolved.size() == 1 && all_listed && program.stated_total_bytes) {
    int64_t others = 0;
    for (size_t i = 0; i < program.allocations.size(); ++i) {
      if (i != unresolved.front()) others += program.allocations[i].size;
    }
    const int64_t rest = *program.stated_total_bytes - others;
    AllocationFacts& f = state.facts[unresolved.front()];
    if (rest >= 0 && AgreesWithPrinted(rest, f.printed)) {
      program.allocations[unresolved.front()].size = rest;
      f.size_exact = true;
      unresolved.clear();
    }
  }
  for (size_t i : unresolved) {
    // Keep the values inside: a rounded size may read below the last row.
    ir::Allocation& a = program.allocations[i];
    a.size = std::max(a.size, state.facts[i].rows_end);
  }
  if (!unresolved.empty()) {
    program.notes.push_back({ir::NoteCode::kReportRoundedAllocationSizes,
                             {static_cast<int64_t>(unresolved.size()),
                              static_cast<int64_t>(program.allocations.size())},
                             {std::string(state.facts[unresolved.front()].printed.text)}});
  }
}

void FinishNotes(ReportState& state) {
  ir::Program& program = state.program;
  if (state.style == Style::kMemorySpaces) {
    for (size_t i = 0; i < program.allocations.size(); ++i) {
      program.allocations[i].size = state.facts[i].rows_end;
    }
    if (state.any_color_total) program.stated_total_bytes = state.stated_sum;
    program.notes.push_back({ir::NoteCode::kReportNoAllocationHeaders, {}, {}});
    int64_t listed = 0;
    for (const ir::Allocation& a : program.allocations) listed += a.size;
    if (state.any_color_total && listed != state.stated_sum) {
      program.notes.push_back(
          {ir::NoteCode::kReportBytesOutsideRows, {state.stated_sum - listed}, {}});
    }
  } else {
    ResolveSizes2024(state);
    program.notes.push_back({ir::NoteCode::kReportValuesAreRows, {}, {}});
    if (state.omitted_allocations > 0 && !state.with_values_seen) {
      program.notes.push_back(
          {ir::NoteCode::kReportOmitsAllocations, {state.omitted_allocations}, {}});
    }
    // A section pasted without the report's headings lists only some of the
    // allocations its stated total counts.
    int64_t listed = 0;
    for (const ir::Allocation& a : program.allocations) listed += a.size;
    if (state.excerpt && program.stated_total_bytes && listed < *program.stated_total_bytes) {
      program.notes.push_back(
          {ir::NoteCode::kReportBytesOutsideRows, {*program.stated_total_bytes - listed}, {}});
    }
  }
  if (state.omitted_rows > 0) {
    program.notes.push_back(
        {ir::NoteCode::kReportOmitsRows, {state.omitted_rows, state.percentile}, {}});
  }
  if (state.rounded_rows > 0) {
    program.notes.push_back({ir::NoteCode::kReportRoundedValueSizes, {state.rounded_rows}, {}});
  }
}

void SortAndCheck(ReportState& state) {
  ir::Program& program = state.program;
  std::vector<size_t> order(program.allocations.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return program.allocations[a].id < program.allocations[b].id;
  });
  std::vector<ir::Allocation> allocations;
  std::vector<AllocationFacts> facts;
  for (size_t i : order) {
    allocations.push_back(std::move(program.allocations[i]));
    facts.push_back(state.facts[i]);
  }
  program.allocations = std::move(allocations);
  state.facts = std::move(facts);
  for (size_t i = 0; i < program.allocations.size(); ++i) {
    const ir::Allocation& a = program.allocations[i];
    if (!state.facts[i].size_exact && state.style == Style::kAllocations2024) continue;
    for (ir::ValueId id : a.values) {
      const ir::Value* v = program.FindValue(id);
      if (v->offset > a.size || v->size > a.size - v->offset) {
        program.diagnostics.Warn("value extends past the end of its allocation",
                                 StrCat("row ", v->id.value(), " in allocation ", a.id.value()));
      }
    }
  }
}

}  // namespace

void FinishReport(ReportState& state) {
  FinishNotes(state);
  SortAndCheck(state);
}

}  // namespace memplan::parsers::internal
