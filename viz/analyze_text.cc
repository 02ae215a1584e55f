#include <string>
#include <vector>

#include "ir/strings.h"
#include "absl/strings/str_join.h"
#include "viz/analyze_report.h"
#include "viz/describe.h"
#include "viz/format.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

using analyzer::Analysis;
using Align = TextTable::Align;

void AppendCategories(std::string& out, const Analysis& analysis) {
  const analyzer::MemoryStats& s = analysis.stats;
  TextTable table({{"category"}, {"size", Align::kRight}, {"bytes", Align::kRight}, {"note"}});
  auto row = [&](const char* name, int64_t bytes, std::string note) {
    table.AddRow({name, HumanBytes(bytes), GroupedBytes(bytes), std::move(note)});
  };
  // A number the input does not state reads "not stated", never 0.
  auto stated_row = [&](const char* name, analyzer::StatsField field, std::string note) {
    if (const std::optional<int64_t> bytes = s.Get(field)) {
      row(name, *bytes, std::move(note));
    } else {
      table.AddRow({name, "not stated", "", "the input does not state it"});
    }
  };
  stated_row("argument", analyzer::StatsField::kArgument, "entry parameters");
  stated_row("output", analyzer::StatsField::kOutput, "maybe-live-out");
  stated_row("alias", analyzer::StatsField::kAlias, "parameters that are also outputs (donated)");
  stated_row("temp", analyzer::StatsField::kTemp, "preallocated-temp");
  stated_row("constant", analyzer::StatsField::kConstant, "");
  stated_row("thread-local", analyzer::StatsField::kThreadLocal, "");
  std::string total_note = "sum of all allocations";
  if (s.from_stated_categories) total_note = "as the input states it (see the notes)";
  if (s.stated_total_bytes) {
    total_note = s.TotalMatchesStated()
                     ? "equals the dump's 'Total bytes used'"
                     : StrCat("DIFFERS from the dump's 'Total bytes used' (",
                                    GroupedBytes(*s.stated_total_bytes), ")");
  }
  stated_row("total allocation", analyzer::StatsField::kTotalAllocation, total_note);
  stated_row("device footprint", analyzer::StatsField::kDeviceFootprint,
             "argument + output - alias + temp");
  StrAppend(&out,
            s.from_stated_categories
                ? "Memory by category (as the input states it; it lists no allocations)\n"
                : "Memory by category (as XLA's CompiledMemoryStats)\n",
            table.Render(), "\n");
}

std::string CategoryBreakdown(const analyzer::BytesByCategory& bytes) {
  std::vector<std::string> parts;
  for (int c = 0; c < analyzer::kNumValueCategories; ++c) {
    if (bytes[c] == 0) continue;
    parts.push_back(StrCat(analyzer::CategoryName(static_cast<analyzer::ValueCategory>(c)),
                                 " ", HumanBytes(bytes[c])));
  }
  return parts.empty() ? "nothing" : absl::StrJoin(parts, ", ");
}

void AppendValueTable(std::string& out, const ir::Program& program, const Analysis& analysis,
                      const std::vector<ir::ValueId>& ids, size_t limit) {
  TextTable table({{"#", Align::kRight}, {"size", Align::kRight}, {"bytes", Align::kRight},
                   {"value"}, {"shape"}, {"op_type"}, {"op_name"}, {"source"}});
  for (size_t i = 0; i < ids.size() && i < limit; ++i) {
    const ir::Value* v = program.FindValue(ids[i]);
    ValueLabels labels = LabelsOf(program, analysis, *v);
    table.AddRow({StrCat(i + 1), HumanBytes(v->size), GroupedBytes(v->size),
                  std::move(labels.name), std::string(v->shape_text),
                  std::string(labels.op_type), std::string(labels.op_name),
                  std::move(labels.source)});
  }
  out += table.Render();
  if (ids.size() > limit) StrAppend(&out, "  ... ", ids.size() - limit, " more\n");
}

// The headline peak (memory occupied, shared bytes once), then XLA's own
// figure with the rule that makes it.
void AppendPeak(std::string& out, const AnalyzeReportInput& input) {
  const Analysis& analysis = input.analysis;
  out += "Live peak (memory the live values occupy, from the HloLiveRange)\n";
  if (!analysis.peak || !analysis.occupied_peak) {
    out += "  not available: the input has no live ranges (dumps without the HloLiveRange,\n"
           "  or without '-live-range.txt', carry no schedule)\n\n";
    return;
  }
  const analyzer::LivePeak& headline = *analysis.occupied_peak;
  const analyzer::LivePeak& peak = *analysis.peak;
  StrAppend(&out, "  ", HumanBytes(headline.bytes), " (", GroupedBytes(headline.bytes),
            " bytes) at step ", headline.step, " of ", analysis.timeline.last_step);
  if (headline.instruction.valid()) {
    StrAppend(&out, ", instruction ", InstructionLabel(input.program, headline.instruction));
  }
  StrAppend(&out, "\n  live there: ", CategoryBreakdown(headline.bytes_by_category), "\n");
  StrAppend(&out, "  XLA's live peak: ", HumanBytes(peak.bytes), " (", GroupedBytes(peak.bytes),
            " bytes) at step ", peak.step,
            peak.bytes == headline.bytes && peak.step == headline.step ? ", the same" : "",
            "\n    (", XlaPeakRule(), ")\n");
  if (peak.bytes != headline.bytes || peak.step != headline.step) {
    StrAppend(&out, "    ", DescribeSharedAtXlaPeak(peak.bytes, analysis.occupied_at_xla_peak,
                                                    analysis.stats.total_allocation_bytes),
              "\n");
  }
  if (const auto& stated = analysis.stated_peak) {
    StrAppend(&out, "  the dump's own peak list: step ", stated->stated_step, ", ",
              stated->stated_values, " values, ", GroupedBytes(stated->stated_bytes), " bytes: ",
              stated->matches ? "XLA's live peak" : "another step", "\n");
    StrAppend(&out, "    our live ranges at step ", stated->stated_step, " give ",
              stated->list_reproduced ? "exactly that list" : "a DIFFERENT list", "\n");
    if (!stated->matches) {
      StrAppend(&out, "    why the steps differ: ", DescribeStatedPeakMismatch(*stated, peak),
                "\n");
    }
  }
  StrAppend(&out, "\n  Live at the peak: ", headline.values.size(), " values, largest first\n");
  AppendValueTable(out, input.program, analysis, headline.values,
                   static_cast<size_t>(input.top_n));
  out += "\n";
}

void AppendTempArenas(std::string& out, const Analysis& analysis) {
  if (analysis.temp_arenas.empty()) return;
  out += "Temp arena, simulated (decreasing-size best-fit, as XLA's heap simulator)\n";
  TextTable table({{"allocation", Align::kRight}, {"XLA size", Align::kRight},
                   {"best-fit", Align::kRight}, {"error", Align::kRight},
                   {"no-fragmentation bound", Align::kRight}, {"fragmentation", Align::kRight},
                   {"buffers", Align::kRight}, {"lifetimes from"}});
  for (const analyzer::TempArenaReport& r : analysis.temp_arenas) {
    table.AddRow({StrCat(r.allocation.value()), GroupedBytes(r.xla_size),
                  GroupedBytes(r.best_fit_size), SignedPercent(r.BestFitErrorPercent()),
                  GroupedBytes(r.lower_bound), Percent(r.FragmentationPercent()),
                  StrCat(r.buffers), r.lifetimes_from});
  }
  out += table.Render();
  for (const analyzer::TempArenaReport& r : analysis.temp_arenas) {
    if (r.trace_replay_size) {
      StrAppend(&out, "  allocation ", r.allocation.value(), ": XLA's trace replayed at XLA's ",
                "offsets reaches ", GroupedBytes(*r.trace_replay_size), " bytes",
                *r.trace_replay_size == r.xla_size ? " (= its size)" : " (NOT its size)", "\n");
    }
  }
  out += "\n";
}

void AppendAttributionNode(std::string& out, const analyzer::AttributionNode& node,
                           int64_t total, int depth, int max_children) {
  const double share = total == 0 ? 0.0 : 100.0 * static_cast<double>(node.bytes) / total;
  StrAppend(&out, "  ", std::string(2 * depth, ' '), HumanBytes(node.bytes), "  ",
            Percent(share), "  ", node.name, "\n");
  int shown = 0;
  int64_t hidden_bytes = 0;
  for (const analyzer::AttributionNode& child : node.children) {
    if (max_children > 0 && shown >= max_children) {
      hidden_bytes += child.bytes;
      continue;
    }
    ++shown;
    AppendAttributionNode(out, child, total, depth + 1, max_children);
  }
  if (hidden_bytes > 0) {
    StrAppend(&out, "  ", std::string(2 * depth + 2, ' '), "... ",
              node.children.size() - static_cast<size_t>(shown), " more, ",
              HumanBytes(hidden_bytes), "\n");
  }
}

void AppendAttribution(std::string& out, const AnalyzeReportInput& input) {
  const Analysis& analysis = input.analysis;
  if (analysis.attributed_values.empty()) return;
  StrAppend(&out, "Attribution of the ", AttributionScopeName(analysis.attribution_scope),
            " by ", analyzer::AttributionKeyName(analysis.attribution_key), "\n");
  AppendAttributionNode(out, analysis.attribution, analysis.attribution.bytes, 0, input.top_n);
  out += "\n";
}

void AppendAllocations(std::string& out, const AnalyzeReportInput& input) {
  const ir::Program& program = input.program;
  StrAppend(&out, "Largest allocations (", input.analysis.top_allocations.size(), " of ",
                  program.allocations.size(), ")\n");
  TextTable table({{"#", Align::kRight}, {"allocation", Align::kRight}, {"size", Align::kRight},
                   {"bytes", Align::kRight}, {"values", Align::kRight}, {"kind"}});
  int rank = 0;
  for (ir::AllocationId id : input.analysis.top_allocations) {
    const ir::Allocation* a = program.FindAllocation(id);
    table.AddRow({StrCat(++rank), StrCat(a->id.value()), HumanBytes(a->size),
                  GroupedBytes(a->size), StrCat(a->values.size()), AllocationKindLabel(*a)});
  }
  StrAppend(&out, table.Render(), "\n");
}

void AppendWarnings(std::string& out, const ir::Program& program) {
  const auto& warnings = program.diagnostics.warnings();
  StrAppend(&out, "Recoverable problems: ", program.diagnostics.total(), "\n");
  for (const ir::Warning& w : warnings) {
    StrAppend(&out, "  ", w.count, " x ", w.kind, " (first at ", w.first_location, ")\n");
  }
}

}  // namespace

std::string RenderAnalyzeText(const AnalyzeReportInput& input) {
  const ir::Program& program = input.program;
  std::string out;
  StrAppend(&out, "Module: ", program.module_name, "\n");
  StrAppend(&out, "Input:  ", absl::StrJoin(program.source_files, "\n        "), "\n");
  if (!input.choice.empty()) StrAppend(&out, "Note:   ", input.choice, "\n");
  for (const ir::Note& note : program.notes) {
    StrAppend(&out, "Note:   ", DescribeNote(note), "\n");
  }
  StrAppend(&out, "Values: ", program.values.size(), " in ", program.allocations.size(),
                  " allocations\n\n");
  AppendCategories(out, input.analysis);
  AppendPeak(out, input);
  AppendTempArenas(out, input.analysis);
  AppendAttribution(out, input);
  AppendAllocations(out, input);
  StrAppend(&out, "Largest values (", input.analysis.top_values.size(), " of ",
                  program.values.size(), ")\n");
  AppendValueTable(out, program, input.analysis, input.analysis.top_values,
                   input.analysis.top_values.size());
  out += "\n";
  AppendWarnings(out, program);
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

}  // namespace memplan::viz
