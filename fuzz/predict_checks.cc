#include "fuzz/predict_checks.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/markup_check.h"
#include "ir/shard_layout.h"
#include "ir/sharding.h"
#include "viz/predict_report.h"

namespace memplan::fuzz {
namespace {

// The plan's argument bytes on one device, each argument's shard as
// ir::XlaShardLayout sizes it; -1 when an argument has no such layout (not
// an array, or a sharding XlaShardLayout does not read).
int64_t ArgumentShardBytes(const std::vector<ir::EntryArgument>& arguments,
                           const ir::ResolvedPlan& plan) {
  int64_t bytes = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const ir::Shape& shape = arguments[i].shape;
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

void CheckDevices(std::string_view target, const predictor::Prediction& p, const ir::Mesh& mesh) {
  if (static_cast<int64_t>(p.devices.size()) != mesh.device_count()) {
    Fail(target, "one device entry per mesh position", p.label);
  }
  int64_t max_footprint = 0;
  for (const predictor::DeviceMemory& d : p.devices) {
    if (d.argument_bytes < 0 || d.output_bytes < 0 || d.alias_bytes < 0 || d.temp_bytes < 0 ||
        d.live_peak_bytes < 0) {
      Fail(target, "a negative byte count", p.label);
    }
    if (d.device_footprint_bytes != d.argument_bytes + d.output_bytes - d.alias_bytes + d.temp_bytes) {
      Fail(target, "footprint is not argument + output - alias + temp", p.label);
    }
    if (d.alias_bytes > d.argument_bytes || d.alias_bytes > d.output_bytes) {
      Fail(target, "alias exceeds the arguments or the outputs", p.label);
    }
    if (d.live_peak_bytes < d.argument_bytes) Fail(target, "the live peak lacks the arguments", p.label);
    max_footprint = std::max(max_footprint, d.device_footprint_bytes);
  }
  if (p.max_device_footprint_bytes != max_footprint) {
    Fail(target, "headline is not the largest", p.label);
  }
}

void CheckLiveAtPeak(std::string_view target, const predictor::Prediction& p) {
  if (p.live_at_peak == nullptr || p.devices.empty()) return;
  const predictor::PeakContents& c = *p.live_at_peak;
  const predictor::DeviceMemory& d = p.devices.front();
  int64_t sum = d.argument_bytes + c.other_bytes;
  for (size_t i = 0; i < c.largest.size(); ++i) {
    const predictor::PeakBuffer& b = c.largest[i];
    if (b.bytes < 0) Fail(target, "a negative buffer at the peak", p.label);
    if (i > 0 && b.bytes > c.largest[i - 1].bytes) {
      Fail(target, "peak buffers not most bytes first", p.label);
    }
    if (b.start > d.live_peak_step || b.end < d.live_peak_step) {
      Fail(target, "a buffer listed at the peak is not live there", p.label);
    }
    sum += b.bytes;
  }
  if (c.largest.size() > predictor::PeakContents::kLargestKept) {
    Fail(target, "too many listed", p.label);
  }
  if (c.other_count < 0 || c.other_bytes < 0) Fail(target, "negative other buffers", p.label);
  if (sum != d.live_peak_bytes) {
    Fail(target, "live at the peak does not add up to the live peak", p.label);
  }
}

std::string CheckedJson(std::string_view target, const ir::Module& module,
                        const std::string& module_name, const predictor::Prediction& p) {
  const viz::PredictReportInput input{module, module_name, p};
  std::string json = viz::RenderPredictJson(input);
  if (auto problem = JsonProblem(json)) Fail(target, "the JSON report: " + *problem, json);
  if (viz::RenderPredictJson(input) != json) {
    Fail(target, "the JSON report is not deterministic", p.label);
  }
  const std::string text = viz::RenderPredictText(input);
  if (auto problem = TextProblem(text)) Fail(target, "the text report: " + *problem, text);
  if (viz::RenderPredictText(input) != text) {
    Fail(target, "the text report is not deterministic", p.label);
  }
  return json;
}

}  // namespace

void Fail(std::string_view target, std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "%.*s: %.*s\n%.*s\n", static_cast<int>(target.size()), target.data(),
               static_cast<int>(what.size()), what.data(), static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

absl::Status PredictAndCheck(std::string_view target, const ir::Program& program,
                             const std::vector<ir::EntryArgument>& arguments,
                             const predictor::Predictor& shared,
                             const predictor::Predictor& unshared, const ir::ResolvedPlan& plan) {
  absl::StatusOr<predictor::Prediction> a = shared.Predict(plan);
  absl::StatusOr<predictor::Prediction> b = unshared.Predict(plan);
  if (a.ok() != b.ok()) {
    Fail(target, "shared and unshared predictors disagree on an error",
         (a.ok() ? b : a).status().ToString());
  }
  if (!a.ok()) {
    if (!absl::IsInvalidArgument(a.status())) {
      Fail(target, "Predict failed with other than InvalidArgument", a.status().ToString());
    }
    return a.status();
  }
  CheckDevices(target, *a, plan.mesh);
  CheckLiveAtPeak(target, *a);
  const int64_t argument_bytes = ArgumentShardBytes(arguments, plan);
  if (argument_bytes >= 0 && a->devices.front().argument_bytes != argument_bytes) {
    Fail(target, "argument bytes are not the arguments' shards", plan.label);
  }
  const std::string json = CheckedJson(target, program.module, program.module_name, *a);
  if (json != CheckedJson(target, program.module, program.module_name, *b)) {
    Fail(target, "shared prediction differs from unshared", json);
  }
  return absl::OkStatus();
}

}  // namespace memplan::fuzz
