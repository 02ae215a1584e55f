#include "viz/cost_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "viz/json_text.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/format.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

using simulator::InstructionCompute;

// 15717040128 -> "15,717,040,128" (counts are whole numbers).
std::string Grouped(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.0f", v);
  std::string digits = buffer;
  const bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.erase(0, 1);
  std::string out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

std::string Seconds(double s) { return HumanSeconds(s); }

std::string Share(double part, double whole) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buffer;
}

// The instructions with time, longest first (id breaks ties).
std::vector<const InstructionCompute*> ByTime(const simulator::ComputeCost& cost, int top) {
  std::vector<const InstructionCompute*> out;
  for (const InstructionCompute& c : cost.instructions) {
    if (c.seconds > 0 || c.op_class == simulator::OpClass::kUnknown) out.push_back(&c);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    if (a->seconds != b->seconds) return a->seconds > b->seconds;
    return a->instruction < b->instruction;
  });
  if (top > 0 && static_cast<int>(out.size()) > top) out.resize(top);
  return out;
}

std::string Bound(const InstructionCompute& c) {
  if (c.op_class == simulator::OpClass::kControl) {
    if (!c.trip_count_known) return "loop, count unknown";
    return c.trip_count > 1 ? StrCat("loop x", c.trip_count) : "";
  }
  if (c.seconds <= 0) return "";
  return c.memory_seconds >= c.compute_seconds ? "memory" : "compute";
}

// "  label    value" lines, labels padded, values right-aligned.
std::string KeyValues(const std::vector<std::pair<std::string, std::string>>& rows) {
  size_t label = 0, value = 0;
  for (const auto& [k, v] : rows) {
    label = std::max(label, k.size());
    value = std::max(value, v.size());
  }
  std::string out;
  for (const auto& [k, v] : rows) {
    StrAppend(&out, "  ", k, std::string(label - k.size() + 2 + value - v.size(), ' '), v, "\n");
  }
  return out;
}

std::string Efficiency(const simulator::Hardware& hw) {
  char buffer[128];
  std::snprintf(buffer, sizeof(buffer), "matmul %g, vector %g, memory %g", hw.efficiency.matmul,
                hw.efficiency.vector, hw.efficiency.memory);
  return buffer;
}

// The training step's parts: a table, or "" when the program is none.
std::string PhaseTable(const simulator::PhaseSplit& split, double total_seconds) {
  if (!split.training) return "";
  TextTable table({{"phase"},
                   {"flops", TextTable::Align::kRight},
                   {"bytes", TextTable::Align::kRight},
                   {"time", TextTable::Align::kRight},
                   {"share", TextTable::Align::kRight}});
  for (analyzer::StepPhase p : analyzer::kStepPhases) {
    const simulator::PhaseCompute& c = split.of(p);
    table.AddRow({std::string(analyzer::StepPhaseName(p)), Grouped(c.flops),
                  Grouped(c.bytes_accessed), Seconds(c.seconds), Share(c.seconds, total_seconds)});
  }
  return StrCat("\nTraining step (executed)\n", table.Render());
}

// The top instructions by time, with a heading; "" when there are none.
std::string InstructionTable(const CostReportInput& in) {
  const simulator::ComputeCost& c = in.cost;
  const std::vector<const InstructionCompute*> top = ByTime(c, in.top);
  if (top.empty()) return "";
  std::string out =
      StrCat("\nInstructions by time", in.top > 0 ? StrCat(" (top ", in.top, ")") : "", "\n");
  TextTable table({{"instruction"},
                   {"opcode"},
                   {"class"},
                   {"rate"},
                   {"flops", TextTable::Align::kRight},
                   {"bytes", TextTable::Align::kRight},
                   {"time", TextTable::Align::kRight},
                   {"share", TextTable::Align::kRight},
                   {"bound"}});
  for (const InstructionCompute* i : top) {
    const ir::Instruction& instruction = in.module.instruction(i->instruction);
    const bool matmul = i->op_class == simulator::OpClass::kMatmul;
    table.AddRow({std::string(instruction.name), std::string(instruction.opcode_text),
                  std::string(simulator::OpClassName(i->op_class)),
                  matmul ? std::string(simulator::PrecisionName(i->precision))
                         : (i->op_class == simulator::OpClass::kVector ? "f32" : ""),
                  Grouped(i->executed_flops), Grouped(i->executed_bytes), Seconds(i->seconds),
                  Share(i->seconds, c.seconds), Bound(*i)});
  }
  return out + table.Render();
}

// What the counts leave out, one line each; "" when nothing.
std::string CostNotes(const CostReportInput& in) {
  const simulator::ComputeCost& c = in.cost;
  std::string notes;
  if (c.xla.unknown > 0) {
    StrAppend(&notes, "  ", c.xla.unknown,
              " instruction(s) lack what their flops need (a dot without dimension numbers, a "
              "convolution without its window, as this input was read): counted as 0 flops.\n");
  }
  if (c.xla.custom_calls > 0 && c.library_calls == 0) {
    StrAppend(&notes, "  ", c.xla.custom_calls,
              " custom call(s): their cost is unknown (XLA counts -1 for each); counted as 0.\n");
  } else if (c.xla.custom_calls > 0) {
    StrAppend(&notes, "  ", c.xla.custom_calls,
              " custom call(s): unknown to XLA's counts (-1 each), 0 in the figures as XLA counts; ",
              c.library_calls, " of them, cuBLAS GEMMs and cuDNN convolutions, are in the executed "
              "figures and the time as what they compute, the rest counted as 0.\n");
  }
  if (c.unknown_trip_counts > 0) {
    StrAppend(&notes, "  ", c.unknown_trip_counts,
              " loop(s) without a known trip count: run once in the executed figures.\n");
  }
  if (!in.module.gaps.empty()) {
    StrAppend(&notes,
              "  the input does not hold the whole module graph: costs cover what it names.\n");
  }
  return notes;
}

}  // namespace

std::string RenderCostText(const CostReportInput& in) {
  const simulator::ComputeCost& c = in.cost;
  std::string out = StrCat("Module: ", in.module_name, "\n");
  StrAppend(&out, "Hardware: ", in.hardware.name, " (efficiency ", Efficiency(in.hardware),
            "; f32 dots at the ", simulator::PrecisionName(in.options.f32_dot), " rate)\n\n");
  out += "Per device, as XLA's HloCostAnalysis counts (loop bodies once)\n";
  out += KeyValues({{"flops", Grouped(c.xla.flops)},
                    {"transcendentals", Grouped(c.xla.transcendentals)},
                    {"bytes accessed", Grouped(c.xla.bytes_accessed)}});
  out += "\nExecuted (loops times their known trip counts)\n";
  out += KeyValues({{"flops", Grouped(c.executed_flops)},
                    {"transcendentals", Grouped(c.executed_transcendentals)},
                    {"bytes accessed", Grouped(c.executed_bytes)},
                    {"compute time", Seconds(c.seconds)},
                    {"  in matmuls", StrCat(Seconds(c.matmul_seconds), " (",
                                            Share(c.matmul_seconds, c.seconds), ")")},
                    {"  memory-bound", StrCat(Seconds(c.memory_bound_seconds), " (",
                                              Share(c.memory_bound_seconds, c.seconds), ")")}});
  out += PhaseTable(c.phases, c.seconds);
  out += InstructionTable(in);
  const std::string notes = CostNotes(in);
  if (!notes.empty()) StrAppend(&out, "\nNotes\n", notes);
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

namespace {

using llvm::json::OStream;

void HardwareJson(OStream& j, const CostReportInput& in) {
  j.attributeObject("hardware", [&] {
    j.attribute("name", JsonText(in.hardware.name));
    j.attribute("matmul_efficiency", in.hardware.efficiency.matmul);
    j.attribute("vector_efficiency", in.hardware.efficiency.vector);
    j.attribute("memory_efficiency", in.hardware.efficiency.memory);
    j.attribute("f32_dot_rate", JsonRef(simulator::PrecisionName(in.options.f32_dot)));
  });
}

// XLA's static counts ("xla") and the counts with loop trip counts applied
// ("executed").
void CountsJson(OStream& j, const simulator::ComputeCost& c) {
  j.attributeObject("xla", [&] {
    j.attribute("flops", c.xla.flops);
    j.attribute("transcendentals", c.xla.transcendentals);
    j.attribute("bytes_accessed", c.xla.bytes_accessed);
    j.attribute("unknown_instructions", c.xla.unknown);
    j.attribute("custom_calls", c.xla.custom_calls);
  });
  j.attributeObject("executed", [&] {
    j.attribute("flops", c.executed_flops);
    j.attribute("transcendentals", c.executed_transcendentals);
    j.attribute("bytes_accessed", c.executed_bytes);
    j.attribute("unknown_trip_counts", c.unknown_trip_counts);
    j.attribute("library_calls", c.library_calls);
  });
}

// "phases": compute per step phase of a training step, else null.
void PhasesJson(OStream& j, const simulator::ComputeCost& c) {
  j.attributeBegin("phases");
  if (c.phases.training) {
    j.object([&] {
      for (analyzer::StepPhase p : analyzer::kStepPhases) {
        const simulator::PhaseCompute& pc = c.phases.of(p);
        j.attributeObject(JsonRef(analyzer::StepPhaseName(p)), [&] {
          j.attribute("seconds", pc.seconds);
          j.attribute("flops", pc.flops);
          j.attribute("bytes_accessed", pc.bytes_accessed);
        });
      }
    });
  } else {
    j.value(nullptr);
  }
  j.attributeEnd();
}

void InstructionJson(OStream& j, const ir::Module& module, const InstructionCompute& i) {
  const ir::Instruction& instruction = module.instruction(i.instruction);
  j.object([&] {
    j.attribute("id", i.instruction.value());
    j.attribute("name", JsonText(instruction.name));
    j.attribute("opcode", JsonText(instruction.opcode_text));
    j.attribute("class", JsonRef(simulator::OpClassName(i.op_class)));
    j.attribute("rate", JsonRef(simulator::PrecisionName(i.precision)));
    j.attribute("flops", i.xla.flops);
    j.attribute("transcendentals", i.xla.transcendentals);
    j.attribute("bytes_accessed", i.xla.bytes_accessed);
    j.attribute("trip_count", i.trip_count);
    j.attribute("executed_flops", i.executed_flops);
    j.attribute("executed_bytes", i.executed_bytes);
    j.attribute("compute_seconds", i.compute_seconds);
    j.attribute("memory_seconds", i.memory_seconds);
    j.attribute("seconds", i.seconds);
  });
}

}  // namespace

std::string RenderCostJson(const CostReportInput& in) {
  const simulator::ComputeCost& c = in.cost;
  std::string out;
  llvm::raw_string_ostream os(out);
  OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "memplan.cost.v1");
    j.attribute("module", JsonText(in.module_name));
    HardwareJson(j, in);
    CountsJson(j, c);
    j.attribute("compute_seconds", c.seconds);
    j.attribute("matmul_seconds", c.matmul_seconds);
    j.attribute("memory_bound_seconds", c.memory_bound_seconds);
    PhasesJson(j, c);
    j.attributeArray("instructions", [&] {
      for (const InstructionCompute* i : ByTime(c, in.top)) InstructionJson(j, in.module, *i);
    });
  });
  os << "\n";
  os.flush();
  return out;
}

}  // namespace memplan::viz
