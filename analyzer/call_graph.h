// The edges of a module read backwards: who uses an instruction, and which
// instructions call a computation. Built once per module in one pass.
#ifndef MEMPLAN_ANALYZER_CALL_GRAPH_H_
#define MEMPLAN_ANALYZER_CALL_GRAPH_H_

#include <cstdint>
#include <vector>

#include "ir/module.h"

namespace memplan::analyzer {

class CallGraph {
 public:
  explicit CallGraph(const ir::Module& module);

  // Instructions with `id` among their operands, in id order (once each).
  const std::vector<ir::InstructionId>& Users(ir::InstructionId id) const {
    return users_[id.value()];
  }
  // Instructions that call `id` (fusion, while, call, ...), in id order.
  const std::vector<ir::InstructionId>& Callers(ir::ComputationId id) const {
    return callers_[id.value()];
  }

 private:
  std::vector<std::vector<ir::InstructionId>> users_;
  std::vector<std::vector<ir::InstructionId>> callers_;
};

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_CALL_GRAPH_H_
