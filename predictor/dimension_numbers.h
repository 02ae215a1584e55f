// Whether an instruction's dimension numbers fit its shapes: every dimension
// an attribute names (broadcast and transpose dimensions, reduce dims, dot,
// convolution, gather and scatter numbers, slice and pad lists, ...) lies
// within the rank of the operand or result it indexes, and lists that pair
// up (a dot's batch dims, a transpose's permutation) have matching lengths.
// A compiler's module always fits (XLA's verifier checks the same); a
// hand-written or corrupted one may not, and the propagation rules read
// these numbers as indices. PropagationGraph::Build records the answer per
// instruction; no rule runs on one that does not fit (it is replicated and
// listed among the places no rule covers).
#ifndef MEMPLAN_PREDICTOR_DIMENSION_NUMBERS_H_
#define MEMPLAN_PREDICTOR_DIMENSION_NUMBERS_H_

#include "ir/module.h"

namespace memplan::predictor {

// True when `inst`'s dimension numbers fit its result's and operands' shapes
// as described above; true for an opcode whose rules read none.
bool DimensionNumbersFit(const ir::Module& module, const ir::Instruction& inst);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_DIMENSION_NUMBERS_H_
