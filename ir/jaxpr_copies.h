// XLA's copy insertion for donated parameters, on a lowered jaxpr
// (ir/jaxpr_lowering.h) whose aliases ir::DonateJaxprArguments recorded.
//
// A donated parameter shares its buffer with the output it is paired with.
// XLA's copy insertion copies such a parameter, and its copy removal takes
// the copy out again only when the parameter's value cannot be live while
// the output is written: before the module is scheduled (as on XLA's CPU
// pipeline, where copy insertion runs before the scheduler) that means
// every reader of the parameter is an ancestor of the output's
// instruction. A reader the output does not depend on (the backward pass's
// activation gradient read from a weight that the optimizer updates in
// place: samples/sharded/transformer_train_adam's copy.40 of w_fc1,
// copy.41 of w_fc2 and copy.43 of w_o) keeps the copy, and every reader
// reads the copy, from the program's start to its last reader.
#ifndef MEMPLAN_IR_JAXPR_COPIES_H_
#define MEMPLAN_IR_JAXPR_COPIES_H_

#include <vector>

#include "ir/module.h"

namespace memplan::ir {

// Adds, for each aliased entry parameter one of whose readers is not an
// ancestor of its output, a copy of the parameter right after the entry's
// parameters, and points every reader at the copy. Returns the parameter
// numbers copied, in alias order. A module without an entry or aliases is
// left as it is.
std::vector<int64_t> CopyDonatedParameters(Module* module);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_JAXPR_COPIES_H_
