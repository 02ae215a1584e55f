// What a predicted collective does in the step, and so whether compute can
// hide it (docs/cost-model.md, "Overlap"):
//   gradient   an all-reduce or reduce-scatter of a value the backward pass
//              computed (or a fused intermediate) that the optimizer reads:
//              the gradient synchronisation, issued as gradients become
//              ready, hides behind the backward pass's compute;
//   prefetch   a collective whose input is one entry parameter, relaid out
//              or converted at most (copies, transposes, converts, and
//              fusions without dots, convolutions or reductions, with
//              constants): FSDP's weight gathers, a batch re-laid out.
//              Issued early, it hides behind the compute of the phases up
//              to the one that reads it;
//   critical   anything else (a tensor-parallel all-reduce of a partial
//              activation, an expert all-to-all, the loss's reduction):
//              the next instruction waits for it.
// Decided from the graph (analyzer/step_phases.h and operand edges), not
// from mesh axis names.
#ifndef MEMPLAN_SIMULATOR_OVERLAP_H_
#define MEMPLAN_SIMULATOR_OVERLAP_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/step_phases.h"
#include "ir/module.h"
#include "predictor/propagation.h"
#include "simulator/step_time.h"

namespace memplan::simulator {

enum class CollectiveRole : uint8_t { kGradient, kPrefetch, kCritical };
std::string_view CollectiveRoleName(CollectiveRole role);  // "gradient", "prefetch", "critical"

// Per-module facts the roles need, computed once.
struct OverlapFacts {
  analyzer::StepPhases phases;
  // Per instruction: an entry-computation instruction whose value is one
  // entry parameter, relaid out or converted at most (prefetch's rule).
  std::vector<uint8_t> from_inputs;
};
OverlapFacts AnalyzeOverlap(const ir::Module& module);

struct CollectiveOverlap {
  CollectiveRole role = CollectiveRole::kCritical;
  double overlappable = 0;  // 1 for gradient and prefetch, else 0
  PhaseMask window = 0;     // the phases whose compute may hide it
};

// The role of `collective` (rules above) and its window: gradient: backward;
// prefetch: every phase up to its consumer's (all of them where the
// program is no training step, which is all forward).
CollectiveOverlap OverlapOf(const OverlapFacts& facts, const predictor::PredictedCollective& collective);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_OVERLAP_H_
