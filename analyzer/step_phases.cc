#include "analyzer/step_phases.h"

#include <algorithm>

namespace memplan::analyzer {
namespace {

enum class Marker : uint8_t { kNone, kForward, kBackward };

Marker MarkerOf(std::string_view op_name) {
  if (op_name.find("transpose(") != std::string_view::npos) return Marker::kBackward;
  if (op_name.find("jvp(") != std::string_view::npos) return Marker::kForward;
  return Marker::kNone;
}

// The instruction's own op_name; a fusion without one speaks for its root.
Marker InstructionMarker(const ir::Module& module, const ir::Instruction& instruction) {
  const Marker own = MarkerOf(instruction.metadata->op_name);
  if (own != Marker::kNone || instruction.opcode != ir::Opcode::kFusion) return own;
  for (const ir::CalledComputation& c : instruction.calls) {
    if (c.role != ir::CallRole::kFused || !module.contains(c.computation)) continue;
    const ir::InstructionId root = module.computation(c.computation).root;
    if (module.contains(root)) return MarkerOf(module.instruction(root).metadata->op_name);
  }
  return Marker::kNone;
}

StepPhase PhaseOf(Marker m) {
  return m == Marker::kBackward ? StepPhase::kBackward : StepPhase::kForward;
}

// The computation's instructions with every operand before its users.
std::vector<ir::InstructionId> TopologicalOrder(const ir::Module& module,
                                                const ir::Computation& computation) {
  std::vector<ir::InstructionId> order;
  std::vector<uint8_t> state(module.instruction_count(), 0);  // 1 open, 2 done
  std::vector<std::pair<ir::InstructionId, size_t>> stack;
  for (ir::InstructionId start : computation.instructions) {
    if (!module.contains(start) || state[static_cast<size_t>(start.value())] != 0) continue;
    stack.push_back({start, 0});
    state[static_cast<size_t>(start.value())] = 1;
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const ir::ThinVector<ir::InstructionId>& operands = module.instruction(id).operands;
      if (next < operands.size()) {
        const ir::InstructionId op = operands[next++];
        if (module.contains(op) && state[static_cast<size_t>(op.value())] == 0 &&
            module.instruction(op).computation == computation.id) {
          state[static_cast<size_t>(op.value())] = 1;
          stack.push_back({op, 0});
        }
        continue;
      }
      state[static_cast<size_t>(id.value())] = 2;
      order.push_back(id);
      stack.pop_back();
    }
  }
  return order;
}

// The entry computation's phases by marker, then by the graph (header).
void ClassifyEntry(const ir::Module& module, const ir::Computation& entry,
                   std::vector<Marker>& marker, std::vector<StepPhase>& phase) {
  const std::vector<ir::InstructionId> order = TopologicalOrder(module, entry);
  const size_t n = module.instruction_count();
  std::vector<std::vector<ir::InstructionId>> users(n);
  std::vector<uint8_t> reaches(n, 0);  // is or depends on a backward instruction
  std::vector<uint8_t> depends(n, 0);  // depends on one
  for (ir::InstructionId id : order) {
    const size_t i = static_cast<size_t>(id.value());
    for (ir::InstructionId op : module.instruction(id).operands) {
      if (!module.contains(op) || module.instruction(op).computation != entry.id) continue;
      users[static_cast<size_t>(op.value())].push_back(id);
      depends[i] |= reaches[static_cast<size_t>(op.value())];
    }
    reaches[i] = depends[i] | (marker[i] == Marker::kBackward ? 1 : 0);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const size_t i = static_cast<size_t>(it->value());
    if (marker[i] != Marker::kNone) {
      phase[i] = PhaseOf(marker[i]);
      continue;
    }
    bool forward_user = false, backward_user = false;
    for (ir::InstructionId u : users[i]) {
      const StepPhase p = phase[static_cast<size_t>(u.value())];
      forward_user |= p == StepPhase::kForward;
      backward_user |= p == StepPhase::kBackward;
    }
    if (depends[i]) {
      phase[i] = backward_user ? StepPhase::kBackward : StepPhase::kOptimizer;
    } else if (forward_user) {
      phase[i] = StepPhase::kForward;
    } else {
      phase[i] = backward_user ? StepPhase::kBackward : StepPhase::kOptimizer;
    }
  }
}

// Instructions of the computations `id` calls: their marker, else `id`'s
// phase. `done` holds (computation, caller phase) pairs already walked, so
// a computation shared by many callers is walked once per phase.
void ClassifyCalled(const ir::Module& module, ir::InstructionId id, const std::vector<Marker>& marker,
                    std::vector<StepPhase>& phase, std::vector<uint8_t>& done, int depth) {
  if (depth > 64) return;
  const StepPhase caller = phase[static_cast<size_t>(id.value())];
  const uint8_t bit = static_cast<uint8_t>(1u << static_cast<unsigned>(caller));
  for (const ir::CalledComputation& c : module.instruction(id).calls) {
    if (!module.contains(c.computation)) continue;
    uint8_t& seen = done[static_cast<size_t>(c.computation.value())];
    if (seen & bit) continue;
    seen |= bit;
    for (ir::InstructionId inner : module.computation(c.computation).instructions) {
      if (!module.contains(inner)) continue;
      const size_t i = static_cast<size_t>(inner.value());
      phase[i] = marker[i] != Marker::kNone ? PhaseOf(marker[i]) : caller;
      ClassifyCalled(module, inner, marker, phase, done, depth + 1);
    }
  }
}

}  // namespace

std::string_view StepPhaseName(StepPhase phase) {
  switch (phase) {
    case StepPhase::kForward:
      return "forward";
    case StepPhase::kBackward:
      return "backward";
    case StepPhase::kOptimizer:
      return "optimizer";
  }
  return "forward";
}

StepPhases ClassifyStepPhases(const ir::Module& module) {
  StepPhases out;
  const size_t n = module.instruction_count();
  out.of.assign(n, StepPhase::kForward);
  const ir::Computation* entry = module.entry_computation();
  if (entry == nullptr) return out;
  std::vector<Marker> marker(n, Marker::kNone);
  for (const ir::Instruction& i : module.instructions()) {
    marker[static_cast<size_t>(i.id.value())] = InstructionMarker(module, i);
    out.training |= marker[static_cast<size_t>(i.id.value())] == Marker::kBackward;
  }
  if (!out.training) return out;
  ClassifyEntry(module, *entry, marker, out.of);
  std::vector<uint8_t> done(module.computations().size(), 0);
  for (ir::InstructionId id : entry->instructions) {
    if (module.contains(id)) ClassifyCalled(module, id, marker, out.of, done, 0);
  }
  return out;
}

}  // namespace memplan::analyzer
