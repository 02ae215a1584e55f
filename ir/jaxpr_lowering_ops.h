// The per-primitive part of lowering a jaxpr (ir/jaxpr_lowering.h): which
// HLO opcode a primitive becomes, and the typed attributes its parameters
// give the instruction.
#ifndef MEMPLAN_IR_JAXPR_LOWERING_OPS_H_
#define MEMPLAN_IR_JAXPR_LOWERING_OPS_H_

#include <string_view>

#include "ir/jaxpr.h"
#include "ir/module.h"

namespace memplan::ir {

struct JaxprOpMapping {
  std::string_view primitive;
  Opcode opcode;
  std::string_view direction = {};  // compare
};

// The opcode of an array primitive (elementwise, dot_general, reductions,
// data movement, cumulative reductions as reduce-window); nullptr for calls,
// loops and primitives memplan does not know.
const JaxprOpMapping* JaxprOpFor(std::string_view primitive);

// Primitives that return their operand unchanged in a compiled program
// (stop_gradient, sharding_constraint, ...): they lower to no instruction.
bool IsJaxprIdentity(std::string_view primitive);

// Sets the attributes of instruction `id` (lowered from `eqn`, operands
// already in place) that its parameters state: dot and convolution
// dimension numbers and window, reduce axes, broadcast dimensions,
// permutation, slice bounds, gather dimension numbers, compare direction.
// A parameter that does not read leaves its attribute unset.
void SetJaxprAttributes(const JaxprEqn& eqn, const JaxprOpMapping* mapping, Module* module,
                        InstructionId id);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_JAXPR_LOWERING_OPS_H_
