#include <string>

#include "viz/json_text.h"
#include "analyzer/value_groups.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/analyze_report.h"
#include "viz/describe.h"

namespace memplan::viz {
namespace {

using llvm::json::OStream;

// A string, or null when empty.
void StringOrNull(OStream& j, llvm::StringRef key, std::string_view s) {
  if (s.empty()) {
    j.attribute(key, nullptr);
  } else {
    j.attribute(key, JsonText(s));
  }
}

void WriteIndex(OStream& j, llvm::StringRef key, const ir::ShapeIndex& index) {
  j.attributeArray(key, [&] {
    for (int64_t i : index) j.value(i);
  });
}

void WriteValue(OStream& j, const ir::Program& program, const analyzer::Analysis& analysis,
                const ir::Value& v) {
  const ValueLabels labels = LabelsOf(program, analysis, v);
  j.object([&] {
    j.attribute("id", v.id.value());
    j.attribute("name", JsonText(labels.name));
    j.attribute("instruction", JsonText(program.InstructionName(v.instruction)));
    WriteIndex(j, "index", v.index);
    j.attribute("size", v.size);
    j.attribute("allocation", v.allocation.valid() ? llvm::json::Value(v.allocation.value())
                                                   : llvm::json::Value(nullptr));
    j.attribute("offset", v.offset);
    j.attribute("shape", JsonText(v.shape_text));
    if (const ir::Allocation* a = program.FindAllocation(v.allocation)) {
      j.attribute("category", JsonRef(analyzer::CategoryName(analyzer::CategoryOf(*a))));
    } else {
      j.attribute("category", nullptr);
    }
    StringOrNull(j, "opcode", labels.opcode);
    StringOrNull(j, "op_type", labels.op_type);
    StringOrNull(j, "op_name", labels.op_name);
    const analyzer::ValueOrigin& origin = analysis.OriginOf(program, v);
    const analyzer::SourceLocation source =
        origin.source != nullptr ? analyzer::SourceLocationOf(program.module, *origin.source)
                                 : analyzer::SourceLocation();
    StringOrNull(j, "source_file", source.file);
    if (source.line > 0) {
      j.attribute("source_line", source.line);
    } else {
      j.attribute("source_line", nullptr);
    }
    if (v.live_range) {
      j.attributeArray("live_range", [&] {
        j.value(v.live_range->start);
        j.value(v.live_range->end);
      });
    } else {
      j.attribute("live_range", nullptr);
    }
  });
}

void WriteValueList(OStream& j, llvm::StringRef key, const ir::Program& program,
                    const analyzer::Analysis& analysis, const std::vector<ir::ValueId>& ids) {
  j.attributeArray(key, [&] {
    for (ir::ValueId id : ids) WriteValue(j, program, analysis, *program.FindValue(id));
  });
}

void WriteAllocation(OStream& j, const ir::Allocation& a) {
  j.object([&] {
    j.attribute("index", a.id.value());
    j.attribute("size", a.size);
    j.attribute("color", a.color);
    if (a.is_entry_parameter()) {
      j.attribute("parameter_number", *a.parameter_number);
      j.attribute("parameter_shape", JsonText(a.parameter_shape_text));
      WriteIndex(j, "parameter_index", a.parameter_index);
    } else {
      j.attribute("parameter_number", nullptr);
    }
    StringOrNull(j, "output_shape", a.output_shape_text.value_or(""));
    j.attribute("maybe_live_out", a.maybe_live_out);
    j.attribute("preallocated_temp", a.is_preallocated_temp);
    j.attribute("constant", a.is_constant);
    j.attribute("thread_local", a.is_thread_local);
    j.attribute("category", JsonRef(analyzer::CategoryName(analyzer::CategoryOf(a))));
    j.attribute("value_count", static_cast<int64_t>(a.values.size()));
  });
}

void WriteBytesByCategory(OStream& j, llvm::StringRef key, const analyzer::BytesByCategory& b) {
  j.attributeObject(key, [&] {
    for (int c = 0; c < analyzer::kNumValueCategories; ++c) {
      j.attribute(JsonRef(analyzer::CategoryName(static_cast<analyzer::ValueCategory>(c))), b[c]);
    }
  });
}

// The timeline as change points: from each point's step until the next, the
// bytes live per category, in analyzer::ValueCategory order.
void WriteTimeline(OStream& j, const analyzer::Timeline& timeline) {
  if (timeline.points.empty()) {
    j.attribute("timeline", nullptr);
    return;
  }
  j.attributeObject("timeline", [&] {
    j.attribute("last_step", timeline.last_step);
    j.attributeArray("categories", [&] {
      for (int c = 0; c < analyzer::kNumValueCategories; ++c) {
        j.value(JsonRef(analyzer::CategoryName(static_cast<analyzer::ValueCategory>(c))));
      }
    });
    j.attributeArray("points", [&] {
      for (const analyzer::TimelinePoint& point : timeline.points) {
        j.array([&] {
          j.value(point.step);
          for (int64_t bytes : point.bytes) j.value(bytes);
        });
      }
    });
  });
}

void WritePeak(OStream& j, const AnalyzeReportInput& input) {
  const auto& peak = input.analysis.peak;
  if (!peak) {
    j.attribute("live_peak", nullptr);
    return;
  }
  j.attributeObject("live_peak", [&] {
    j.attribute("bytes", peak->bytes);
    j.attribute("step", peak->step);
    StringOrNull(j, "instruction", InstructionLabel(input.program, peak->instruction));
    j.attribute("last_step", input.analysis.timeline.last_step);
    WriteBytesByCategory(j, "bytes_by_category", peak->bytes_by_category);
    if (const auto& stated = input.analysis.stated_peak) {
      j.attributeObject("stated", [&] {
        j.attribute("step", stated->stated_step);
        j.attribute("bytes", stated->stated_bytes);
        j.attribute("value_count", stated->stated_values);
        j.attribute("bytes_at_stated_step", stated->bytes_at_stated_step);
        if (stated->xla_moment) {
          j.attribute("xla_peak_moment", *stated->xla_moment);
        } else {
          j.attribute("xla_peak_moment", nullptr);
        }
        j.attribute("list_reproduced", stated->list_reproduced);
        j.attribute("matches", stated->matches);
        StringOrNull(j, "explanation", DescribeStatedPeakMismatch(*stated, *peak));
      });
    } else {
      j.attribute("stated", nullptr);
    }
    j.attribute("value_count", static_cast<int64_t>(peak->values.size()));
    WriteValueList(j, "values", input.program, input.analysis, peak->values);
  });
}

// Groups of identical layers (analyzer/value_groups.h): one object each.
void WriteGroups(OStream& j, llvm::StringRef key, const std::vector<analyzer::ValueGroup>& groups) {
  j.attributeArray(key, [&] {
    for (const analyzer::ValueGroup& g : groups) {
      j.object([&] {
        j.attribute("count", static_cast<int64_t>(g.values.size()));
        j.attribute("shape", JsonText(g.shape));
        j.attribute("category", JsonRef(analyzer::CategoryName(g.category)));
        j.attribute("bytes_each", g.bytes_each);
        j.attribute("total_bytes", g.total_bytes);
        StringOrNull(j, "source_file", g.source_file);
        if (g.source_line > 0) {
          j.attribute("source_line", g.source_line);
        } else {
          j.attribute("source_line", nullptr);
        }
        StringOrNull(j, "op_name", g.op_name);
        j.attributeArray("value_ids", [&] {
          for (ir::ValueId id : g.values) j.value(id.value());
        });
      });
    }
  });
}

// The headline peak: memory the live values occupy, shared bytes once.
void WriteOccupiedPeak(OStream& j, const AnalyzeReportInput& input) {
  const auto& peak = input.analysis.occupied_peak;
  if (!peak) {
    j.attribute("occupied_peak", nullptr);
    return;
  }
  j.attributeObject("occupied_peak", [&] {
    j.attribute("bytes", peak->bytes);
    j.attribute("step", peak->step);
    StringOrNull(j, "instruction", InstructionLabel(input.program, peak->instruction));
    WriteBytesByCategory(j, "bytes_by_category", peak->bytes_by_category);
    j.attribute("occupied_at_live_peak_step", input.analysis.occupied_at_xla_peak);
    j.attribute("value_count", static_cast<int64_t>(peak->values.size()));
    WriteGroups(j, "groups", input.analysis.peak_groups);
  });
}

void WriteTempArenas(OStream& j, const analyzer::Analysis& analysis) {
  j.attributeArray("temp_arenas", [&] {
    for (const analyzer::TempArenaReport& r : analysis.temp_arenas) {
      j.object([&] {
        j.attribute("allocation", r.allocation.value());
        j.attribute("xla_size", r.xla_size);
        j.attribute("best_fit_size", r.best_fit_size);
        j.attribute("best_fit_error_percent", r.BestFitErrorPercent());
        j.attribute("lower_bound", r.lower_bound);
        j.attribute("fragmentation_percent", r.FragmentationPercent());
        j.attribute("alignment", r.alignment);
        j.attribute("buffers", r.buffers);
        j.attribute("lifetimes_from", r.lifetimes_from);
        if (r.trace_replay_size) {
          j.attribute("trace_replay_size", *r.trace_replay_size);
        } else {
          j.attribute("trace_replay_size", nullptr);
        }
        j.attribute("untraced_values", r.untraced_values);
        j.attribute("untraced_prefix_bytes", r.untraced_prefix_bytes);
        j.attribute("untraced_suffix_bytes", r.untraced_suffix_bytes);
      });
    }
  });
}

void WriteAttributionNode(OStream& j, const analyzer::AttributionNode& node) {
  j.object([&] {
    j.attribute("name", JsonText(node.name));
    j.attribute("bytes", node.bytes);
    j.attribute("values", node.values);
    j.attributeArray("children", [&] {
      for (const analyzer::AttributionNode& child : node.children) WriteAttributionNode(j, child);
    });
  });
}

void WriteAttribution(OStream& j, const analyzer::Analysis& analysis) {
  if (analysis.attributed_values.empty()) {
    j.attribute("attribution", nullptr);
    return;
  }
  j.attributeObject("attribution", [&] {
    j.attribute("by", JsonRef(analyzer::AttributionKeyName(analysis.attribution_key)));
    j.attribute("scope", JsonRef(AttributionScopeName(analysis.attribution_scope)));
    j.attributeBegin("root");
    WriteAttributionNode(j, analysis.attribution);
    j.attributeEnd();
  });
}

void WriteWarnings(OStream& j, const ir::Program& program) {
  j.attribute("warning_count", program.diagnostics.total());
  j.attributeArray("warnings", [&] {
    for (const ir::Warning& w : program.diagnostics.warnings()) {
      j.object([&] {
        j.attribute("kind", JsonText(w.kind));
        j.attribute("count", w.count);
        j.attribute("first_location", JsonText(w.first_location));
      });
    }
  });
}

}  // namespace

std::string RenderAnalyzeJson(const AnalyzeReportInput& input) {
  std::string out;
  llvm::raw_string_ostream os(out);
  WriteAnalyzeJson(input, os);
  os.flush();
  return out;
}

namespace {

void WriteNotes(OStream& j, const ir::Program& program) {
  j.attributeArray("notes", [&] {
    for (const ir::Note& note : program.notes) {
      j.object([&] {
        j.attribute("code", JsonRef(ir::NoteCodeName(note.code)));
        j.attributeArray("numbers", [&] {
          for (int64_t n : note.numbers) j.value(n);
        });
        j.attributeArray("texts", [&] {
          for (const std::string& t : note.texts) j.value(JsonText(t));
        });
        j.attribute("text", JsonText(DescribeNote(note)));
      });
    }
  });
}

// The byte totals by category. A number the input does not state is null,
// never 0.
void WriteByteTotals(OStream& j, const analyzer::MemoryStats& s) {
  auto stated = [&](const char* key, std::optional<int64_t> bytes) {
    if (bytes) {
      j.attribute(key, *bytes);
    } else {
      j.attribute(key, nullptr);
    }
  };
  stated("total_allocation_bytes", s.Get(analyzer::StatsField::kTotalAllocation));
  stated("stated_total_bytes", s.stated_total_bytes);
  j.attribute("total_matches_stated", s.TotalMatchesStated());
  stated("argument_bytes", s.Get(analyzer::StatsField::kArgument));
  stated("output_bytes", s.Get(analyzer::StatsField::kOutput));
  stated("alias_bytes", s.Get(analyzer::StatsField::kAlias));
  stated("temp_bytes", s.Get(analyzer::StatsField::kTemp));
  stated("constant_bytes", s.Get(analyzer::StatsField::kConstant));
  stated("thread_local_bytes", s.Get(analyzer::StatsField::kThreadLocal));
  stated("device_footprint_bytes", s.Get(analyzer::StatsField::kDeviceFootprint));
}

// The device the text report measures shares against; null when none was
// named.
void WriteDevice(OStream& j, const AnalyzeReportInput& input) {
  if (!input.device) {
    j.attribute("device", nullptr);
    return;
  }
  j.attributeObject("device", [&] {
    j.attribute("name", JsonText(input.device->name));
    j.attribute("memory_bytes", input.device->bytes);
  });
}

}  // namespace

void WriteAnalyzeJson(const AnalyzeReportInput& input, llvm::raw_ostream& os) {
  const ir::Program& program = input.program;
  OStream j(os, /*IndentSize=*/2);
  j.object([&] {
    j.attribute("schema_version", kAnalyzeJsonSchemaVersion);
    j.attribute("module", JsonText(program.module_name));
    j.attributeArray("source_files", [&] {
      for (const std::string& f : program.source_files) j.value(JsonText(f));
    });
    StringOrNull(j, "module_choice", input.choice);
    j.attribute("input_format", program.input_format);
    WriteNotes(j, program);
    WriteByteTotals(j, input.analysis.stats);
    WriteDevice(j, input);
    WriteOccupiedPeak(j, input);
    WritePeak(j, input);
    WriteTimeline(j, input.analysis.timeline);
    WriteTempArenas(j, input.analysis);
    WriteAttribution(j, input.analysis);
    j.attribute("allocation_count", static_cast<int64_t>(program.allocations.size()));
    j.attributeArray("allocations", [&] {
      for (ir::AllocationId id : input.analysis.top_allocations) {
        WriteAllocation(j, *program.FindAllocation(id));
      }
    });
    j.attribute("value_count", static_cast<int64_t>(program.values.size()));
    WriteValueList(j, "top_values", program, input.analysis, input.analysis.top_values);
    WriteWarnings(j, program);
  });
  os << "\n";
}

}  // namespace memplan::viz
