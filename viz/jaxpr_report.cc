#include "viz/jaxpr_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/json_text.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "viz/format.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

using analyzer::JaxprBuffer;
using Align = TextTable::Align;
using llvm::json::OStream;

// "1.23e+09": flops for reading; exact integers below a million.
std::string Flops(double flops) {
  if (flops < 1e6) return GroupedBytes(static_cast<int64_t>(flops));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", flops);
  return buf;
}

// The name a call gives its callee ("stage_0_1_acc_grad_00"), else its primitive.
std::string CallName(const ir::JaxprEqn& eqn) {
  const ir::JaxprParam* name = eqn.FindParam("name");
  if (name != nullptr && !name->value.text.empty()) return StrCat(eqn.primitive, " ", name->value.text);
  return eqn.primitive;
}

std::string SourceLabel(const ir::JaxprSourceLocation& s) {
  if (s.file.empty()) return "";
  std::string out = StrCat(s.file, ":", s.line);
  if (!s.function.empty()) StrAppend(&out, " ", s.function);
  return out;
}

std::string KindLabel(const JaxprBuffer& b) {
  switch (b.kind) {
    case JaxprBuffer::Kind::kArgument:
      return StrCat("argument ", b.argument, b.donated ? " (donated)" : "");
    case JaxprBuffer::Kind::kConstant:
      return "constant";
    case JaxprBuffer::Kind::kLoopSlice:
      return "loop slice";
    case JaxprBuffer::Kind::kValue:
      return b.output ? "output" : "temp";
  }
  return "";
}

const char* KindKey(const JaxprBuffer& b) {
  switch (b.kind) {
    case JaxprBuffer::Kind::kArgument:
      return "argument";
    case JaxprBuffer::Kind::kConstant:
      return "constant";
    case JaxprBuffer::Kind::kLoopSlice:
      return "loop-slice";
    case JaxprBuffer::Kind::kValue:
      return b.output ? "output" : "temporary";
  }
  return "";
}

std::string VarName(const ir::JaxprModule& m, const JaxprBuffer& b) {
  return b.var.valid() ? m.var(b.var).name : "(literal)";
}

std::string AvalText(const ir::JaxprModule& m, const JaxprBuffer& b) {
  return b.var.valid() ? m.var(b.var).aval.text : "";
}

std::string TilesText(const analyzer::Tiles& tiles) {
  if (tiles.empty()) return "";
  std::string out = "/[";
  for (size_t i = 0; i < tiles.size(); ++i) StrAppend(&out, i ? "," : "", tiles[i]);
  return out + "]";
}

size_t Shown(size_t available, int top) {
  return top <= 0 ? available : std::min(available, static_cast<size_t>(top));
}

void WriteSource(OStream& j, const ir::JaxprEqn& eqn) {
  if (eqn.source.file.empty()) {
    j.attribute("source", nullptr);
  } else {
    j.attributeObject("source", [&] {
      j.attribute("file", JsonText(eqn.source.file));
      j.attribute("line", eqn.source.line);
      j.attribute("column", eqn.source.column);
      j.attribute("function", JsonText(eqn.source.function));
    });
  }
  if (eqn.name_stack.empty()) {
    j.attribute("name_stack", nullptr);
  } else {
    j.attribute("name_stack", JsonText(eqn.name_stack));
  }
}

// The step as JSON: its equation and the calls around it, outermost first.
void WriteStep(OStream& j, const JaxprReportInput& in, int32_t step) {
  if (step < 0 || step >= static_cast<int32_t>(in.schedule.steps.size())) {
    j.value(nullptr);
    return;
  }
  const ir::JaxprEqn& eqn = in.module.eqn(in.schedule.steps[step].eqn);
  j.object([&] {
    j.attribute("step", step);
    j.attribute("primitive", JsonText(eqn.primitive));
    j.attribute("line", eqn.input_line);
    WriteSource(j, eqn);
    std::vector<int32_t> path;
    for (int32_t p = in.schedule.steps[step].parent; p >= 0; p = in.schedule.steps[p].parent) path.push_back(p);
    std::reverse(path.begin(), path.end());
    j.attributeArray("within", [&] {
      for (int32_t p : path) j.value(JsonText(CallName(in.module.eqn(in.schedule.steps[p].eqn))));
    });
  });
}

}  // namespace

std::string DescribeJaxprStep(const ir::JaxprModule& module, const analyzer::JaxprSchedule& schedule,
                              int32_t step) {
  if (step < 0 || step >= static_cast<int32_t>(schedule.steps.size())) return "";
  const ir::JaxprEqn& eqn = module.eqn(schedule.steps[step].eqn);
  std::string out = eqn.primitive;
  const std::string source = SourceLabel(eqn.source);
  if (!source.empty()) StrAppend(&out, " (", source, ")");
  StrAppend(&out, " at line ", eqn.input_line);
  const int32_t parent = schedule.steps[step].parent;
  if (parent >= 0) StrAppend(&out, " in ", CallName(module.eqn(schedule.steps[parent].eqn)));
  return out;
}

namespace {

// "step 4: dot_general ... in pjit f"; for a scan's slice, the scan.
std::string DefinedBy(const ir::JaxprModule& m, const analyzer::JaxprSchedule& s, const JaxprBuffer& b) {
  if (b.kind == JaxprBuffer::Kind::kLoopSlice && b.step < static_cast<int32_t>(s.steps.size())) {
    const int32_t header = s.steps[b.step].parent;
    return StrCat("slice of step ", header, ": ", DescribeJaxprStep(m, s, header));
  }
  if (b.kind != JaxprBuffer::Kind::kValue) return "";
  return StrCat("step ", b.step, ": ", DescribeJaxprStep(m, s, b.step));
}

// The program's totals: equations, bytes by kind, flops.
std::string JaxprTotals(const JaxprReportInput& in) {
  const analyzer::JaxprLiveness& l = in.liveness;
  const analyzer::JaxprSchedule& s = in.schedule;
  const ir::Jaxpr& top = in.module.jaxpr(in.module.top);
  std::string out = StrCat("Jaxpr ", in.module.source_name, ": ", in.module.eqns.size(), " equations, ",
                           s.steps.size(), " steps (", s.inlined_calls, " calls inlined, ", s.regions,
                           " loops or conds)\n");
  if (l.model == analyzer::JaxprMemoryModel::kFused) {
    StrAppend(&out, "  fused model: ", l.fused_values, " values fused away, ", l.shared_values,
              " take an operand's memory\n");
  }
  StrAppend(&out, "  arguments  ", GroupedBytes(l.argument_bytes), " B (", HumanBytes(l.argument_bytes), "), ",
            top.invars.size(), " inputs; donated ", GroupedBytes(l.donated_bytes), " B, aliased ",
            GroupedBytes(l.aliased_bytes), " B\n");
  if (l.constant_bytes > 0) StrAppend(&out, "  constants  ", GroupedBytes(l.constant_bytes), " B\n");
  StrAppend(&out, "  outputs    ", GroupedBytes(l.output_bytes), " B (", HumanBytes(l.output_bytes), "), ",
            top.outvars.size(), " outputs\n");
  StrAppend(&out, "  flops      ", Flops(in.flops.flops()), " (matmul ", Flops(in.flops.matmul),
            ", elementwise ", Flops(in.flops.elementwise), "); transcendentals ",
            Flops(in.flops.transcendentals), "\n");
  if (in.flops.uncounted_equations > 0 || in.flops.while_loops > 0) {
    StrAppend(&out, "             not counted: ", in.flops.uncounted_equations,
              " equations; while loops counted once: ", in.flops.while_loops, "\n");
  }
  if (s.unknown_size_buffers > 0) {
    StrAppend(&out, "  ", s.unknown_size_buffers, " values of unknown size count as 0 bytes\n");
  }
  return out;
}

// The live, temp and arena peaks and the predicted footprint.
std::string JaxprPeaks(const JaxprReportInput& in) {
  const analyzer::JaxprLiveness& l = in.liveness;
  const analyzer::JaxprSchedule& s = in.schedule;
  std::string out;
  StrAppend(&out, "\nLive peak: ", GroupedBytes(l.peak.total()), " B (", HumanBytes(l.peak.total()),
            ") at step ", l.peak_step, " of ", std::max<size_t>(1, s.steps.size()), "\n");
  StrAppend(&out, "  arguments ", GroupedBytes(l.peak.arguments), " B, outputs ", GroupedBytes(l.peak.outputs),
            " B, temp ", GroupedBytes(l.peak.temps), " B\n");
  const std::string at = DescribeJaxprStep(in.module, s, l.peak_step);
  if (!at.empty()) StrAppend(&out, "  step ", l.peak_step, ": ", at, "\n");
  StrAppend(&out, "Temp peak: ", GroupedBytes(l.temp_peak_bytes), " B (", HumanBytes(l.temp_peak_bytes),
            ")");
  const std::string temp_at = DescribeJaxprStep(in.module, s, l.temp_peak_step);
  if (!temp_at.empty()) StrAppend(&out, " at step ", l.temp_peak_step, ": ", temp_at);
  StrAppend(&out, "\nTemp beyond free output memory (predicts XLA's temp): ", GroupedBytes(l.arena_peak_bytes),
            " B (", HumanBytes(l.arena_peak_bytes), ")");
  const std::string arena_at = DescribeJaxprStep(in.module, s, l.arena_peak_step);
  if (l.arena_peak_bytes > 0 && !arena_at.empty()) StrAppend(&out, " at step ", l.arena_peak_step, ": ", arena_at);
  StrAppend(&out, "\nPredicted footprint (argument + output - aliased + temp): ",
            GroupedBytes(l.PredictedFootprint()), " B (", HumanBytes(l.PredictedFootprint()), ")\n");
  return out;
}

std::string JaxprLiveAtPeak(const JaxprReportInput& in) {
  const analyzer::JaxprLiveness& l = in.liveness;
  const size_t shown = Shown(l.live_at_peak.size(), in.top);
  std::string out =
      StrCat("\nLive at the peak (", shown == l.live_at_peak.size() ? "" : StrCat("top ", shown, " of "),
             l.live_at_peak.size(), ")\n");
  TextTable table({{"bytes", Align::kRight},
                   {"kind", Align::kLeft},
                   {"value", Align::kLeft},
                   {"aval", Align::kLeft},
                   {"defined by", Align::kLeft},
                   {"last use", Align::kRight}});
  for (size_t i = 0; i < shown; ++i) {
    const JaxprBuffer& b = in.schedule.buffers[l.live_at_peak[i]];
    table.AddRow({GroupedBytes(b.bytes), KindLabel(b), VarName(in.module, b),
                  StrCat(AvalText(in.module, b), TilesText(b.tiles)),
                  DefinedBy(in.module, in.schedule, b), StrCat(b.last_use)});
  }
  return out + table.Render();
}

}  // namespace

std::string RenderJaxprText(const JaxprReportInput& in) {
  // Names come from the input: no terminal escapes.
  return MarkupSafeText(StrCat(JaxprTotals(in), JaxprPeaks(in), JaxprLiveAtPeak(in)));
}

namespace {

// Writes `key`: the step `step` as WriteStep writes it.
void WriteStepAttribute(OStream& j, const JaxprReportInput& in, llvm::StringRef key, int32_t step) {
  j.attributeBegin(key);
  WriteStep(j, in, step);
  j.attributeEnd();
}

// Writes one buffer live at the peak as a JSON object: bytes, kind, value,
// aval, tiles, argument, donation, last use and the step defining it.
void WriteLiveBuffer(OStream& j, const JaxprReportInput& in, const JaxprBuffer& b) {
  const analyzer::JaxprSchedule& s = in.schedule;
  j.object([&] {
    j.attribute("bytes", b.bytes);
    j.attribute("kind", KindKey(b));
    j.attribute("value", JsonText(VarName(in.module, b)));
    j.attribute("aval", JsonText(AvalText(in.module, b)));
    j.attributeArray("tiles", [&] {
      for (int64_t t : b.tiles) j.value(t);
    });
    if (b.argument >= 0) j.attribute("argument", b.argument);
    j.attribute("donated", b.donated);
    j.attribute("last_use", b.last_use);
    j.attributeBegin("defined_at");
    if (b.kind == JaxprBuffer::Kind::kValue) {
      WriteStep(j, in, b.step);
    } else if (b.kind == JaxprBuffer::Kind::kLoopSlice && b.step < static_cast<int32_t>(s.steps.size())) {
      WriteStep(j, in, s.steps[b.step].parent);
    } else {
      j.value(nullptr);
    }
    j.attributeEnd();
  });
}

// Writes, inside the "peak" object, its bytes by kind, its step and the
// in.top largest buffers live there.
void WritePeakJson(OStream& j, const JaxprReportInput& in) {
  const analyzer::JaxprLiveness& l = in.liveness;
  j.attribute("bytes", l.peak.total());
  j.attribute("arguments", l.peak.arguments);
  j.attribute("outputs", l.peak.outputs);
  j.attribute("temporaries", l.peak.temps);
  WriteStepAttribute(j, in, "at", l.peak_step);
  j.attributeArray("live", [&] {
    const size_t shown = Shown(l.live_at_peak.size(), in.top);
    for (size_t i = 0; i < shown; ++i) WriteLiveBuffer(j, in, in.schedule.buffers[l.live_at_peak[i]]);
  });
  j.attribute("live_values", static_cast<int64_t>(l.live_at_peak.size()));
}

// Writes, inside the "flops" object, the flop counts by class.
void WriteFlopsJson(OStream& j, const JaxprReportInput& in) {
  j.attribute("total", in.flops.flops());
  j.attribute("matmul", in.flops.matmul);
  j.attribute("elementwise", in.flops.elementwise);
  j.attribute("transcendentals", in.flops.transcendentals);
  j.attribute("uncounted_equations", in.flops.uncounted_equations);
  j.attribute("while_loops", in.flops.while_loops);
}

}  // namespace

void WriteJaxprJson(const JaxprReportInput& in, llvm::raw_ostream& os) {
  const analyzer::JaxprLiveness& l = in.liveness;
  const analyzer::JaxprSchedule& s = in.schedule;
  OStream j(os, 2);
  j.object([&] {
    j.attribute("input", "jaxpr");
    j.attribute("file", JsonText(in.module.source_name));
    j.attribute("equations", static_cast<int64_t>(in.module.eqns.size()));
    j.attribute("steps", static_cast<int64_t>(s.steps.size()));
    j.attribute("inlined_calls", s.inlined_calls);
    j.attribute("regions", s.regions);
    j.attribute("unknown_size_values", s.unknown_size_buffers);
    j.attribute("argument_bytes", l.argument_bytes);
    j.attribute("constant_bytes", l.constant_bytes);
    j.attribute("output_bytes", l.output_bytes);
    j.attribute("donated_bytes", l.donated_bytes);
    j.attribute("aliased_bytes", l.aliased_bytes);
    j.attributeObject("peak", [&] { WritePeakJson(j, in); });
    j.attributeObject("temporaries_peak", [&] {
      j.attribute("bytes", l.temp_peak_bytes);
      WriteStepAttribute(j, in, "at", l.temp_peak_step);
    });
    j.attributeObject("predicted_temp", [&] {
      j.attribute("bytes", l.arena_peak_bytes);
      WriteStepAttribute(j, in, "at", l.arena_peak_step);
    });
    j.attribute("model", l.model == analyzer::JaxprMemoryModel::kFused ? "fused" : "every-value");
    j.attribute("fused_values", l.fused_values);
    j.attribute("shared_values", l.shared_values);
    j.attribute("predicted_footprint", l.PredictedFootprint());
    j.attributeObject("flops", [&] { WriteFlopsJson(j, in); });
  });
  os << "\n";
}

namespace {

std::string StageIndex(const std::vector<int64_t>& index) {
  std::string out = "(";
  for (size_t i = 0; i < index.size(); ++i) StrAppend(&out, i ? ", " : "", index[i]);
  return out + ")";
}

double ErrorPercent(int64_t predicted, int64_t truth) {
  return truth == 0 ? 0 : 100.0 * static_cast<double>(predicted - truth) / static_cast<double>(truth);
}

}  // namespace

std::string RenderAlpaText(const AlpaReportInput& in) {
  std::string out = StrCat("Alpa stage profile ", in.document.source_name, ": ", in.document.profiles.size(),
                           " StageProfileResult, ", in.document.jaxprs.size(), " merged jaxprs\n");
  for (const analyzer::AlpaStageMemory& stage : in.stages) {
    StrAppend(&out, "\nStage ", StageIndex(stage.stage_index),
              ": peak_memory = argument + output - donated + temp (bytes per device)\n");
    TextTable table({{"module", Align::kLeft},
                     {"argument", Align::kRight},
                     {"output", Align::kRight},
                     {"donated", Align::kRight},
                     {"temp (Alpa)", Align::kRight},
                     {"peak", Align::kRight},
                     {"Alpa peak_memory", Align::kRight},
                     {"temp (predicted)", Align::kRight},
                     {"temp error", Align::kRight},
                     {"peak (predicted)", Align::kRight},
                     {"peak error", Align::kRight}});
    for (const analyzer::AlpaModuleMemory& m : stage.modules) {
      const int64_t predicted = m.predicted_temp.value_or(0);
      table.AddRow({m.name, GroupedBytes(m.argument_bytes), GroupedBytes(m.output_bytes),
                    GroupedBytes(m.donated_bytes), GroupedBytes(m.alpa_temp), GroupedBytes(m.peak),
                    GroupedBytes(m.alpa_peak), m.predicted_temp ? GroupedBytes(predicted) : "-",
                    m.predicted_temp ? StrCat(predicted - m.alpa_temp >= 0 ? "+" : "",
                                              GroupedBytes(predicted - m.alpa_temp))
                                     : "-",
                    m.predicted_temp ? GroupedBytes(m.predicted_peak) : "-",
                    m.predicted_temp ? SignedPercent(ErrorPercent(m.predicted_peak, m.alpa_peak)) : "-"});
    }
    out += table.Render();
    for (const analyzer::AlpaModuleMemory& m : stage.modules) {
      if (m.peak != m.alpa_peak || m.invar_mismatches > 0 || m.outvar_mismatches > 0) {
        StrAppend(&out, "  ", m.name, ": ", m.invar_mismatches, " inputs and ", m.outvar_mismatches,
                  " outputs differ from Alpa's invar_sizes / outvar_sizes\n");
      }
    }
  }
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

void WriteAlpaJson(const AlpaReportInput& in, llvm::raw_ostream& os) {
  OStream j(os, 2);
  j.object([&] {
    j.attribute("input", "alpa-stage-profile");
    j.attribute("file", JsonText(in.document.source_name));
    j.attributeArray("stages", [&] {
      for (const analyzer::AlpaStageMemory& stage : in.stages) {
        j.object([&] {
          j.attributeArray("stage_index", [&] {
            for (int64_t v : stage.stage_index) j.value(v);
          });
          j.attributeArray("modules", [&] {
            for (const analyzer::AlpaModuleMemory& m : stage.modules) {
              j.object([&] {
                j.attribute("name", JsonText(m.name));
                j.attribute("argument_bytes", m.argument_bytes);
                j.attribute("output_bytes", m.output_bytes);
                j.attribute("donated_bytes", m.donated_bytes);
                j.attribute("alpa_temp_bytes", m.alpa_temp);
                j.attribute("peak_bytes", m.peak);
                j.attribute("alpa_peak_memory", m.alpa_peak);
                j.attribute("invar_mismatches", m.invar_mismatches);
                j.attribute("outvar_mismatches", m.outvar_mismatches);
                if (m.predicted_temp) {
                  j.attribute("predicted_temp_bytes", *m.predicted_temp);
                  j.attribute("predicted_temp_error_bytes", *m.predicted_temp - m.alpa_temp);
                  j.attribute("predicted_peak_bytes", m.predicted_peak);
                  j.attribute("predicted_peak_error_percent", ErrorPercent(m.predicted_peak, m.alpa_peak));
                } else {
                  j.attribute("predicted_temp_bytes", nullptr);
                }
              });
            }
          });
        });
      }
    });
  });
  os << "\n";
}

}  // namespace memplan::viz
