// Structural checks every parser of a whole module runs before it returns
// one (HLO text and HloProto alike), so that analyses can follow ids and
// edges without guarding against malformed input.
#ifndef MEMPLAN_PARSERS_HLO_GRAPH_CHECKS_H_
#define MEMPLAN_PARSERS_HLO_GRAPH_CHECKS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/module.h"

namespace memplan::parsers {

struct GraphProblem {
  ir::ComputationId computation;  // where the problem is
  ir::InstructionId instruction;  // invalid when it is the computation's
  std::string expected;           // "expected ...", for a located error
};

// The first problem found, or nullopt when: every computation has at least
// one instruction, a root and parameters of its own (parameters by number,
// gaps allowed); every instruction belongs to the computation that lists it,
// and its operands and control predecessors are instructions of that same
// computation, without cycles; every called computation exists and no
// computation calls itself, directly or not; the entry, when set, exists.
std::optional<GraphProblem> FindGraphProblem(const ir::Module& module);

// The two checks of FindGraphProblem that a parser cannot make sure of by
// construction, for parsers that make sure of the rest (the text parser
// resolves names within a computation, so membership holds):
//
// A cycle of operands and control predecessors within `computation`, whose
// instructions must all belong to it and have operands in it.
std::optional<GraphProblem> FindOperandCycle(const ir::Module& module,
                                             ir::ComputationId computation);
// A computation that calls itself, directly or not, given every (caller,
// callee) pair of computations (valid ids of `module`).
std::optional<GraphProblem> FindRecursion(
    const ir::Module& module,
    const std::vector<std::pair<ir::ComputationId, ir::ComputationId>>& calls);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_HLO_GRAPH_CHECKS_H_
