// libFuzzer target: jaxpr text through the jaxpr parser, the sniff rule,
// and what `memplan analyze` computes on it (schedule, liveness in both
// models, flops, the text and JSON reports). Beyond "no crash, no
// sanitizer report, no hang": a parse error names the file; ids are dense
// and every operand refers to a variable of the same jaxpr; a parsed jaxpr
// is sniffed as one; the peak is the timeline's maximum and the values
// listed live there add up to it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analyzer/jaxpr_flops.h"
#include "analyzer/jaxpr_liveness.h"
#include "analyzer/jaxpr_schedule.h"
#include "ir/jaxpr_program.h"
#include "llvm/Support/raw_ostream.h"
#include "parsers/jaxpr_parser.h"
#include "viz/jaxpr_report.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "jaxpr_fuzzer: %s\n", what);
    std::abort();
  }
}

// Schedule, liveness and reports; their invariants.
void Analyze(const memplan::ir::JaxprModule& module) {
  using namespace memplan;
  analyzer::JaxprScheduleOptions options;
  options.max_steps = 1 << 16;  // inlining can multiply a small text
  options.donated = {true, false, true};
  options.input_tiles = {{2, 1}, {}, {4}};
  for (bool inline_calls : {true, false}) {
    options.inline_calls = inline_calls;
    absl::StatusOr<analyzer::JaxprSchedule> schedule = analyzer::ScheduleJaxpr(module, options);
    if (!schedule.ok()) continue;
    for (analyzer::JaxprMemoryModel model : {analyzer::JaxprMemoryModel::kEveryValue,
                                             analyzer::JaxprMemoryModel::kFused}) {
      const analyzer::JaxprLiveness l = analyzer::ComputeJaxprLiveness(module, *schedule, model);
      int64_t listed = 0;
      for (int32_t b : l.live_at_peak) listed += schedule->buffers[b].bytes;
      if (!schedule->steps.empty()) listed += schedule->steps[l.peak_step].opaque_temp_bytes;
      Check(listed == l.peak.total(), "the values live at the peak do not add up to it");
      for (const analyzer::JaxprLiveBytes& at : l.timeline) Check(at.total() <= l.peak.total(), "peak below a step");
      Check(l.arena_peak_bytes <= l.temp_peak_bytes, "predicted temp above all temporaries");
      Check(l.aliased_bytes <= l.donated_bytes, "aliased more than donated");
      const analyzer::JaxprFlops flops = analyzer::CountJaxprFlops(module, module.top);
      const viz::JaxprReportInput input{module, *schedule, l, flops, 10};
      (void)viz::RenderJaxprText(input);
      std::string json;
      llvm::raw_string_ostream os(json);
      viz::WriteJaxprJson(input, os);
    }
  }
}

// The jaxpr as a Program (ir/jaxpr_program.h): a well-formed graph and
// buffer assignment.
void Lower(const memplan::ir::JaxprModule& module) {
  using namespace memplan;
  for (bool fuse : {true, false}) {
    ir::JaxprProgramOptions options;
    options.lowering.max_instructions = 1 << 16;
    options.donated = {true, false, true};
    options.fuse_elementwise = fuse;
    // The XLA rules that are options (ir/jaxpr_program.h), on the second pass.
    options.fold_dot_transposes = !fuse;
    options.copy_donated_parameters = !fuse;
    options.cpu_bf16_in_f32 = !fuse;
    options.share_output_operands = !fuse;
    absl::StatusOr<ir::Program> program = ir::BuildJaxprProgram(module, options);
    if (!program.ok()) continue;
    const ir::Module& m = program->module;
    Check(m.entry_computation() != nullptr, "no entry computation");
    Check(m.entry_computation()->parameters.size() == module.jaxpr(module.top).invars.size(),
          "entry parameters are not the top jaxpr's inputs");
    for (const ir::Instruction& inst : m.instructions()) {
      for (ir::InstructionId op : inst.operands) {
        Check(m.contains(op) && m.instruction(op).computation == inst.computation, "an operand from elsewhere");
      }
      for (const ir::CalledComputation& c : inst.calls) Check(m.contains(c.computation), "bad called computation");
    }
    for (const ir::Value& v : program->values) {
      Check(v.live_range.has_value() && v.live_range->start <= v.live_range->end &&
                v.live_range->end <= program->schedule.max_time,
            "a live range outside the schedule");
      Check(program->FindAllocation(v.allocation) != nullptr, "a value without an allocation");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  auto source = parsers::SourceText::FromString(
      "fuzz.jaxpr", std::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<ir::JaxprModule> module = parsers::ParseJaxpr(*source);
  if (!module.ok()) {
    Check(module.status().message().rfind("fuzz.jaxpr:", 0) == 0, "parse error without a location");
    return 0;
  }
  Check(module->top.valid(), "no top-level jaxpr");
  Analyze(*module);
  Lower(*module);
  for (size_t i = 0; i < module->eqns.size(); ++i) {
    const ir::JaxprEqn& eqn = module->eqns[i];
    Check(eqn.id.value() == static_cast<int64_t>(i), "equation ids are not dense");
    for (const ir::JaxprAtom& atom : eqn.invars) {
      if (atom.IsLiteral()) continue;
      Check(module->var(atom.var).jaxpr == eqn.jaxpr, "an operand from another jaxpr");
    }
    for (const ir::JaxprEqn::Called& c : eqn.called) {
      Check(c.jaxpr.valid() && static_cast<size_t>(c.jaxpr.value()) < module->jaxprs.size(), "bad called jaxpr");
    }
  }
  return 0;
}
