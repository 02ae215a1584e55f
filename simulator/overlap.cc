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

namespace {

// Moves or converts its operand's elements without combining them.
bool Relayout(ir::Opcode op) {
  switch (op) {
    case ir::Opcode::kConvert:
    case ir::Opcode::kCopy:
    case ir::Opcode::kBitcast:
    case ir::Opcode::kReshape:
    case ir::Opcode::kTranspose:
    case ir::Opcode::kBroadcast:
    case ir::Opcode::kSlice:
      return true;
    default:
      return false;
  }
}

// A fusion of elementwise and layout work only: no dot, convolution or
// reduction inside (a weight cast to bf16, not a layer).
bool ElementwiseFusion(const ir::Module& module, const ir::Instruction& fusion, int depth) {
  if (depth > 16) return false;
  for (const ir::CalledComputation& c : fusion.calls) {
    if (!module.contains(c.computation)) return false;
    for (ir::InstructionId id : module.computation(c.computation).instructions) {
      const ir::Instruction& i = module.instruction(id);
      if (i.opcode == ir::Opcode::kDot || i.opcode == ir::Opcode::kConvolution ||
          i.opcode == ir::Opcode::kReduce || !i.calls.empty()) {
        if (i.opcode != ir::Opcode::kFusion || !ElementwiseFusion(module, i, depth + 1)) return false;
      }
    }
  }
  return true;
}

}  // namespace

OverlapFacts AnalyzeOverlap(const ir::Module& module) {
  OverlapFacts facts;
  facts.phases = analyzer::ClassifyStepPhases(module);
  facts.from_inputs.assign(module.instruction_count(), 0);
  const ir::Computation* entry = module.entry_computation();
  if (entry == nullptr) return facts;
  // 1: one entry parameter, relaid out or converted; 2: constants only.
  // Operands come before users in a computation's order (HLO defines a
  // value before its use); an operand not yet decided counts as computed.
  std::vector<uint8_t> kind(module.instruction_count(), 0);
  for (ir::InstructionId id : entry->instructions) {
    if (!module.contains(id)) continue;
    const ir::Instruction& i = module.instruction(id);
    uint8_t k = 0;
    if (i.opcode == ir::Opcode::kParameter) {
      k = 1;
    } else if (i.opcode == ir::Opcode::kConstant || i.opcode == ir::Opcode::kIota) {
      k = 2;
    } else if (Relayout(i.opcode) ||
               (i.opcode == ir::Opcode::kFusion && ElementwiseFusion(module, i, 0))) {
      int parameters = 0;
      bool computed = false;
      for (ir::InstructionId op : i.operands) {
        const uint8_t o = module.contains(op) ? kind[static_cast<size_t>(op.value())] : 0;
        parameters += o == 1 ? 1 : 0;
        computed |= o == 0;
      }
      if (!computed) k = parameters == 0 ? 2 : (parameters == 1 ? 1 : 0);
    }
    kind[static_cast<size_t>(id.value())] = k;
    facts.from_inputs[static_cast<size_t>(id.value())] = k == 1 ? 1 : 0;
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
