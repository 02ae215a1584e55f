// XLA's CPU backend computes bf16 in f32, on a lowered jaxpr
// (ir/jaxpr_lowering.h). Specific to the CPU backend (GPUs and TPUs compute
// bf16 natively), so ir::JaxprProgramOptions takes it as an option.
//
// What samples/sharded/transformer_fwd's CPU compile shows
// (jit_transformer_fwd.cpu_after_optimizations.txt):
//   - every bf16 weight a dot reads is converted to f32 first
//     (wrapped_convert.1 ... .7, scheduled right after the parameters, each
//     live until its dot), and the dot reads the f32 copy;
//   - every intermediate is f32 (the bf16 dots' results, the layer norms'
//     and residual adds' outputs): the converts to bf16 that the jaxpr
//     makes before a dot are gone; only the program's outputs keep bf16.
// Under data parallelism the f32 weight copies are replicated, which is
// why XLA's temp barely shrinks there (32 MiB at dp8).
#ifndef MEMPLAN_IR_JAXPR_CPU_BF16_H_
#define MEMPLAN_IR_JAXPR_CPU_BF16_H_

#include "ir/module.h"

namespace memplan::ir {

// In the entry computation: adds an f32 convert of each bf16 parameter a dot
// reads, right after the parameters, and points those dots at it; gives
// every other bf16 array instruction that is not an output (nor a
// parameter, tuple or get-tuple-element) the f32 dtype. Returns the number
// of parameters converted.
int ComputeBf16InF32(Module* module);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_JAXPR_CPU_BF16_H_
