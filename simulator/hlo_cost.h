// FLOPs, transcendentals and bytes accessed per HLO instruction, counted as
// XLA's HloCostAnalysis counts them (what `jax.jit(f).lower(...).compile()
// .cost_analysis()` reports), so that memplan's totals can be held against
// XLA's:
//   - dot: 2 * output elements * the product of the lhs contracting
//     dimensions; convolution: 2 * (input features / feature groups) *
//     output features * (batch / batch groups) * the valid kernel positions;
//   - elementwise ops: one flop per output element, or one transcendental
//     (exp, log, logistic, power, sqrt, cbrt, rsqrt, tanh, sin, cos, tan,
//     expm1, log1p, atan2, erf);
//   - reduce, reduce-window, map, scatter, select-and-scatter: their
//     computation's cost times the times it is applied; sort n*ceil(log2 n);
//   - bytes accessed: operands plus output, except where XLA says otherwise
//     (slices read only what they keep; parameters, constants,
//     get-tuple-element and bitcasts touch nothing; a fusion counts its
//     operands as its fused parameters read them and its outputs, never its
//     internals);
//   - while: its body and condition once (XLA does not multiply by the trip
//     count); call: its computation; conditional: the larger branch.
// docs/cost-model.md, "Compute", lists every rule.
#ifndef MEMPLAN_SIMULATOR_HLO_COST_H_
#define MEMPLAN_SIMULATOR_HLO_COST_H_

#include <cstdint>
#include <span>
#include <vector>

#include "ir/hlo_attributes.h"
#include "ir/module.h"

namespace memplan::simulator {

struct HloCost {
  double flops = 0;
  double transcendentals = 0;
  double bytes_accessed = 0;
  // The instruction needs attributes the input did not give (a dot without
  // dimension numbers, a convolution without its window): its flops are
  // left at 0 and counted here, with those of instructions it calls.
  int64_t unknown = 0;
  // Custom calls, which XLA counts as unknown (-1) too; same treatment.
  int64_t custom_calls = 0;
};

// Per-instruction costs of a module's computations, computed once.
class HloCostAnalysis {
 public:
  // Precondition: `module` outlives this object.
  explicit HloCostAnalysis(const ir::Module& module);

  // The cost of one instruction, everything it calls included (a fusion's
  // fused computation, a while's body and condition).
  const HloCost& Cost(ir::InstructionId id) const { return costs_[id.value()]; }

  // The sum over a computation's instructions (XLA's properties_sum_ when
  // `computation` is the entry).
  HloCost ComputationCost(ir::ComputationId computation) const;

  // The entry computation's sum; zero when the module has no entry.
  HloCost ModuleCost() const;

 private:
  HloCost Compute(const ir::Instruction& instruction);
  // The opcodes that apply a called computation (hlo_op_cost.h prices the
  // rest); operands as OperandShapes.
  HloCost AppliedCost(const ir::Instruction& i, const ir::HloAttributes& attributes,
                      std::span<const ir::Shape* const> operands);
  HloCost ScatterCost(const ir::Instruction& i, std::span<const ir::Shape* const> operands);
  HloCost SelectAndScatterCost(const ir::Instruction& i, const ir::HloAttributes& attributes,
                               std::span<const ir::Shape* const> operands);
  HloCost LargerBranchCost(const ir::Instruction& conditional);
  // The computation `i` calls in `role`, else its first call.
  HloCost CalledCost(const ir::Instruction& i, ir::CallRole role);
  HloCost FusionCost(const ir::Instruction& fusion);
  // Adds the bytes a fusion writes to `bytes`: each output array, or only
  // the update where a dynamic-update-slice in `fused` produces it.
  void AddFusionOutputBytes(const ir::Instruction& fusion, const ir::Computation& fused,
                            double* bytes) const;
  // The bytes a dynamic-update-slice writes: its update's (its own without one).
  double DynamicUpdateBytes(const ir::Instruction& dus) const;
  // The get-tuple-element chain's end that reads tuple `index` of a fused
  // `parameter`; as far as the chain goes (the parameter when no user reads it).
  ir::InstructionId TupleElementReader(ir::InstructionId parameter,
                                       const std::vector<int64_t>& index) const;
  double FusionParameterReadBytes(ir::InstructionId parameter) const;
  HloCost CalledCost(ir::ComputationId computation);
  HloCost& Memo(ir::InstructionId id);

  const ir::Module& module_;
  std::vector<HloCost> costs_;
  std::vector<char> done_;
  std::vector<std::vector<ir::InstructionId>> users_;  // by instruction
  std::vector<HloCost> computation_costs_;
  std::vector<char> computation_done_;
};

// Bytes XLA's shape-size function gives a shape: an array's elements times
// its element size (packed sub-byte types as the layout says), a tuple's
// index table (8 bytes per element), 0 for a token.
double ShapeBytes(const ir::Shape& shape);

// True when a transpose only relabels dimensions: with the operand's and
// the output's layouts it moves no bytes (XLA's TransposeIsBitcast).
bool TransposeIsBitcast(const ir::Shape& operand, const ir::Shape& output,
                        std::span<const int64_t> dimensions);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_HLO_COST_H_
