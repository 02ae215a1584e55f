#include "analyzer/jaxpr_fusion.h"

#include <algorithm>
#include <string_view>

#include "analyzer/jaxpr_primitives.h"

namespace memplan::analyzer {
namespace {

// Data movement XLA does not fuse as a cheap producer: in-place updates,
// explicit copies and barriers.
bool Unfusible(std::string_view primitive) {
  return primitive == "dynamic_update_slice" || primitive == "copy" || primitive == "copy_p" ||
         primitive == "optimization_barrier" || primitive == "device_put" ||
         primitive == "sharding_constraint";
}

// A producer XLA fuses into its readers.
bool FusibleProducer(const ir::JaxprModule& module, const ir::JaxprEqn& eqn) {
  switch (PrimitiveKind(module, eqn)) {
    case JaxprPrimitiveKind::kElementwise:
    case JaxprPrimitiveKind::kTranscendental:
      return true;
    case JaxprPrimitiveKind::kDataMovement:
      return !Unfusible(eqn.primitive);
    default:
      return false;
  }
}

// A reader a fusible producer can fuse into.
bool FusingReader(const ir::JaxprModule& module, const ir::JaxprEqn& eqn) {
  return FusibleProducer(module, eqn) || PrimitiveKind(module, eqn) == JaxprPrimitiveKind::kReduction;
}

// Readers of each buffer, and the step defining it (-1: none).
struct Dataflow {
  std::vector<std::vector<int32_t>> readers;
  std::vector<int32_t> defined_at;
};

Dataflow DataflowOf(const JaxprSchedule& schedule) {
  const size_t n = schedule.buffers.size();
  Dataflow d;
  d.readers.resize(n);
  d.defined_at.assign(n, -1);
  for (size_t s = 0; s < schedule.steps.size(); ++s) {
    for (int32_t b : schedule.steps[s].reads) d.readers[b].push_back(static_cast<int32_t>(s));
    for (int32_t b : schedule.steps[s].defines) d.defined_at[b] = static_cast<int32_t>(s);
  }
  return d;
}

// Marks the temporaries a fusing compiler would not materialize: defined
// by a fusible producer, read only by fusing readers (a transcendental by
// one reader at most).
void MarkFused(const ir::JaxprModule& module, const JaxprSchedule& schedule, const Dataflow& d,
               JaxprFusion& out) {
  auto eqn_at = [&](int32_t s) -> const ir::JaxprEqn& { return module.eqn(schedule.steps[s].eqn); };
  for (size_t b = 0; b < schedule.buffers.size(); ++b) {
    const JaxprBuffer& buffer = schedule.buffers[b];
    if (buffer.kind != JaxprBuffer::Kind::kValue || buffer.output || buffer.escapes) continue;
    const int32_t s = d.defined_at[b];
    if (s < 0 || d.readers[b].empty() || !FusibleProducer(module, eqn_at(s))) continue;
    bool fusible = std::all_of(d.readers[b].begin(), d.readers[b].end(),
                               [&](int32_t r) { return FusingReader(module, eqn_at(r)); });
    if (PrimitiveKind(module, eqn_at(s)) == JaxprPrimitiveKind::kTranscendental && d.readers[b].size() > 1) {
      fusible = false;
    }
    if (!fusible) continue;
    out.fused[b] = true;
    ++out.fused_buffers;
  }
}

// Fused buffers' readers read their operands: latest definitions first,
// so that chains of fused buffers carry their last use back to the start.
void CarryLastUses(const JaxprSchedule& schedule, const Dataflow& d, JaxprFusion& out) {
  std::vector<int32_t> order;
  for (size_t b = 0; b < schedule.buffers.size(); ++b) {
    if (out.fused[b]) order.push_back(static_cast<int32_t>(b));
  }
  std::sort(order.begin(), order.end(), [&](int32_t x, int32_t y) { return d.defined_at[x] > d.defined_at[y]; });
  for (int32_t b : order) {
    for (int32_t src : schedule.steps[d.defined_at[b]].reads) {
      out.last_use[src] = std::max(out.last_use[src], out.last_use[b]);
    }
  }
}

// A step's sources, looking through fused operands (at most 64).
std::vector<int32_t> SourcesOf(const JaxprSchedule& schedule, const Dataflow& d, const JaxprStep& step,
                               const JaxprFusion& out) {
  std::vector<int32_t> sources, stack(step.reads.begin(), step.reads.end());
  while (!stack.empty() && sources.size() < 64) {
    const int32_t b = stack.back();
    stack.pop_back();
    if (!out.fused[b]) {
      sources.push_back(b);
      continue;
    }
    for (int32_t src : schedule.steps[d.defined_at[b]].reads) stack.push_back(src);
  }
  return sources;
}

// In place: a fused equation's materialized result takes the memory of a
// same-sized temporary operand that dies at its step.
void ShareInPlace(const ir::JaxprModule& module, const JaxprSchedule& schedule, const Dataflow& d,
                  JaxprFusion& out) {
  std::vector<bool> taken(schedule.buffers.size(), false);
  for (size_t s = 0; s < schedule.steps.size(); ++s) {
    const JaxprStep& step = schedule.steps[s];
    if (step.defines.size() != 1 || !FusibleProducer(module, module.eqn(step.eqn))) continue;
    const int32_t r = step.defines[0];
    if (out.fused[r]) continue;
    for (int32_t o : SourcesOf(schedule, d, step, out)) {
      const JaxprBuffer& operand = schedule.buffers[o];
      if (taken[o] || operand.output || operand.escapes || operand.bytes != schedule.buffers[r].bytes) continue;
      if (operand.kind != JaxprBuffer::Kind::kValue && operand.kind != JaxprBuffer::Kind::kLoopSlice) continue;
      if (out.last_use[o] != static_cast<int32_t>(s) || operand.step >= static_cast<int32_t>(s)) continue;
      taken[o] = true;
      out.last_use[o] = static_cast<int32_t>(s) - 1;
      out.shared_with[r] = o;
      ++out.shared_buffers;
      break;
    }
  }
}

}  // namespace

JaxprFusion FuseJaxpr(const ir::JaxprModule& module, const JaxprSchedule& schedule) {
  const size_t n = schedule.buffers.size();
  JaxprFusion out;
  out.fused.assign(n, false);
  out.shared_with.assign(n, -1);
  out.last_use.resize(n);
  for (size_t b = 0; b < n; ++b) out.last_use[b] = schedule.buffers[b].last_use;
  const Dataflow d = DataflowOf(schedule);
  MarkFused(module, schedule, d, out);
  CarryLastUses(schedule, d, out);
  ShareInPlace(module, schedule, d, out);
  return out;
}

}  // namespace memplan::analyzer
