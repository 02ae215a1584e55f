// XLA's algebraic simplifier on a lowered jaxpr (ir/jaxpr_lowering.h):
// transpose(dot(a, b)) becomes dot(b, a).
//
// The rewrite applies when the dot is canonical (batch dimensions first and
// the same on both sides, one free dimension per side), the transpose is
// its only reader and swaps the two free dimensions. In the unfused jaxpr
// every weight gradient is such a pair (dot_general, then transpose into
// the weight's layout); XLA computes it as one dot with swapped operands
// (samples/sharded/mlp_train_step's jit_mlp_train_step.cpu_after_
// optimizations.txt: dot.3 ... dot, op_name ".../transpose"), one buffer,
// which the partial-sum all-reduce of a sharded compile reads directly.
#ifndef MEMPLAN_IR_JAXPR_DOT_FOLD_H_
#define MEMPLAN_IR_JAXPR_DOT_FOLD_H_

#include "ir/module.h"

namespace memplan::ir {

// Turns each such transpose into the dot of the swapped operands (its
// shape, name and metadata kept) and drops the dot it read from its
// computation (dead, as XLA removes it). Returns the number folded.
int FoldTransposesIntoDots(Module* module);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_JAXPR_DOT_FOLD_H_
