// What the predictor requires of a module that a compiler's always meets
// (XLA's verifier checks the same) and a hand-written or damaged one may
// not; the HLO parsers check syntax and names, not these.
//
// DimensionNumbersFit: every dimension an attribute names (broadcast and
// transpose dimensions, reduce dims, dot, convolution, gather and scatter
// numbers, slice and pad lists, ...) lies within the rank of the operand or
// result it indexes, and lists that pair up (a dot's batch dims, a
// transpose's permutation) have matching lengths. The propagation rules read
// these numbers as indices: PropagationGraph::Build records the answer per
// instruction, and no rule runs on one that does not fit (it is replicated
// and listed among the places no rule covers).
//
// CheckShapesSizable: every array has bytes that can be counted.
#ifndef MEMPLAN_PREDICTOR_MODULE_CHECKS_H_
#define MEMPLAN_PREDICTOR_MODULE_CHECKS_H_

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

#endif  // MEMPLAN_PREDICTOR_MODULE_CHECKS_H_
