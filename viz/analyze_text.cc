// The text report of `memplan analyze`. Its first screen answers how much
// memory, where the peak is, what is live there (identical layers grouped)
// and which line of code made it; the details follow, each said once.
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "analyzer/value_groups.h"
#include "ir/strings.h"
#include "viz/analyze_report.h"
#include "viz/describe.h"
#include "viz/format.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

using analyzer::Analysis;
using Align = TextTable::Align;

// The report being written: its text, width and input.
struct Writer {
  const AnalyzeReportInput& input;
  std::string out;

  size_t Width() const { return input.width > 0 ? static_cast<size_t>(input.width) : 0; }
  // `text` after `lead` on one line, wrapped to the width; continuation
  // lines start with `indent`.
  void Line(std::string_view lead, std::string_view text, std::string_view indent) {
    StrAppend(&out, lead, WrapText(text, Width(), indent, DisplayWidth(lead)), "\n");
  }
  void Table(const TextTable& table) { out += table.Render("  ", Width()); }
  // A name cut to fit after `used` columns.
  std::string Fit(std::string_view text, size_t used) const {
    if (Width() == 0 || used + 12 > Width()) return std::string(text);
    return ElideMiddle(text, Width() - used);
  }
};

size_t Limit(int top_n, size_t size) {
  return top_n <= 0 ? size : std::min(size, static_cast<size_t>(top_n));
}

std::string BytesAndExact(int64_t bytes) {
  return StrCat(HumanBytes(bytes), " (", GroupedBytes(bytes), " bytes)");
}

std::string ShareOf(int64_t bytes, const DeviceMemory& device) {
  return Percent(100.0 * static_cast<double>(bytes) / static_cast<double>(device.bytes));
}

std::string CategoryBreakdown(const analyzer::BytesByCategory& bytes) {
  std::vector<std::string> parts;
  for (int c = 0; c < analyzer::kNumValueCategories; ++c) {
    if (bytes[c] == 0) continue;
    parts.push_back(StrCat(CategoryWord(static_cast<analyzer::ValueCategory>(c)), " ",
                           HumanBytes(bytes[c])));
  }
  return parts.empty() ? "nothing" : absl::StrJoin(parts, ", ");
}

void AppendHeader(Writer& w) {
  const ir::Program& program = w.input.program;
  StrAppend(&w.out, "Module: ", w.Fit(program.module_name, 8), "\n");
  for (size_t i = 0; i < program.source_files.size(); ++i) {
    StrAppend(&w.out, i == 0 ? "Input:  " : "        ", w.Fit(program.source_files[i], 8), "\n");
  }
  if (!w.input.choice.empty()) w.Line("Note:   ", w.input.choice, "        ");
  for (const ir::Note& note : program.notes) w.Line("Note:   ", DescribeNote(note), "        ");
  StrAppend(&w.out, "Values: ", program.values.size(), " in ", program.allocations.size(),
            " allocations\n\n");
}

// How much, and where the peak is: the headline numbers, with the device's
// share of each when a device is given.
void AppendSummary(Writer& w) {
  const Analysis& analysis = w.input.analysis;
  const std::optional<DeviceMemory>& device = w.input.device;
  const std::optional<int64_t> footprint =
      analysis.stats.Get(analyzer::StatsField::kDeviceFootprint);
  if (analysis.occupied_peak) {
    const analyzer::LivePeak& peak = *analysis.occupied_peak;
    std::string text = StrCat(BytesAndExact(peak.bytes), " at step ", peak.step, " of ",
                              analysis.timeline.last_step);
    if (peak.instruction.valid()) {
      StrAppend(&text, ", in instruction ", InstructionLabel(w.input.program, peak.instruction));
    }
    w.Line("Peak:       ", text, "            ");
  } else {
    w.Line("Peak:       ",
           "not available: the input has no live ranges (a dump without the HloLiveRange, or "
           "without '-live-range.txt', carries no schedule)",
           "            ");
  }
  w.Line("Footprint:  ",
         footprint ? StrCat(BytesAndExact(*footprint),
                            " on the device: argument + output - alias + temp")
                   : std::string("not stated by the input"),
         "            ");
  if (device) {
    std::vector<std::string> shares;
    if (analysis.occupied_peak) {
      shares.push_back(StrCat("the peak is ", ShareOf(analysis.occupied_peak->bytes, *device)));
    }
    if (footprint) shares.push_back(StrCat("the footprint ", ShareOf(*footprint, *device)));
    w.Line("Device:     ",
           StrCat(device->name, ", ", BytesAndExact(device->bytes),
                  shares.empty() ? "" : ": ", absl::StrJoin(shares, ", ")),
           "            ");
  }
  if (analysis.occupied_peak) {
    w.Line("Live there: ", CategoryBreakdown(analysis.occupied_peak->bytes_by_category),
           "            ");
  }
  w.out += "\n";
}

// "12 × bf16[6144,1024]", or the shape alone for one value.
std::string GroupValuesLabel(const analyzer::ValueGroup& group) {
  if (group.values.size() == 1) return group.shape;
  return StrCat(group.values.size(), " \xC3\x97 ", group.shape);  // U+00D7
}

// What is there and which line of code: one row per group of identical
// layers, largest total first.
void AppendGroups(Writer& w, const std::string& title, size_t value_count,
                  const std::vector<analyzer::ValueGroup>& groups) {
  const ir::Program& program = w.input.program;
  StrAppend(&w.out, title, ": ", value_count, " values in ", groups.size(),
            " groups of the same shape, category and source, largest first\n");
  // Narrowed first where a column is widest; a source keeps its file name
  // and line, an op_name its last ops.
  TextTable table({{"#", Align::kRight},
                   {"total", Align::kRight},
                   {"values", Align::kLeft, true, 20},
                   {"category"},
                   {"source", Align::kLeft, true, 26, /*keep_end=*/true},
                   {"op_name", Align::kLeft, true, 22, /*keep_end=*/true},
                   {"first value", Align::kLeft, true, 12}});
  const size_t shown = Limit(w.input.top_n, groups.size());
  for (size_t i = 0; i < shown; ++i) {
    const analyzer::ValueGroup& g = groups[i];
    const ir::Value* first = program.FindValue(g.values.front());
    ValueLabels labels = LabelsOf(program, w.input.analysis, *first);
    std::string name = std::move(labels.name);
    if (g.values.size() > 1) StrAppend(&name, " (+", g.values.size() - 1, ")");
    table.AddRow({StrCat(i + 1), HumanBytes(g.total_bytes), GroupValuesLabel(g),
                  std::string(CategoryWord(g.category)),
                  std::move(labels.source), std::string(labels.op_name), std::move(name)});
  }
  w.Table(table);
  if (shown < groups.size()) {
    int64_t rest = 0;
    size_t values = 0;
    for (size_t i = shown; i < groups.size(); ++i) {
      rest += groups[i].total_bytes;
      values += groups[i].values.size();
    }
    StrAppend(&w.out, "  ... ", groups.size() - shown, " more groups: ", values, " values, ",
              HumanBytes(rest), "\n");
  }
  w.out += "\n";
}

void AppendCategories(Writer& w) {
  const analyzer::MemoryStats& s = w.input.analysis.stats;
  const std::optional<DeviceMemory>& device = w.input.device;
  std::vector<TextTable::Column> columns = {
      {"category"}, {"size", Align::kRight}, {"bytes", Align::kRight}};
  if (device) columns.push_back({"of device", Align::kRight});
  columns.push_back({"note", Align::kLeft, true});
  TextTable table(std::move(columns));
  // A number the input does not state reads "not stated", never 0.
  auto row = [&](const char* name, analyzer::StatsField field, std::string note) {
    std::vector<std::string> cells;
    if (const std::optional<int64_t> bytes = s.Get(field)) {
      cells = {name, HumanBytes(*bytes), GroupedBytes(*bytes)};
      if (device) cells.push_back(ShareOf(*bytes, *device));
    } else {
      cells = {name, "not stated", ""};
      if (device) cells.push_back("");
      note = "the input does not state it";
    }
    cells.push_back(std::move(note));
    table.AddRow(std::move(cells));
  };
  row("argument", analyzer::StatsField::kArgument, "the entry computation's arguments");
  row("output", analyzer::StatsField::kOutput, "the program's outputs (XLA: maybe-live-out)");
  row("alias", analyzer::StatsField::kAlias, "arguments that are also outputs (donated)");
  row("temp", analyzer::StatsField::kTemp, "XLA's preallocated temp buffers");
  row("constant", analyzer::StatsField::kConstant, "");
  row("thread-local", analyzer::StatsField::kThreadLocal, "");
  std::string total_note = "sum of all allocations";
  if (s.from_stated_categories) total_note = "as the input states it (see the notes)";
  if (s.stated_total_bytes) {
    total_note = s.TotalMatchesStated()
                     ? "equals the dump's 'Total bytes used'"
                     : StrCat("DIFFERS from the dump's 'Total bytes used' (",
                              GroupedBytes(*s.stated_total_bytes), ")");
  }
  row("total allocation", analyzer::StatsField::kTotalAllocation, total_note);
  row("device footprint", analyzer::StatsField::kDeviceFootprint,
      "argument + output - alias + temp");
  StrAppend(&w.out,
            s.from_stated_categories
                ? "Memory by category (as the input states it; it lists no allocations)\n"
                : "Memory by category (as XLA's CompiledMemoryStats)\n");
  w.Table(table);
  w.out += "\n";
}

// How the headline peak relates to XLA's own figures.
void AppendPeakDetails(Writer& w) {
  const Analysis& analysis = w.input.analysis;
  if (!analysis.peak || !analysis.occupied_peak) return;
  const analyzer::LivePeak& headline = *analysis.occupied_peak;
  const analyzer::LivePeak& peak = *analysis.peak;
  const bool same = peak.bytes == headline.bytes && peak.step == headline.step;
  w.out += "The peak against XLA's figures\n";
  w.Line("  ",
         StrCat("The peak above is the memory the live values occupy, shared bytes counted once. "
                "XLA's live peak: ",
                BytesAndExact(peak.bytes), " at step ", peak.step, same ? ", the same" : "",
                " (", XlaPeakRule(), ")."),
         "  ");
  if (!same) {
    w.Line("  ",
           StrCat(DescribeSharedAtXlaPeak(peak.bytes, analysis.occupied_at_xla_peak,
                                          analysis.stats.total_allocation_bytes),
                  "."),
           "  ");
  }
  if (const auto& stated = analysis.stated_peak) {
    w.Line("  ",
           StrCat("The dump's own peak list: step ", stated->stated_step, ", ",
                  stated->stated_values, " values, ", GroupedBytes(stated->stated_bytes),
                  " bytes: ", stated->matches ? "XLA's live peak" : "another step",
                  "; our live ranges at step ", stated->stated_step, " give ",
                  stated->list_reproduced ? "exactly that list." : "a DIFFERENT list."),
           "  ");
    if (!stated->matches) {
      w.Line("  ", StrCat("Why the steps differ: ", DescribeStatedPeakMismatch(*stated, peak), "."),
             "  ");
    }
  }
  w.out += "\n";
}

void AppendTempArenas(Writer& w) {
  const Analysis& analysis = w.input.analysis;
  if (analysis.temp_arenas.empty()) return;
  w.out += "Temp arena, simulated (decreasing-size best-fit, as XLA's heap simulator)\n";
  TextTable table({{"allocation", Align::kRight}, {"XLA size", Align::kRight},
                   {"best-fit", Align::kRight}, {"error", Align::kRight},
                   {"no-fragmentation bound", Align::kRight}, {"fragmentation", Align::kRight},
                   {"buffers", Align::kRight}, {"lifetimes from", Align::kLeft, true}});
  for (const analyzer::TempArenaReport& r : analysis.temp_arenas) {
    table.AddRow({StrCat(r.allocation.value()), GroupedBytes(r.xla_size),
                  GroupedBytes(r.best_fit_size), SignedPercent(r.BestFitErrorPercent()),
                  GroupedBytes(r.lower_bound), Percent(r.FragmentationPercent()),
                  StrCat(r.buffers), r.lifetimes_from});
  }
  w.Table(table);
  for (const analyzer::TempArenaReport& r : analysis.temp_arenas) {
    if (r.trace_replay_size) {
      StrAppend(&w.out, "  allocation ", r.allocation.value(), ": XLA's trace replayed at XLA's ",
                "offsets reaches ", GroupedBytes(*r.trace_replay_size), " bytes",
                *r.trace_replay_size == r.xla_size ? " (= its size)" : " (NOT its size)", "\n");
    }
    if (r.untraced_values > 0) {
      w.Line("  ",
             StrCat("allocation ", r.allocation.value(), ": ", r.untraced_values,
                    " of its values are not in the trace (tuple index tables)",
                    r.untraced_prefix_bytes > 0
                        ? StrCat("; XLA puts them below its heap, in the first ",
                                 GroupedBytes(r.untraced_prefix_bytes),
                                 " bytes, and best-fit and the bound count those bytes as XLA "
                                 "placed them")
                    : r.untraced_suffix_bytes > 0
                        ? StrCat("; XLA puts them above its heap, in its last ",
                                 GroupedBytes(r.untraced_suffix_bytes),
                                 " bytes, and best-fit and the bound count those bytes as XLA "
                                 "placed them")
                        : std::string("; they are not simulated")),
             "    ");
    }
  }
  w.out += "\n";
}

void AppendAttributionNode(Writer& w, const analyzer::AttributionNode& node, int64_t total,
                           int depth) {
  const double share = total == 0 ? 0.0 : 100.0 * static_cast<double>(node.bytes) / total;
  const std::string lead =
      StrCat("  ", std::string(2 * depth, ' '), HumanBytes(node.bytes), "  ", Percent(share), "  ");
  StrAppend(&w.out, lead, w.Fit(node.name, DisplayWidth(lead)), "\n");
  const int max_children = w.input.top_n;
  int shown = 0;
  int64_t hidden_bytes = 0;
  for (const analyzer::AttributionNode& child : node.children) {
    if (max_children > 0 && shown >= max_children) {
      hidden_bytes += child.bytes;
      continue;
    }
    ++shown;
    AppendAttributionNode(w, child, total, depth + 1);
  }
  if (hidden_bytes > 0) {
    StrAppend(&w.out, "  ", std::string(2 * depth + 2, ' '), "... ",
              node.children.size() - static_cast<size_t>(shown), " more, ",
              HumanBytes(hidden_bytes), "\n");
  }
}

void AppendAttribution(Writer& w) {
  const Analysis& analysis = w.input.analysis;
  if (analysis.attributed_values.empty()) return;
  StrAppend(&w.out, "Attribution of ",
            analysis.attribution_scope == Analysis::AttributionScope::kLivePeak ? "the " : "",
            AttributionScopeName(analysis.attribution_scope),
            " by ", analyzer::AttributionKeyName(analysis.attribution_key), "\n");
  AppendAttributionNode(w, analysis.attribution, analysis.attribution.bytes, 0);
  w.out += "\n";
}

void AppendAllocations(Writer& w) {
  const ir::Program& program = w.input.program;
  StrAppend(&w.out, "Largest allocations (", w.input.analysis.top_allocations.size(), " of ",
            program.allocations.size(), ")\n");
  TextTable table({{"#", Align::kRight}, {"allocation", Align::kRight}, {"size", Align::kRight},
                   {"bytes", Align::kRight}, {"values", Align::kRight},
                   {"kind", Align::kLeft, true}});
  int rank = 0;
  for (ir::AllocationId id : w.input.analysis.top_allocations) {
    const ir::Allocation* a = program.FindAllocation(id);
    table.AddRow({StrCat(++rank), StrCat(a->id.value()), HumanBytes(a->size),
                  GroupedBytes(a->size), StrCat(a->values.size()), AllocationKindLabel(*a)});
  }
  w.Table(table);
  w.out += "\n";
}

void AppendWarnings(Writer& w) {
  const ir::Program& program = w.input.program;
  StrAppend(&w.out, "Recoverable problems: ", program.diagnostics.total(), "\n");
  for (const ir::Warning& warning : program.diagnostics.warnings()) {
    w.Line("  ", StrCat(warning.count, " x ", warning.kind, " (first at ",
                        warning.first_location, ")"),
           "    ");
  }
}

size_t CountValues(const std::vector<analyzer::ValueGroup>& groups) {
  size_t n = 0;
  for (const analyzer::ValueGroup& g : groups) n += g.values.size();
  return n;
}

}  // namespace

std::string RenderAnalyzeText(const AnalyzeReportInput& input) {
  Writer w{input, {}};
  const Analysis& analysis = input.analysis;
  AppendHeader(w);
  AppendSummary(w);
  if (analysis.occupied_peak) {
    AppendGroups(w, "Live at the peak", CountValues(analysis.peak_groups), analysis.peak_groups);
  } else {
    AppendGroups(w, "Largest values", CountValues(analysis.other_groups), analysis.other_groups);
  }
  AppendCategories(w);
  AppendPeakDetails(w);
  AppendTempArenas(w);
  AppendAttribution(w);
  AppendAllocations(w);
  if (analysis.occupied_peak && !analysis.other_groups.empty()) {
    AppendGroups(w, "Largest values not live at the peak", CountValues(analysis.other_groups),
                 analysis.other_groups);
  }
  AppendWarnings(w);
  return MarkupSafeText(w.out);  // names come from the input: no terminal escapes
}

}  // namespace memplan::viz
