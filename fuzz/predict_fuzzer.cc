// libFuzzer target: `memplan predict` on the sharded corpus's programs
// (samples/sharded and samples/sharded_heldout), under fuzzed plan files.
// Byte 0 picks the program (one of kPrograms, read once per process from
// MEMPLAN_FUZZ_SAMPLES_DIR), the rest is the plan (docs/plan-format.md).
// Beyond "no crash, no sanitizer report, no hang" it aborts when a promise
// breaks:
//   - a plan error names the input ("fuzz-plan.yaml:line:col: ..."), Predict's
//     own errors too (a sharding no whole mesh axes explain), and those are
//     InvalidArgument;
//   - per device: the argument bytes are the arguments' shards as
//     ir::XlaShardLayout (what `memplan shard` shows) sizes them; every byte
//     count is 0 or more; the footprint is argument + output - alias +
//     temp; alias is at most argument and output; the live peak holds the
//     arguments; one device entry per mesh position; the headline is the
//     largest footprint;
//   - what is live at the peak adds up to the live peak (arguments + listed
//     + other), most bytes first, each buffer live at the peak step;
//   - a predictor that shares work between candidates gives what one that
//     shares nothing gives, byte for byte in the JSON report: for the plan
//     itself and then (same predictor) for the plan on a mesh of half the
//     axis sizes, which shares the first one's propagation (same structure,
//     other sizes);
//   - the JSON report parses (markup_check.h's JsonProblem), the text report
//     is valid UTF-8 without control characters (TextProblem), and both
//     render the same bytes twice.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/entry_arguments.h"
#include "fuzz/predict_checks.h"
#include "parsers/load_program.h"
#include "parsers/plan_parser.h"
#include "predictor/predict.h"

#ifndef MEMPLAN_FUZZ_SAMPLES_DIR
#error "MEMPLAN_FUZZ_SAMPLES_DIR must name samples/"
#endif

namespace {

using namespace memplan;

constexpr std::string_view kTarget = "predict_fuzzer";
constexpr std::string_view kName = "fuzz-plan.yaml";
// Under MEMPLAN_FUZZ_SAMPLES_DIR: the sharded corpus, then the programs
// held out of it (a gathered embedding, lowered batching dims, remat, bf16).
constexpr const char* kPrograms[] = {"sharded/mlp_train_step",
                                     "sharded/transformer_fwd",
                                     "sharded/transformer_train_adam",
                                     "sharded/convnet_train_step",
                                     "sharded/moe_train_step",
                                     "sharded/scan_layers_train_step",
                                     "sharded_heldout/gpt_lm_train_step",
                                     "sharded_heldout/llama_train_step",
                                     "sharded_heldout/bf16_mixed_train_step"};
constexpr size_t kProgramCount = sizeof(kPrograms) / sizeof(kPrograms[0]);

[[noreturn]] void Fail(std::string_view what, std::string_view detail) {
  fuzz::Fail(kTarget, what, detail);
}

struct Loaded {
  parsers::LoadedProgram loaded;
  std::vector<ir::EntryArgument> arguments;
  std::vector<ir::Shape> outputs;
  std::unique_ptr<predictor::Predictor> unshared;
};

// Program `k`, loaded on first use and kept for the process.
const Loaded& Program(size_t k) {
  static std::unique_ptr<Loaded> programs[kProgramCount];
  if (programs[k]) return *programs[k];
  auto p = std::make_unique<Loaded>();
  const std::string path = std::string(MEMPLAN_FUZZ_SAMPLES_DIR) + "/" + kPrograms[k];
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(path, {});
  if (!loaded.ok()) Fail("cannot load the corpus program", loaded.status().ToString());
  p->loaded = *std::move(loaded);
  absl::StatusOr<std::vector<ir::EntryArgument>> arguments =
      ir::EntryArguments(p->loaded.program.module);
  if (!arguments.ok()) Fail("corpus program arguments", arguments.status().ToString());
  p->arguments = *std::move(arguments);
  p->outputs = ir::EntryOutputs(p->loaded.program.module);
  predictor::PredictOptions options;
  options.share_between_candidates = false;
  absl::StatusOr<std::unique_ptr<predictor::Predictor>> unshared =
      predictor::Predictor::Create(p->loaded.program, options);
  if (!unshared.ok()) Fail("predictor", unshared.status().ToString());
  p->unshared = *std::move(unshared);
  programs[k] = std::move(p);
  return *programs[k];
}

void CheckNamed(const absl::Status& status) {
  const std::string_view message(status.message().data(), status.message().size());
  if (message.substr(0, kName.size() + 1) != std::string(kName) + ":") {
    Fail("plan error does not name the input", message);
  }
}

// Predicts `plan` with `shared` and with the program's unsharing predictor
// (predict_checks.h); false when Predict rejects the plan (both must, and
// the error must name the input).
bool PredictBoth(const Loaded& program, const predictor::Predictor& shared,
                 const ir::ResolvedPlan& plan) {
  const absl::Status status = fuzz::PredictAndCheck(kTarget, program.loaded.program,
                                                    program.arguments, shared, *program.unshared, plan);
  if (!status.ok()) CheckNamed(status);
  return status.ok();
}

// The plan on a mesh of each even axis size halved (same structure, other
// sizes); false when there is none to halve or it does not resolve there.
bool Halved(parsers::PlanFile plan, const Loaded& program, ir::ResolvedPlan& out) {
  if (plan.mesh.order != ir::Mesh::DeviceOrder::kIota) return false;
  bool changed = false;
  for (ir::MeshAxis& axis : plan.mesh.axes) {
    if (axis.size >= 2 && axis.size % 2 == 0) {
      axis.size /= 2;
      changed = true;
    }
  }
  if (!changed) return false;
  absl::StatusOr<ir::ResolvedPlan> resolved =
      parsers::ResolvePlan(plan, program.arguments, program.outputs);
  if (!resolved.ok()) return false;
  out = *std::move(resolved);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Loaded& program = Program(data[0] % kProgramCount);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  absl::StatusOr<parsers::PlanFile> plan =
      parsers::ParsePlan(parsers::SourceText::FromString(std::string(kName), text));
  if (!plan.ok()) {
    CheckNamed(plan.status());
    return 0;
  }
  // Keep the fuzzer's meshes small: a prediction holds one entry per device.
  if (plan->mesh.device_count() < 1 || plan->mesh.device_count() > 4096) return 0;
  absl::StatusOr<ir::ResolvedPlan> resolved =
      parsers::ResolvePlan(*plan, program.arguments, program.outputs);
  if (!resolved.ok()) {
    CheckNamed(resolved.status());
    return 0;
  }
  absl::StatusOr<std::unique_ptr<predictor::Predictor>> shared =
      predictor::Predictor::Create(program.loaded.program);
  if (!shared.ok()) Fail("predictor", shared.status().ToString());
  if (!PredictBoth(program, **shared, *resolved)) return 0;
  ir::ResolvedPlan halved;
  if (Halved(*plan, program, halved)) PredictBoth(program, **shared, halved);
  return 0;
}
