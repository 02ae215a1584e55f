// libFuzzer target: `memplan predict` on fuzzed programs. The input is an
// HLO module's text, read as `memplan predict m.hlo` reads a lone HLO file
// (ParseHloTextProgram: the graph, no buffer assignment), or a jaxpr
// (LooksLikeJaxpr), lowered as `memplan predict f.jaxpr` lowers one with
// every optional XLA rule on and every input donated; either is predicted
// under plans generated from its entry arguments (kCandidates: every
// argument of rank 1 or more split on its first or last dimension, or both,
// over meshes of 2, 4, 2x2 and 3 devices, uneven shards included), each by a
// predictor sharing work between candidates (the 4-device one shares the
// 2-device one's structure) and by one sharing nothing. Where
// predict_fuzzer fuzzes the plan on the corpus's programs, this one reaches
// the propagation rules with graphs no compiler wrote: operands of any
// rank, dimension numbers out of range, loops and calls of any shape.
//
// Beyond "no crash, no sanitizer report, no hang" it aborts when:
//   - Predictor::Create or Predict fails with other than InvalidArgument;
//   - the shared and the unshared predictor disagree (an error on one
//     alone, or JSON reports that differ by a byte);
//   - a prediction breaks a promise of predict_checks.h (per-device bytes,
//     what is live at the peak, the argument shards' bytes, the reports
//     well-formed and deterministic).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/predict_checks.h"
#include "ir/entry_arguments.h"
#include "ir/jaxpr.h"
#include "ir/jaxpr_program.h"
#include "ir/partition_spec.h"
#include "ir/spec_plan.h"
#include "parsers/hlo_text_program.h"
#include "parsers/jaxpr_parser.h"
#include "parsers/source_text.h"
#include "analyzer/plan_families.h"
#include "predictor/predict.h"

namespace {

using namespace memplan;

constexpr std::string_view kTarget = "predict_program_fuzzer";
constexpr std::string_view kName = "fuzz-program.hlo";
constexpr std::string_view kJaxprName = "fuzz-program.jaxpr";

// Which dimensions of an argument a candidate splits, over which axes.
enum class Split { kFirst, kLast, kFirstAndLast };

struct Candidate {
  std::vector<ir::MeshAxis> axes;
  Split split;
};

// In order: the second shares the first one's structure (other sizes).
const Candidate kCandidates[] = {
    {{{"x", 2}}, Split::kFirst},
    {{{"x", 4}}, Split::kFirst},
    {{{"x", 2}, {"y", 2}}, Split::kFirstAndLast},
    {{{"x", 3}}, Split::kLast},
};

ir::SpecDim Axis(std::string name) {
  ir::SpecDim d;
  d.kind = ir::SpecDim::Kind::kAxes;
  d.axes = {std::move(name)};
  return d;
}

// The candidate's spec for an argument of `rank`: rank 0 and non-arrays
// replicated; on a 2-axis mesh the first dimension over the first axis and
// the last over the second (a rank-1 argument: only the first).
ir::PartitionSpec SpecFor(const Candidate& c, int64_t rank) {
  ir::PartitionSpec spec;
  if (rank <= 0) return spec;
  spec.dims.resize(static_cast<size_t>(rank));
  switch (c.split) {
    case Split::kFirst:
      spec.dims.front() = Axis(c.axes[0].name);
      break;
    case Split::kLast:
      spec.dims.back() = Axis(c.axes[0].name);
      break;
    case Split::kFirstAndLast:
      spec.dims.front() = Axis(c.axes[0].name);
      if (rank >= 2) spec.dims.back() = Axis(c.axes[1].name);
      break;
  }
  return spec;
}

absl::StatusOr<ir::ResolvedPlan> PlanFor(const Candidate& c,
                                         const std::vector<ir::EntryArgument>& arguments) {
  ir::SpecPlan plan;
  plan.mesh.axes = c.axes;
  plan.label = "candidate";
  for (const ir::EntryArgument& a : arguments) {
    const int64_t rank = a.shape.IsArray() ? static_cast<int64_t>(a.shape.dims.size()) : 0;
    plan.arguments.push_back({a.parameter, a.name, a.shape, SpecFor(c, rank), a.donated});
  }
  return analyzer::LowerSpecPlan(plan);
}

void CheckError(const absl::Status& status, std::string_view what) {
  if (!absl::IsInvalidArgument(status)) {
    fuzz::Fail(kTarget, std::string(what) + " failed with other than InvalidArgument",
               status.ToString());
  }
}

}  // namespace

// The input as a Program: a jaxpr lowered, else an HLO module's text. The
// parsers' own errors are their fuzz targets' to check.
absl::StatusOr<ir::Program> ReadProgram(std::string text) {
  if (parsers::LooksLikeJaxpr(text)) {
    auto source = parsers::SourceText::FromString(std::string(kJaxprName), std::move(text));
    absl::StatusOr<ir::JaxprModule> jaxpr = parsers::ParseJaxpr(*source);
    if (!jaxpr.ok()) return jaxpr.status();
    ir::JaxprProgramOptions options;
    const ir::Jaxpr& top = jaxpr->jaxpr(jaxpr->top);
    options.donated.assign(top.constvars.size() + top.invars.size(), true);
    options.fold_dot_transposes = true;
    options.copy_donated_parameters = true;
    options.share_output_operands = true;
    options.cpu_bf16_in_f32 = true;
    return ir::BuildJaxprProgram(*jaxpr, options);
  }
  auto source = parsers::SourceText::FromString(std::string(kName), std::move(text));
  return parsers::ParseHloTextProgram({source}, ir::Program());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<ir::Program> program =
      ReadProgram(std::string(reinterpret_cast<const char*>(data), size));
  if (!program.ok()) return 0;
  absl::StatusOr<std::vector<ir::EntryArgument>> arguments = ir::EntryArguments(program->module);
  if (!arguments.ok()) return 0;
  absl::StatusOr<std::unique_ptr<predictor::Predictor>> shared =
      predictor::Predictor::Create(*program);
  if (!shared.ok()) {
    CheckError(shared.status(), "Predictor::Create");
    return 0;
  }
  predictor::PredictOptions options;
  options.share_between_candidates = false;
  absl::StatusOr<std::unique_ptr<predictor::Predictor>> unshared =
      predictor::Predictor::Create(*program, options);
  if (!unshared.ok()) fuzz::Fail(kTarget, "Create failed only unshared", unshared.status().ToString());
  for (const Candidate& c : kCandidates) {
    absl::StatusOr<ir::ResolvedPlan> plan = PlanFor(c, *arguments);
    if (!plan.ok()) continue;  // an argument shape the plan cannot lower
    // Its errors need not name the input: the plan is not a file here.
    fuzz::PredictAndCheck(kTarget, *program, *arguments, **shared, **unshared, *plan).IgnoreError();
  }
  return 0;
}
