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

#include "absl/status/status.h"
#include "ir/module.h"

namespace memplan::predictor {

// True when `inst`'s dimension numbers fit its result's and operands' shapes
// as described above; true for an opcode whose rules read none.
bool DimensionNumbersFit(const ir::Module& module, const ir::Instruction& inst);

// Whether every array the module's instructions hold has a size the
// predictor can count: no unbounded dynamic dimension ('?', which only a
// compile bounds) and all of them together under 2^62 bytes, so no sum of
// shards overflows. InvalidArgument naming the first instruction that
// breaks either.
absl::Status CheckShapesSizable(const ir::Module& module);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_DIMENSION_NUMBERS_H_
