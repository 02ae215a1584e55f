// A jaxpr lowered into the module graph (ir/module.h), so that what reads
// the graph (the simulator's cost model, the graph views) reads jaxprs too.
// One computation per jaxpr (the top one is the entry), its constvars then
// invars as parameters, one instruction per equation output:
//   - dot_general -> dot (dimension numbers), conv_general_dilated ->
//     convolution (dimension numbers, window, group counts);
//   - elementwise primitives -> their HLO opcodes (add, multiply, maximum,
//     exp, compare with its direction, select, convert, ...);
//   - reduce_sum/max/min/prod/and/or -> reduce (dimensions = axes);
//   - broadcast_in_dim -> broadcast, transpose -> transpose (dimensions),
//     reshape/squeeze/expand_dims -> reshape, slice, concatenate, pad,
//     gather, iota, ... -> their opcodes;
//   - calls -> call (to_apply = the callee), scan and while -> while (body;
//     and condition), cond -> conditional (branches);
//   - an equation with several outputs -> one tuple-shaped instruction and a
//     get-tuple-element per output; literals -> constants;
//   - anything else -> an instruction of kUnknown named by its primitive.
// The root is the only output, or a tuple of them. Reduce's to_apply
// computations are not built (Module::gaps says kAttributes).
#ifndef MEMPLAN_IR_JAXPR_LOWERING_H_
#define MEMPLAN_IR_JAXPR_LOWERING_H_

#include "absl/status/statusor.h"
#include "ir/jaxpr.h"
#include "ir/module.h"

namespace memplan::ir {

// InvalidArgument when the module has no top jaxpr.
absl::StatusOr<Module> LowerJaxpr(const JaxprModule& jaxpr);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_JAXPR_LOWERING_H_
