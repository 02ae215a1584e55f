// FLOPs of a jaxpr, counted from its equations' avals and params the way
// XLA's HloCostAnalysis counts the HLO they lower to:
//   - dot_general: 2 * output elements * the product of the lhs contracting
//     dimensions (exact);
//   - conv_general_dilated: 2 * (lhs features / feature_group_count) * output
//     features * (batch / batch_group_count) * the valid kernel positions
//     per spatial dimension (exact, ir::ConvolutionValidPositions);
//   - elementwise arithmetic and comparisons: one flop per output element;
//     exp, log, tanh, logistic, sqrt, rsqrt, pow, erf, sin, cos, ...: one
//     transcendental per output element;
//   - reduce_sum/max/min/prod/and/or, argmax/argmin, cumulative ops: one flop
//     per input element not in the output (cumulative: per element);
//   - data movement (broadcast, reshape, transpose, slices, gathers,
//     concatenate, pad, convert, iota, ...): none.
// Calls count their callee once; scan its body `length` times; while its
// condition and body once (the trip count is unknown; XLA counts them once
// too); cond its most expensive branch. Only dot_general and
// conv_general_dilated match XLA exactly: XLA's elementwise counts depend
// on the fusions and algebraic rewrites it makes.
#ifndef MEMPLAN_ANALYZER_JAXPR_FLOPS_H_
#define MEMPLAN_ANALYZER_JAXPR_FLOPS_H_

#include <cstdint>

#include "ir/jaxpr.h"

namespace memplan::analyzer {

struct JaxprFlops {
  double matmul = 0;  // dot_general and conv_general_dilated
  double elementwise = 0;  // elementwise, reductions, cumulative ops
  double transcendentals = 0;
  // Equations whose flops could not be counted: a dot or convolution whose
  // params or avals do not read, or a primitive memplan does not know.
  int64_t uncounted_equations = 0;
  // while loops, counted once each.
  int64_t while_loops = 0;

  double flops() const { return matmul + elementwise; }
  JaxprFlops& operator+=(const JaxprFlops& other);
};

// The flops of one equation, what it calls included.
JaxprFlops EquationFlops(const ir::JaxprModule& module, const ir::JaxprEqn& eqn);

// The flops of a jaxpr: the sum over its equations.
JaxprFlops CountJaxprFlops(const ir::JaxprModule& module, ir::JaxprId jaxpr);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_JAXPR_FLOPS_H_
