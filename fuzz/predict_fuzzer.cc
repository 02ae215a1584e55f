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
#include "ir/shard_layout.h"
#include "ir/sharding.h"
#include "fuzz/markup_check.h"
#include "parsers/load_program.h"
#include "parsers/plan_parser.h"
#include "predictor/predict.h"
#include "viz/predict_report.h"

#ifndef MEMPLAN_FUZZ_SAMPLES_DIR
#error "MEMPLAN_FUZZ_SAMPLES_DIR must name samples/"
#endif

namespace {

using namespace memplan;

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
  std::fprintf(stderr, "predict_fuzzer: %.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
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

void CheckDevices(const predictor::Prediction& p, const ir::Mesh& mesh) {
  if (static_cast<int64_t>(p.devices.size()) != mesh.device_count()) {
    Fail("one device entry per mesh position", p.label);
  }
  int64_t max_footprint = 0;
  for (const predictor::DeviceMemory& d : p.devices) {
    if (d.argument_bytes < 0 || d.output_bytes < 0 || d.alias_bytes < 0 || d.temp_bytes < 0 ||
        d.live_peak_bytes < 0) {
      Fail("a negative byte count", p.label);
    }
    if (d.device_footprint_bytes != d.argument_bytes + d.output_bytes - d.alias_bytes + d.temp_bytes) {
      Fail("footprint is not argument + output - alias + temp", p.label);
    }
    if (d.alias_bytes > d.argument_bytes || d.alias_bytes > d.output_bytes) {
      Fail("alias exceeds the arguments or the outputs", p.label);
    }
    if (d.live_peak_bytes < d.argument_bytes) Fail("the live peak lacks the arguments", p.label);
    max_footprint = std::max(max_footprint, d.device_footprint_bytes);
  }
  if (p.max_device_footprint_bytes != max_footprint) Fail("headline is not the largest", p.label);
}

void CheckLiveAtPeak(const predictor::Prediction& p) {
  if (p.live_at_peak == nullptr || p.devices.empty()) return;
  const predictor::PeakContents& c = *p.live_at_peak;
  const predictor::DeviceMemory& d = p.devices.front();
  int64_t sum = d.argument_bytes + c.other_bytes;
  for (size_t i = 0; i < c.largest.size(); ++i) {
    const predictor::PeakBuffer& b = c.largest[i];
    if (b.bytes < 0) Fail("a negative buffer at the peak", p.label);
    if (i > 0 && b.bytes > c.largest[i - 1].bytes) Fail("peak buffers not most bytes first", p.label);
    if (b.start > d.live_peak_step || b.end < d.live_peak_step) {
      Fail("a buffer listed at the peak is not live there", p.label);
    }
    sum += b.bytes;
  }
  if (c.largest.size() > predictor::PeakContents::kLargestKept) Fail("too many listed", p.label);
  if (c.other_count < 0 || c.other_bytes < 0) Fail("negative other buffers", p.label);
  if (sum != d.live_peak_bytes) Fail("live at the peak does not add up to the live peak", p.label);
}

// The JSON report of `p`, checked well-formed and deterministic; the text
// report checked likewise.
std::string Json(const Loaded& program, const predictor::Prediction& p) {
  const ir::Program& prog = program.loaded.program;
  const viz::PredictReportInput input{prog.module, prog.module_name, p};
  std::string json = viz::RenderPredictJson(input);
  if (auto problem = fuzz::JsonProblem(json)) Fail("the JSON report: " + *problem, json);
  if (viz::RenderPredictJson(input) != json) Fail("the JSON report is not deterministic", p.label);
  const std::string text = viz::RenderPredictText(input);
  if (auto problem = fuzz::TextProblem(text)) Fail("the text report: " + *problem, text);
  if (viz::RenderPredictText(input) != text) Fail("the text report is not deterministic", p.label);
  return json;
}

// The plan's argument bytes on one device, each argument's shard as
// ir::XlaShardLayout sizes it (every device holds padded shards of the same
// size); -1 when an argument has no such layout (not an array, or a
// sharding XlaShardLayout does not read).
int64_t ArgumentShardBytes(const Loaded& program, const ir::ResolvedPlan& plan) {
  int64_t bytes = 0;
  for (size_t i = 0; i < program.arguments.size(); ++i) {
    const ir::Shape& shape = program.arguments[i].shape;
    if (!shape.IsArray()) return -1;
    absl::StatusOr<ir::HloSharding> canonical = ir::CanonicalHloSharding(plan.ArgumentSharding(i));
    if (!canonical.ok()) return -1;
    absl::StatusOr<ir::ShardLayout> layout =
        ir::XlaShardLayout(*canonical, shape, {}, plan.mesh.device_count());
    if (!layout.ok()) return -1;
    bytes += layout->max_bytes;
  }
  return bytes;
}

// Predicts `plan` with `shared` and with the program's unsharing predictor;
// false when Predict rejects the plan (both must).
bool PredictBoth(const Loaded& program, const predictor::Predictor& shared,
                 const ir::ResolvedPlan& plan) {
  absl::StatusOr<predictor::Prediction> a = shared.Predict(plan);
  absl::StatusOr<predictor::Prediction> b = program.unshared->Predict(plan);
  if (a.ok() != b.ok()) Fail("shared and unshared predictors disagree on an error", plan.label);
  if (!a.ok()) {
    if (!absl::IsInvalidArgument(a.status())) Fail("Predict error not InvalidArgument", a.status().ToString());
    CheckNamed(a.status());
    return false;
  }
  CheckDevices(*a, plan.mesh);
  CheckLiveAtPeak(*a);
  const int64_t arguments = ArgumentShardBytes(program, plan);
  if (arguments >= 0 && a->devices.front().argument_bytes != arguments) {
    Fail("argument bytes are not the arguments' shards", plan.label);
  }
  if (Json(program, *a) != Json(program, *b)) Fail("shared prediction differs from unshared", plan.label);
  return true;
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
