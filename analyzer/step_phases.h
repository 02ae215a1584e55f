// Forward, backward and optimizer parts of a training step, per instruction
// (docs/cost-model.md, "Phases of a training step").
//
// JAX names what differentiation made in each instruction's metadata
// op_name: "jvp(...)" for the forward pass it linearised, and
// "transpose(jvp(...))" for the backward pass. The rest of a training step
// is the optimizer (the update after the gradients) and whatever prepares
// the forward's inputs. An instruction is
//   backward   when its op_name has "transpose(" (a fusion: its own op_name,
//              else its fused root's);
//   forward    when its op_name has "jvp(" and no "transpose(";
//   otherwise, in the entry computation, by the graph:
//     - it depends on a backward instruction: backward when a user (its
//       users resolved first) is backward (copies XLA inserted inside the
//       backward pass), else optimizer (updates, gradient clipping, the
//       output tuple);
//     - it does not: forward when a user is forward (casting weights before
//       the forward pass), else backward when a user is backward, else
//       optimizer (the step counter, learning-rate schedules);
//   and in a called computation (loop body, branch, fused computation), the
//   phase of the instruction that calls it.
// A module without a backward instruction is not a training step: every
// instruction is forward.
#ifndef MEMPLAN_ANALYZER_STEP_PHASES_H_
#define MEMPLAN_ANALYZER_STEP_PHASES_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/module.h"

namespace memplan::analyzer {

enum class StepPhase : uint8_t { kForward, kBackward, kOptimizer };
inline constexpr int kNumStepPhases = 3;
inline constexpr std::array<StepPhase, kNumStepPhases> kStepPhases = {
    StepPhase::kForward, StepPhase::kBackward, StepPhase::kOptimizer};
std::string_view StepPhaseName(StepPhase phase);  // "forward", "backward", "optimizer"

struct StepPhases {
  // Some instruction is backward: the module is a training step.
  bool training = false;
  // Per instruction id; forward for an instruction no computation reached.
  std::vector<StepPhase> of;

  StepPhase at(ir::InstructionId id) const {
    return id.valid() && static_cast<size_t>(id.value()) < of.size()
               ? of[static_cast<size_t>(id.value())]
               : StepPhase::kForward;
  }
};

// The phase of every instruction of `module` (rules above). Needs the entry
// computation; without it every instruction is forward.
StepPhases ClassifyStepPhases(const ir::Module& module);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_STEP_PHASES_H_
