#include "simulator/overlap.h"

namespace memplan::simulator {

using analyzer::StepPhase;

std::string_view CollectiveRoleName(CollectiveRole role) {
  switch (role) {
    case CollectiveRole::kGradient:
      return "gradient";
    case CollectiveRole::kPrefetch:
      return "prefetch";
    case CollectiveRole::kCritical:
      return "critical";
  }
  return "critical";
}

OverlapFacts AnalyzeOverlap(const ir::Module& module) {
  OverlapFacts facts;
  facts.phases = analyzer::ClassifyStepPhases(module);
  facts.from_inputs.assign(module.instruction_count(), 0);
  const ir::Computation* entry = module.entry_computation();
  if (entry == nullptr) return facts;
  // Operands before users in a computation's order (HLO defines a value
  // before its use); an operand not yet decided counts as computed.
  for (ir::InstructionId id : entry->instructions) {
    if (!module.contains(id)) continue;
    const ir::Instruction& i = module.instruction(id);
    bool inputs = i.opcode != ir::Opcode::kRng && i.opcode != ir::Opcode::kRngBitGenerator &&
                  !ir::IsCollective(i.opcode) && i.opcode != ir::Opcode::kWhile &&
                  i.opcode != ir::Opcode::kCustomCall;
    for (ir::InstructionId op : i.operands) {
      inputs = inputs && module.contains(op) && facts.from_inputs[static_cast<size_t>(op.value())];
    }
    facts.from_inputs[static_cast<size_t>(id.value())] = inputs ? 1 : 0;
  }
  return facts;
}

CollectiveOverlap OverlapOf(const OverlapFacts& facts,
                            const predictor::PredictedCollective& collective) {
  CollectiveOverlap out;
  const StepPhase consumer = facts.phases.at(collective.at);
  const bool reduction = collective.kind == predictor::CollectiveKind::kAllReduce ||
                         collective.kind == predictor::CollectiveKind::kReduceScatter;
  const bool source_backward = !collective.source.valid() ||
                               facts.phases.at(collective.source) == StepPhase::kBackward;
  if (facts.phases.training && reduction && consumer == StepPhase::kOptimizer && source_backward) {
    out.role = CollectiveRole::kGradient;
    out.window = PhaseBit(StepPhase::kBackward);
  } else if (collective.source.valid() &&
             static_cast<size_t>(collective.source.value()) < facts.from_inputs.size() &&
             facts.from_inputs[static_cast<size_t>(collective.source.value())]) {
    out.role = CollectiveRole::kPrefetch;
    for (StepPhase p : analyzer::kStepPhases) {
      out.window |= PhaseBit(p);
      if (p == consumer) break;
    }
  } else {
    return out;
  }
  out.overlappable = 1;
  return out;
}

}  // namespace memplan::simulator
