// The report's table and tree sections (the charts have their own files).
#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/memory_stats.h"
#include "analyzer/value_category.h"
#include "ir/strings.h"
#include "viz/describe.h"
#include "viz/format.h"
#include "viz/html_page.h"
#include "viz/html_sections.h"
#include "viz/svg.h"

namespace memplan::viz {

std::string SamplingNotice(std::string_view text) {
  return StrCat("<p class=\"notice\">", HtmlEscape(text), "</p>\n");
}

std::string BytesCells(int64_t bytes) {
  return StrCat("<td class=\"num\">", HumanBytes(bytes), "</td><td class=\"num\">",
                GroupedBytes(bytes), "</td>");
}

namespace {

using analyzer::Analysis;

// "…/dir/file.py:12": the last two components of a long source path (the
// whole path goes in the row's tooltip).
std::string ShortSource(const std::string& full) {
  size_t cut = std::string::npos;
  int slashes = 0;
  for (size_t i = full.size(); i-- > 0;) {
    if (full[i] == '/' && ++slashes == 2) {
      cut = i;
      break;
    }
  }
  if (cut == std::string::npos || cut == 0) return full;
  return StrCat("\xE2\x80\xA6", full.substr(cut));
}

std::string Td(std::string_view text, std::string_view css_class = {}) {
  return HtmlTd(text, css_class);
}

std::string TdElided(std::string_view text, size_t max_chars, std::string_view css_class = {}) {
  return HtmlTdElided(text, max_chars, css_class);
}

std::string Th(std::string_view text, bool numeric = false) { return HtmlTh(text, numeric); }

std::string Count(size_t n) { return GroupedBytes(static_cast<int64_t>(n)); }

std::string OkOrBad(bool ok, std::string_view ok_text, std::string_view bad_text) {
  return ok ? StrCat("<span class=\"ok\">", HtmlEscape(ok_text), "</span>")
            : StrCat("<span class=\"bad\">", HtmlEscape(bad_text), "</span>");
}

std::string Card(std::string_view label, std::string_view big, std::string_view small) {
  return StrCat("<div class=\"card\"><div class=\"label\">", HtmlEscape(label),
                "</div><div class=\"big\">", HtmlEscape(big), "</div><div class=\"small\">",
                HtmlEscape(small), "</div></div>");
}

std::string CategoryBreakdown(const analyzer::BytesByCategory& bytes) {
  std::string out;
  for (int c = 0; c < analyzer::kNumValueCategories; ++c) {
    if (bytes[c] == 0) continue;
    if (!out.empty()) out += ", ";
    StrAppend(&out, CategoryWord(static_cast<analyzer::ValueCategory>(c)), " ",
              HumanBytes(bytes[c]));
  }
  return out.empty() ? "nothing" : out;
}

void AppendCategoryTable(std::string& out, const analyzer::MemoryStats& s) {
  StrAppend(&out, "<table>\n<tr>", Th("category"), Th("size", true), Th("bytes", true),
            Th("note"), "</tr>\n");
  // A number the input does not state reads "not stated", never 0.
  auto row = [&](std::string_view name, analyzer::StatsField field, std::string note_html,
                 int category = -1) {
    std::string swatch;
    if (category >= 0) {
      swatch = StrCat("<span class=\"swatch\" style=\"display:inline-block;width:10px;"
                      "height:10px;margin-right:6px;background:",
                      CategoryColor(category), "\"></span>");
    }
    const std::optional<int64_t> bytes = s.Get(field);
    StrAppend(&out, "<tr><td>", swatch, HtmlEscape(name), "</td>",
              bytes ? BytesCells(*bytes) : "<td class=\"num\">not stated</td><td></td>", "<td>",
              bytes ? note_html : "the input does not state it", "</td></tr>\n");
  };
  using analyzer::StatsField;
  using analyzer::ValueCategory;
  row("argument", StatsField::kArgument, "the entry computation's arguments",
      static_cast<int>(ValueCategory::kParameter));
  row("output", StatsField::kOutput, "the program's outputs (XLA: maybe-live-out)",
      static_cast<int>(ValueCategory::kOutput));
  row("alias", StatsField::kAlias, "arguments that are also outputs (donated)");
  row("temp", StatsField::kTemp, "XLA's preallocated temp buffers",
      static_cast<int>(ValueCategory::kTemporary));
  row("constant", StatsField::kConstant, "", static_cast<int>(ValueCategory::kConstant));
  row("thread-local", StatsField::kThreadLocal, "",
      static_cast<int>(ValueCategory::kThreadLocal));
  std::string total_note = "sum of all allocations";
  if (s.from_stated_categories) total_note = "as the input states it (see the notes)";
  if (s.stated_total_bytes) {
    total_note = s.TotalMatchesStated()
                     ? OkOrBad(true, "equals the dump's 'Total bytes used'", "")
                     : OkOrBad(false, "", StrCat("DIFFERS from the dump's 'Total bytes used' (",
                                                 GroupedBytes(*s.stated_total_bytes), ")"));
  }
  row("total allocation", StatsField::kTotalAllocation, total_note);
  row("device footprint", StatsField::kDeviceFootprint, "argument + output &minus; alias + temp");
  out += "</table>\n";
}

void AppendValueRow(std::string& out, const ir::Program& program, const Analysis& analysis,
                    size_t rank, const ir::Value& v) {
  const ValueLabels labels = LabelsOf(program, analysis, v);
  std::string tip = StrCat(labels.name, " (value ", v.id.value(), "): ",
                           GroupedBytes(v.size), " bytes");
  if (!labels.op_name.empty()) StrAppend(&tip, "\nop_name: ", labels.op_name);
  if (!labels.opcode.empty()) StrAppend(&tip, "\nopcode: ", labels.opcode);
  if (!labels.source.empty()) StrAppend(&tip, "\nsource: ", labels.source);
  std::string category;
  std::string where;
  if (const ir::Allocation* a = program.FindAllocation(v.allocation)) {
    category = std::string(CategoryWord(analyzer::CategoryOf(*a)));
    where = StrCat(a->id.value(), " @ ", GroupedBytes(v.offset));
  }
  const std::string range =
      v.live_range ? StrCat(v.live_range->start, "\xE2\x80\x93", v.live_range->end) : "";
  StrAppend(&out, "<tr data-tip=\"", HtmlEscape(tip), "\">", Td(StrCat(rank), "num"),
            Td(HumanBytes(v.size), "num"), TdElided(labels.name, 40, "mono"),
            TdElided(v.shape_text, 30, "mono"), Td(category), Td(where, "num"), Td(range, "num"),
            TdElided(labels.op_type, 20), TdElided(ShortSource(labels.source), 36, "mono"),
            "</tr>\n");
}

void AppendValueTable(std::string& out, const ir::Program& program, const Analysis& analysis,
                      const std::vector<const ir::Value*>& values) {
  StrAppend(&out, "<table>\n<tr>", Th("#", true), Th("size", true),
            Th("value"), Th("shape"), Th("category"), Th("alloc @ offset", true),
            Th("live range", true), Th("op_type"), Th("source"), "</tr>\n");
  for (size_t i = 0; i < values.size(); ++i) {
    AppendValueRow(out, program, analysis, i + 1, *values[i]);
  }
  out += "</table>\n";
}

// The attribution tree as nested <details>, within a budget of nodes.
class AttributionWriter {
 public:
  AttributionWriter(const HtmlReportLimits& limits, int64_t total)
      : limits_(limits), total_(total), budget_(limits.attribution_nodes) {}

  void Write(std::string& out, const analyzer::AttributionNode& node, int depth) {
    --budget_;
    const std::string label = Label(node);
    if (node.children.empty()) {
      StrAppend(&out, "<div class=\"leaf\">", label, "</div>\n");
      return;
    }
    StrAppend(&out, "<details", depth < 2 ? " open" : "", "><summary>", label,
              "</summary>\n<div class=\"node\">\n");
    size_t shown = 0;
    int64_t hidden_bytes = 0;
    int64_t hidden_values = 0;
    for (const analyzer::AttributionNode& child : node.children) {
      const bool room = budget_ > 0 && (limits_.attribution_children <= 0 ||
                                        shown < static_cast<size_t>(limits_.attribution_children));
      if (!room) {
        hidden_bytes += child.bytes;
        hidden_values += child.values;
        continue;
      }
      ++shown;
      Write(out, child, depth + 1);
    }
    if (shown < node.children.size()) {
      truncated_ = true;
      StrAppend(&out, "<div class=\"leaf muted\">\xE2\x80\xA6 ",
                Count(node.children.size() - shown), " more, ", HumanBytes(hidden_bytes), " in ",
                GroupedBytes(hidden_values), " values</div>\n");
    }
    out += "</div>\n</details>\n";
  }

  bool truncated() const { return truncated_; }

 private:
  std::string Label(const analyzer::AttributionNode& node) const {
    const double share = total_ == 0 ? 0.0 : 100.0 * static_cast<double>(node.bytes) / total_;
    const int bar = static_cast<int>(share * 1.2 + 0.5);  // up to 120 px
    return StrCat("<span class=\"bytes\">", HumanBytes(node.bytes),
                  "</span><span class=\"share\">", Percent(share),
                  "</span><span class=\"bar\" style=\"width:", bar, "px\"></span><span "
                  "class=\"name\">",
                  ElidedHtml(node.name, 90), "</span> <span class=\"muted\">(",
                  GroupedBytes(node.values), node.values == 1 ? " value" : " values",
                  ")</span>");
  }

  const HtmlReportLimits& limits_;
  const int64_t total_;
  int budget_;
  bool truncated_ = false;
};

// The headline cards: device footprint, live peak, total allocation, temp.
void AppendSummaryCards(std::string& out, const ir::Program& program, const Analysis& analysis) {
  const analyzer::MemoryStats& s = analysis.stats;
  out += "<div class=\"cards\">";
  out += Card("device footprint", HumanBytes(s.device_footprint_bytes),
              StrCat(GroupedBytes(s.device_footprint_bytes), " bytes"));
  if (analysis.occupied_peak && analysis.peak) {
    // The headline: memory the live values occupy (shared bytes once).
    const analyzer::LivePeak& peak = *analysis.occupied_peak;
    std::string detail = StrCat("step ", peak.step, " of ", analysis.timeline.last_step,
                                peak.instruction.valid() ? ": " : "",
                                InstructionLabel(program, peak.instruction));
    if (analysis.peak->bytes != peak.bytes) {
      StrAppend(&detail, "; XLA's live peak (live value sizes added) ",
                HumanBytes(analysis.peak->bytes));
    }
    out += Card("live peak", HumanBytes(peak.bytes), detail);
  } else {
    out += Card("live peak", "not known", "the input has no live ranges");
  }
  const std::optional<int64_t> total = s.Get(analyzer::StatsField::kTotalAllocation);
  out += Card("total allocation", total ? HumanBytes(*total) : std::string("not stated"),
              !s.stated_total_bytes     ? std::string("nothing stated to check against")
              : s.TotalMatchesStated() ? std::string("equals the dump's 'Total bytes used'")
                                       : std::string("DIFFERS from the dump"));
  const std::optional<int64_t> temp = s.Get(analyzer::StatsField::kTemp);
  out += Card("temp", temp ? HumanBytes(*temp) : std::string("not stated"),
              "XLA's preallocated temp buffers");
  out += "</div>\n";
}

// The table naming the module, its input files and format, the module
// choice when one was made, and what the program holds.
void AppendInputTable(std::string& out, const ReportContext& context) {
  const ir::Program& program = context.program;
  StrAppend(&out, "<table>\n<tr><th>module</th><td class=\"mono\">",
            HtmlEscape(program.module_name), "</td></tr>\n");
  StrAppend(&out, "<tr><th>input</th><td class=\"mono\">");
  for (size_t i = 0; i < program.source_files.size(); ++i) {
    StrAppend(&out, i ? "<br>" : "", HtmlEscape(program.source_files[i]));
  }
  StrAppend(&out, "</td></tr>\n<tr><th>format</th><td>", HtmlEscape(program.input_format),
            "</td></tr>\n");
  if (!context.choice.empty()) {
    StrAppend(&out, "<tr><th>module choice</th><td>", HtmlEscape(context.choice),
              "</td></tr>\n");
  }
  StrAppend(&out, "<tr><th>contents</th><td>", Count(program.values.size()), " values in ",
            Count(program.allocations.size()), " allocations; schedule of ",
            Count(program.schedule.instructions.size()), " instructions</td></tr>\n</table>\n");
}

// The live peak's bytes, step, instruction and values, in one paragraph.
void AppendLivePeak(std::string& out, const ir::Program& program, const Analysis& analysis,
                    const analyzer::LivePeak& peak) {
  StrAppend(&out, "<p><b>", HumanBytes(peak.bytes), "</b> (", GroupedBytes(peak.bytes),
            " bytes) at step ", peak.step, " of ", analysis.timeline.last_step);
  if (peak.instruction.valid()) {
    StrAppend(&out, ", instruction <code>", HtmlEscape(InstructionLabel(program, peak.instruction)),
              "</code>");
  }
  StrAppend(&out, "; ", Count(peak.values.size()), " values live there: ",
            HtmlEscape(CategoryBreakdown(peak.bytes_by_category)), ".</p>\n");
}

// How the dump's own peak list compares with `peak`, or that it states none.
void AppendStatedPeakCheck(std::string& out, const Analysis& analysis,
                           const analyzer::LivePeak& peak) {
  const auto& stated = analysis.stated_peak;
  if (!stated) {
    out += "<p class=\"muted\">The dump states no peak list to check against.</p>\n";
    return;
  }
  StrAppend(&out, "<p>The dump's own peak list: step ", stated->stated_step, ", ",
            GroupedBytes(stated->stated_values), " values, ",
            GroupedBytes(stated->stated_bytes), " bytes: ",
            stated->matches ? OkOrBad(true, "the same peak", "") : std::string("<b>another step</b>"),
            ". Our live ranges at step ",
            stated->stated_step, " give ",
            OkOrBad(stated->list_reproduced, "exactly that list", "a DIFFERENT list"),
            ".</p>\n");
  if (!stated->matches) {
    StrAppend(&out, "<p class=\"muted\">Why the steps differ: ",
              HtmlEscape(DescribeStatedPeakMismatch(*stated, peak)), "</p>\n");
  }
}

}  // namespace

std::string RenderSummarySection(const ReportContext& context) {
  const Analysis& analysis = context.analysis;
  const analyzer::MemoryStats& s = analysis.stats;
  std::string out;
  AppendSummaryCards(out, context.program, analysis);
  AppendInputTable(out, context);
  StrAppend(&out, "<h3>",
            s.from_stated_categories
                ? "Memory by category (as the input states it; it lists no allocations)"
                : "Memory by category (as XLA's CompiledMemoryStats)",
            "</h3>\n");
  AppendCategoryTable(out, s);

  out += "<h3>Live peak (from the HloLiveRange)</h3>\n";
  if (!analysis.peak) {
    out += "<p class=\"muted\">Not available: the input has no live ranges (dumps without the "
           "HloLiveRange, or without '-live-range.txt', carry no schedule).</p>\n";
    return out;
  }
  AppendLivePeak(out, context.program, analysis, *analysis.peak);
  AppendStatedPeakCheck(out, analysis, *analysis.peak);
  return out;
}

std::string RenderPeakValuesSection(const ReportContext& context) {
  const ir::Program& program = context.program;
  const Analysis& analysis = context.analysis;
  const size_t limit = context.limits.table_rows <= 0
                           ? program.values.size()
                           : static_cast<size_t>(context.limits.table_rows);
  std::vector<const ir::Value*> values;
  size_t total = 0;
  std::string out;
  if (analysis.peak) {
    total = analysis.peak->values.size();
    for (size_t i = 0; i < total && i < limit; ++i) {
      values.push_back(program.FindValue(analysis.peak->values[i]));
    }
    StrAppend(&out, "<p>The values live at the peak (step ", analysis.peak->step,
              "), largest first. Hover a row for its exact bytes, op_name and full source "
              "path.</p>\n");
  } else {
    total = program.values.size();
    for (const ir::Value& v : program.values) values.push_back(&v);
    const size_t keep = std::min(limit, values.size());
    std::partial_sort(values.begin(), values.begin() + keep, values.end(),
                      [](const ir::Value* a, const ir::Value* b) {
                        if (a->size != b->size) return a->size > b->size;
                        return a->id < b->id;
                      });
    values.resize(keep);
    out += "<p>The input has no live ranges, so these are the largest values of the "
           "program.</p>\n";
  }
  if (total == 0) return out + "<p class=\"muted\">No values.</p>\n";
  if (values.size() < total) {
    out += SamplingNotice(StrCat("showing the ", Count(values.size()), " largest of ",
                                 Count(total), " values"));
  }
  AppendValueTable(out, program, context.analysis, values);
  return out;
}

std::string RenderAttributionSection(const ReportContext& context) {
  const Analysis& analysis = context.analysis;
  if (analysis.attributed_values.empty()) return "";
  std::string out;
  StrAppend(&out, "<p>The ", HtmlEscape(AttributionScopeName(analysis.attribution_scope)), " (",
            Count(analysis.attributed_values.size()), " values) by <b>",
            analyzer::AttributionKeyName(analysis.attribution_key),
            "</b>. Click a line to fold or unfold it.</p>\n");
  AttributionWriter writer(context.limits, analysis.attribution.bytes);
  std::string tree;
  writer.Write(tree, analysis.attribution, 0);
  if (writer.truncated()) {
    const int children = context.limits.attribution_children;
    out += SamplingNotice(StrCat("showing at most ", children,
                                 children == 1 ? " child" : " children", " per node and ",
                                 context.limits.attribution_nodes, " nodes in all; the rest are summed in \xE2\x80\x9C\xE2\x80\xA6 "
                                 "more\xE2\x80\x9D lines"));
  }
  StrAppend(&out, "<div class=\"tree\">\n", tree, "</div>\n");
  return out;
}

std::string RenderTempArenaSection(const ReportContext& context) {
  const auto& arenas = context.analysis.temp_arenas;
  if (arenas.empty()) return "";
  std::string out =
      "<p>Each preallocated-temp allocation, re-packed with decreasing-size best-fit (as "
      "XLA's heap simulator does), against the size XLA chose and the no-fragmentation "
      "bound (the most bytes live at once).</p>\n";
  const size_t limit = context.limits.table_rows <= 0 ? arenas.size()
                                                      : static_cast<size_t>(context.limits.table_rows);
  if (arenas.size() > limit) {
    out += SamplingNotice(StrCat("showing the first ", Count(limit), " of ",
                                 Count(arenas.size()), " temp arenas"));
  }
  StrAppend(&out, "<table>\n<tr>", Th("allocation", true), Th("XLA size", true),
            Th("best-fit", true), Th("error", true), Th("no-fragmentation bound", true),
            Th("fragmentation", true), Th("alignment", true), Th("buffers", true),
            Th("lifetimes from"), Th("XLA's trace replayed", true), "</tr>\n");
  for (size_t i = 0; i < arenas.size() && i < limit; ++i) {
    const analyzer::TempArenaReport& r = arenas[i];
    std::string replay = "";
    if (r.trace_replay_size) {
      replay = StrCat(GroupedBytes(*r.trace_replay_size),
                      *r.trace_replay_size == r.xla_size ? " (= its size)" : " (NOT its size)");
    }
    StrAppend(&out, "<tr>", Td(StrCat(r.allocation.value()), "num"),
              Td(GroupedBytes(r.xla_size), "num"), Td(GroupedBytes(r.best_fit_size), "num"),
              Td(SignedPercent(r.BestFitErrorPercent()), "num"),
              Td(GroupedBytes(r.lower_bound), "num"), Td(Percent(r.FragmentationPercent()), "num"),
              Td(StrCat(r.alignment), "num"), Td(GroupedBytes(r.buffers), "num"),
              Td(r.lifetimes_from), Td(replay, "num"), "</tr>\n");
  }
  out += "</table>\n";
  return out;
}

std::string RenderAllocationsSection(const ReportContext& context) {
  const ir::Program& program = context.program;
  if (program.allocations.empty()) return "";
  std::vector<const ir::Allocation*> sorted;
  sorted.reserve(program.allocations.size());
  for (const ir::Allocation& a : program.allocations) sorted.push_back(&a);
  const size_t limit = context.limits.table_rows <= 0
                           ? sorted.size()
                           : std::min(sorted.size(), static_cast<size_t>(context.limits.table_rows));
  std::partial_sort(sorted.begin(), sorted.begin() + limit, sorted.end(),
                    [](const ir::Allocation* a, const ir::Allocation* b) {
                      if (a->size != b->size) return a->size > b->size;
                      return a->id < b->id;
                    });
  sorted.resize(limit);
  std::string out;
  if (limit < program.allocations.size()) {
    out += SamplingNotice(StrCat("showing the ", Count(limit), " largest of ",
                                 Count(program.allocations.size()), " allocations"));
  }
  StrAppend(&out, "<table>\n<tr>", Th("#", true), Th("allocation", true), Th("size", true),
            Th("bytes", true), Th("values", true), Th("kind"), Th("shape"), "</tr>\n");
  for (size_t i = 0; i < sorted.size(); ++i) {
    const ir::Allocation& a = *sorted[i];
    std::string_view shape = a.parameter_shape_text;
    if (shape.empty() && a.output_shape_text) shape = *a.output_shape_text;
    StrAppend(&out, "<tr>", Td(StrCat(i + 1), "num"), Td(StrCat(a.id.value()), "num"),
              BytesCells(a.size), Td(Count(a.values.size()), "num"), Td(AllocationKindLabel(a)),
              TdElided(shape, 80, "mono"), "</tr>\n");
  }
  out += "</table>\n";
  return out;
}

std::string RenderNotesSection(const ReportContext& context) {
  const ir::Program& program = context.program;
  std::string out;
  if (!program.notes.empty()) {
    out += "<ul>\n";
    for (const ir::Note& note : program.notes) {
      StrAppend(&out, "<li>", HtmlEscape(DescribeNote(note)), "</li>\n");
    }
    out += "</ul>\n";
  }
  const auto& warnings = program.diagnostics.warnings();
  StrAppend(&out, "<p>Recoverable input problems: ", program.diagnostics.total(), "</p>\n");
  if (!warnings.empty()) {
    StrAppend(&out, "<table>\n<tr>", Th("count", true), Th("kind"), Th("first at"), "</tr>\n");
    for (const ir::Warning& w : warnings) {
      StrAppend(&out, "<tr>", Td(GroupedBytes(w.count), "num"), Td(w.kind),
                TdElided(w.first_location, 80, "mono"), "</tr>\n");
    }
    out += "</table>\n";
  }
  return out;
}

}  // namespace memplan::viz
