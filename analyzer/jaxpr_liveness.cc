#include "analyzer/jaxpr_liveness.h"

#include "analyzer/jaxpr_fusion.h"

#include <algorithm>
#include <numeric>

namespace memplan::analyzer {
namespace {

enum class Category { kArgument, kOutput, kTemp };

Category CategoryOf(const JaxprBuffer& b) {
  if (b.kind == JaxprBuffer::Kind::kArgument || b.kind == JaxprBuffer::Kind::kConstant) {
    return Category::kArgument;
  }
  return b.output ? Category::kOutput : Category::kTemp;
}

// [first, last] steps `b` is live, within a schedule of `n` steps, given its
// last use.
std::pair<int32_t, int32_t> LiveSpan(const JaxprBuffer& b, int32_t last_use, int32_t n) {
  const int32_t end = n - 1;
  auto clamp = [&](int32_t s) { return std::clamp<int32_t>(s, 0, end); };
  switch (b.kind) {
    case JaxprBuffer::Kind::kArgument:
      return {0, b.donated && !b.output ? clamp(last_use) : end};
    case JaxprBuffer::Kind::kConstant:
      return {clamp(b.step), end};
    default:
      return {clamp(b.step), b.output ? end : clamp(std::max(b.step, last_use))};
  }
}

void Add(JaxprLiveBytes& bytes, Category c, int64_t n) {
  (c == Category::kArgument ? bytes.arguments : c == Category::kOutput ? bytes.outputs : bytes.temps) += n;
}

}  // namespace

std::vector<int32_t> PairDonatedInputs(const ir::JaxprModule& module, const JaxprSchedule& schedule) {
  std::vector<int32_t> paired(schedule.arguments.size(), -1);
  std::vector<bool> taken(schedule.outputs.size(), false);
  for (size_t i = 0; i < schedule.arguments.size(); ++i) {
    const JaxprBuffer& in = schedule.buffers[schedule.arguments[i]];
    if (!in.donated || !in.var.valid()) continue;
    const ir::JaxprAval& a = module.var(in.var).aval;
    for (size_t o = 0; o < schedule.outputs.size(); ++o) {
      const int32_t ob = schedule.outputs[o];
      if (taken[o] || ob < 0 || !schedule.buffers[ob].var.valid()) continue;
      const ir::JaxprAval& b = module.var(schedule.buffers[ob].var).aval;
      if (a.dtype_name == b.dtype_name && a.dims == b.dims && in.bytes == schedule.buffers[ob].bytes) {
        taken[o] = true;
        paired[i] = static_cast<int32_t>(o);
        break;
      }
    }
  }
  return paired;
}

namespace {

// Each buffer's last use and whether it owns its memory (the fused model
// fuses some away and lets others share an operand's memory).
struct Ownership {
  std::vector<int32_t> last_use;
  std::vector<bool> owns;
};

Ownership OwnershipOf(const ir::JaxprModule& module, const JaxprSchedule& schedule,
                      JaxprMemoryModel model, JaxprLiveness& out) {
  Ownership o;
  o.last_use.resize(schedule.buffers.size());
  o.owns.assign(schedule.buffers.size(), true);
  for (size_t i = 0; i < schedule.buffers.size(); ++i) o.last_use[i] = schedule.buffers[i].last_use;
  if (model == JaxprMemoryModel::kFused) {
    JaxprFusion fusion = FuseJaxpr(module, schedule);
    o.last_use = std::move(fusion.last_use);
    for (size_t i = 0; i < o.owns.size(); ++i) o.owns[i] = !fusion.fused[i];
    out.fused_values = fusion.fused_buffers;
    out.shared_values = fusion.shared_buffers;
  }
  return o;
}

// Bytes entering and leaving each step, per category; totals argument,
// donated, constant, output and aliased bytes (`paired`: each argument's
// donated output, or -1) into `out`.
std::vector<JaxprLiveBytes> StepDeltas(const JaxprSchedule& schedule, const Ownership& o,
                                       const std::vector<int32_t>& paired, int32_t n, JaxprLiveness& out) {
  std::vector<JaxprLiveBytes> delta(static_cast<size_t>(n) + 1);
  for (size_t i = 0; i < schedule.buffers.size(); ++i) {
    const JaxprBuffer& b = schedule.buffers[i];
    if (!o.owns[i]) continue;
    const auto [first, last] = LiveSpan(b, o.last_use[i], n);
    const Category c = CategoryOf(b);
    Add(delta[first], c, b.bytes);
    Add(delta[last + 1], c, -b.bytes);
    if (b.kind == JaxprBuffer::Kind::kArgument) {
      out.argument_bytes += b.bytes;
      if (b.donated) out.donated_bytes += b.bytes;
    } else if (b.kind == JaxprBuffer::Kind::kConstant) {
      out.constant_bytes += b.bytes;
    }
  }
  for (int32_t b : schedule.outputs) {
    if (b >= 0) out.output_bytes += schedule.buffers[b].bytes;
  }
  for (size_t i = 0; i < paired.size(); ++i) {
    if (paired[i] >= 0) out.aliased_bytes += schedule.buffers[schedule.arguments[i]].bytes;
  }
  return delta;
}

// Outputs not paired with a donated input: their memory exists from the
// start, so temporaries can use it before the outputs are written. Returns
// the bytes free at step 0; `delta` gets where each stops being free.
int64_t FreeOutputBytes(const JaxprSchedule& schedule, const Ownership& o,
                        const std::vector<int32_t>& paired, int32_t n, std::vector<int64_t>& delta) {
  std::vector<bool> aliased_output(schedule.buffers.size(), false);
  for (size_t i = 0; i < paired.size(); ++i) {
    if (paired[i] >= 0 && schedule.outputs[paired[i]] >= 0) aliased_output[schedule.outputs[paired[i]]] = true;
  }
  delta.assign(static_cast<size_t>(n) + 1, 0);
  int64_t free_outputs = 0;
  for (size_t i = 0; i < schedule.buffers.size(); ++i) {
    const JaxprBuffer& b = schedule.buffers[i];
    if (!o.owns[i] || !b.output || aliased_output[i] || b.kind != JaxprBuffer::Kind::kValue) continue;
    free_outputs += b.bytes;
    delta[LiveSpan(b, o.last_use[i], n).first] -= b.bytes;
  }
  return free_outputs;
}

// The timeline and its live, temp and arena peaks.
void WalkTimeline(const JaxprSchedule& schedule, const std::vector<JaxprLiveBytes>& delta,
                  int64_t free_outputs, const std::vector<int64_t>& free_outputs_delta, int32_t n,
                  JaxprLiveness& out) {
  JaxprLiveBytes live;
  out.timeline.resize(static_cast<size_t>(n));
  for (int32_t s = 0; s < n; ++s) {
    live.arguments += delta[s].arguments;
    live.outputs += delta[s].outputs;
    live.temps += delta[s].temps;
    JaxprLiveBytes at = live;
    if (s < static_cast<int32_t>(schedule.steps.size())) at.temps += schedule.steps[s].opaque_temp_bytes;
    out.timeline[s] = at;
    if (at.total() > out.peak.total()) {
      out.peak = at;
      out.peak_step = s;
    }
    if (at.temps > out.temp_peak_bytes) {
      out.temp_peak_bytes = at.temps;
      out.temp_peak_step = s;
    }
    free_outputs += free_outputs_delta[s];
    if (at.temps - free_outputs > out.arena_peak_bytes) {
      out.arena_peak_bytes = at.temps - free_outputs;
      out.arena_peak_step = s;
    }
  }
}

// The buffers live at the peak step, largest first (then by step, index).
std::vector<int32_t> LiveAtPeak(const JaxprSchedule& schedule, const Ownership& o, int32_t n,
                                int32_t peak_step) {
  std::vector<int32_t> live;
  for (size_t i = 0; i < schedule.buffers.size(); ++i) {
    if (!o.owns[i]) continue;
    const auto [first, last] = LiveSpan(schedule.buffers[i], o.last_use[i], n);
    if (first <= peak_step && peak_step <= last) live.push_back(static_cast<int32_t>(i));
  }
  std::stable_sort(live.begin(), live.end(), [&](int32_t a, int32_t b) {
    const JaxprBuffer& x = schedule.buffers[a];
    const JaxprBuffer& y = schedule.buffers[b];
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    return x.step != y.step ? x.step < y.step : a < b;
  });
  return live;
}

}  // namespace

JaxprLiveness ComputeJaxprLiveness(const ir::JaxprModule& module, const JaxprSchedule& schedule,
                                   JaxprMemoryModel model) {
  JaxprLiveness out;
  out.model = model;
  const int32_t n = std::max<int32_t>(1, static_cast<int32_t>(schedule.steps.size()));
  const Ownership o = OwnershipOf(module, schedule, model, out);
  const std::vector<int32_t> paired = PairDonatedInputs(module, schedule);
  const std::vector<JaxprLiveBytes> delta = StepDeltas(schedule, o, paired, n, out);
  std::vector<int64_t> free_outputs_delta;
  const int64_t free_outputs = FreeOutputBytes(schedule, o, paired, n, free_outputs_delta);
  WalkTimeline(schedule, delta, free_outputs, free_outputs_delta, n, out);
  out.live_at_peak = LiveAtPeak(schedule, o, n, out.peak_step);
  return out;
}

}  // namespace memplan::analyzer
