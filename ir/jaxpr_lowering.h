// A jaxpr lowered into the module graph (ir/module.h), so that what reads
// the graph (sharding propagation and prediction, the simulator's cost
// model, the graph views) reads jaxprs too. The top jaxpr is the entry
// computation; its invars are the entry parameters (named by their jaxpr
// variable in the op_name metadata), its constvars constants.
//   - array primitives become their HLO opcodes with the attributes their
//     parameters give (ir/jaxpr_lowering_ops.h): dot_general -> dot,
//     conv_general_dilated -> convolution, elementwise ops, reduce_* ->
//     reduce, broadcast_in_dim, transpose, reshape/squeeze/expand_dims,
//     slice, gather, concatenate, pad, iota, cumulative reductions ->
//     reduce-window; primitives memplan does not know -> kUnknown named by
//     the primitive (replicated by propagation);
//   - calls (pjit/jit, closed_call, named_call, custom_jvp_call,
//     custom_vjp_call, remat/checkpoint, ...) are inlined: the callee's
//     equations are lowered in the caller's computation, once per call site;
//     identities (stop_gradient, sharding_constraint) lower to nothing;
//   - scan becomes a while loop over a tuple (counter, consts, carry, xs,
//     ys): its body computation takes each xs slice with dynamic-slice,
//     runs the scan body inlined and writes each ys slice with
//     dynamic-update-slice; its condition compares the counter with the
//     length. The ys start as broadcast zeros, as JAX lowers them;
//   - while becomes a while loop over (cond consts, body consts, carry),
//     cond a conditional whose branches take the operand tuple;
//   - an equation with several outputs is one tuple-shaped instruction and
//     a get-tuple-element per output; equations whose outputs are all
//     dropped (`_`) are left out, as XLA removes dead code; literals are
//     constants;
//   - every instruction carries its equation's source file:line (when the
//     jaxpr was printed with it) in its metadata.
// The entry root is the only output, or a tuple of them. Reduce's to_apply
// computations are not built (Module::gaps says kAttributes).
#ifndef MEMPLAN_IR_JAXPR_LOWERING_H_
#define MEMPLAN_IR_JAXPR_LOWERING_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "ir/jaxpr.h"
#include "ir/module.h"

namespace memplan::ir {

struct JaxprLoweringOptions {
  // Refuse to build more instructions than this (inlining shared jaxprs can
  // multiply a small text into a huge graph).
  int64_t max_instructions = int64_t{1} << 20;
  // Refuse calls and loops nested deeper than this.
  int32_t max_depth = 256;
};

// InvalidArgument when the module has no top jaxpr or a limit is exceeded.
absl::StatusOr<Module> LowerJaxpr(const JaxprModule& jaxpr, const JaxprLoweringOptions& options = {});

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_JAXPR_LOWERING_H_
