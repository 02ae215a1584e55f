#include "parsers/hlo_graph_checks.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"

#include "ir/strings.h"

namespace memplan::parsers {
namespace {

using ir::ComputationId;
using ir::InstructionId;

GraphProblem Problem(ComputationId c, InstructionId i, std::string expected) {
  return {c, i, std::move(expected)};
}

// Operand, control-predecessor and membership checks of one computation.
std::optional<GraphProblem> CheckEdges(const ir::Module& module, const ir::Computation& c,
                                       bool* topological) {
  for (InstructionId id : c.instructions) {
    if (!module.contains(id) || module.instruction(id).computation != c.id) {
      return Problem(c.id, InstructionId(), "expected the computation to list only its own instructions");
    }
    const ir::Instruction& instruction = module.instruction(id);
    for (absl::Span<const InstructionId> edges : {absl::MakeConstSpan(instruction.operands),
                                                  absl::MakeConstSpan(instruction.control_predecessors)}) {
      for (InstructionId operand : edges) {
        if (!module.contains(operand) || module.instruction(operand).computation != c.id) {
          return Problem(c.id, id,
                         StrCat("expected operands of '", instruction.name,
                                "' to be instructions of the same computation"));
        }
        // Ids follow input order: edges that all point backwards prove the
        // computation acyclic without a search.
        if (operand >= id) *topological = false;
      }
    }
    for (const ir::CalledComputation& call : instruction.calls) {
      if (!module.contains(call.computation)) {
        return Problem(c.id, id, StrCat("expected '", instruction.name, "' to call computations of this module"));
      }
    }
  }
  return std::nullopt;
}

// A computation's instruction ids as local indices 0..n-1: by offset when
// the ids are one contiguous run (as both parsers make them), else through
// a map; -1 for an id of another computation.
class LocalIndex {
 public:
  explicit LocalIndex(const std::vector<InstructionId>& ids) {
    const size_t n = ids.size();
    low_ = ids.front().value();
    int64_t high = low_;
    for (InstructionId id : ids) {
      low_ = std::min(low_, id.value());
      high = std::max(high, id.value());
    }
    contiguous_ = static_cast<size_t>(high - low_ + 1) == n;
    if (contiguous_) {
      offset_index_.assign(n, -1);
      for (size_t k = 0; k < n; ++k) offset_index_[ids[k].value() - low_] = static_cast<int64_t>(k);
    } else {
      for (size_t k = 0; k < n; ++k) sparse_[ids[k].value()] = static_cast<int64_t>(k);
    }
  }

  int64_t operator()(InstructionId id) const {
    if (contiguous_) {
      const int64_t at = id.value() - low_;
      return at >= 0 && at < static_cast<int64_t>(offset_index_.size()) ? offset_index_[at] : -1;
    }
    auto it = sparse_.find(id.value());
    return it == sparse_.end() ? -1 : it->second;
  }

 private:
  int64_t low_ = 0;
  bool contiguous_ = false;
  std::vector<int64_t> offset_index_;
  absl::flat_hash_map<int64_t, int64_t> sparse_;
};

// Kahn's algorithm over one computation's operand and control edges.
std::optional<GraphProblem> CheckAcyclic(const ir::Module& module, const ir::Computation& c) {
  const size_t n = c.instructions.size();
  if (n == 0) return std::nullopt;
  const LocalIndex local(c.instructions);
  std::vector<int64_t> pending(n, 0);
  std::vector<std::vector<int64_t>> users(n);
  for (size_t k = 0; k < n; ++k) {
    const ir::Instruction& instruction = module.instruction(c.instructions[k]);
    for (absl::Span<const InstructionId> edges : {absl::MakeConstSpan(instruction.operands),
                                                  absl::MakeConstSpan(instruction.control_predecessors)}) {
      for (InstructionId operand : edges) {
        const int64_t from = local(operand);
        if (from < 0) continue;  // not of this computation: CheckEdges reports it
        users[from].push_back(static_cast<int64_t>(k));
        ++pending[k];
      }
    }
  }
  std::vector<int64_t> ready;
  for (size_t k = 0; k < n; ++k) {
    if (pending[k] == 0) ready.push_back(static_cast<int64_t>(k));
  }
  size_t done = 0;
  while (!ready.empty()) {
    const int64_t k = ready.back();
    ready.pop_back();
    ++done;
    for (int64_t user : users[k]) {
      if (--pending[user] == 0) ready.push_back(user);
    }
  }
  if (done == n) return std::nullopt;
  for (size_t k = 0; k < n; ++k) {
    if (pending[k] > 0) {
      const InstructionId id = c.instructions[k];
      return Problem(c.id, id, StrCat("expected no cycle of operands, but '",
                                      module.instruction(id).name, "' depends on itself"));
    }
  }
  return std::nullopt;
}

std::optional<GraphProblem> CheckComputation(const ir::Module& module, const ir::Computation& c) {
  if (c.instructions.empty()) {
    return Problem(c.id, InstructionId(), "expected at least one instruction in the computation");
  }
  if (!module.contains(c.root) || module.instruction(c.root).computation != c.id) {
    return Problem(c.id, InstructionId(), "expected the computation's root to be one of its instructions");
  }
  for (InstructionId parameter : c.parameters) {
    if (!parameter.valid()) continue;
    if (!module.contains(parameter) || module.instruction(parameter).computation != c.id ||
        module.instruction(parameter).opcode != ir::Opcode::kParameter) {
      return Problem(c.id, InstructionId(), "expected the computation's parameters to be its own parameter instructions");
    }
  }
  bool topological = true;
  if (auto problem = CheckEdges(module, c, &topological)) return problem;
  if (!topological) return CheckAcyclic(module, c);
  return std::nullopt;
}

}  // namespace

// Depth-first search of the call graph for a computation that reaches
// itself; iterative, so deep call chains cannot overflow the stack.
std::optional<GraphProblem> FindRecursion(
    const ir::Module& module, const std::vector<std::pair<ComputationId, ComputationId>>& calls) {
  const size_t n = module.computations().size();
  std::vector<std::vector<ComputationId>> callees(n);
  for (const auto& [caller, callee] : calls) callees[caller.value()].push_back(callee);
  enum : uint8_t { kNew, kOpen, kDone };
  std::vector<uint8_t> state(n, kNew);
  struct Frame {
    size_t computation;
    size_t next;
  };
  std::vector<Frame> stack;
  for (size_t root = 0; root < n; ++root) {
    if (state[root] != kNew) continue;
    stack.push_back({root, 0});
    state[root] = kOpen;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == callees[top.computation].size()) {
        state[top.computation] = kDone;
        stack.pop_back();
        continue;
      }
      const size_t callee = static_cast<size_t>(callees[top.computation][top.next++].value());
      if (state[callee] == kOpen) {
        const ir::Computation& c = module.computation(ComputationId(static_cast<int64_t>(callee)));
        return Problem(c.id, InstructionId(),
                       StrCat("expected no recursion, but computation '", c.name, "' calls itself"));
      }
      if (state[callee] == kNew) {
        state[callee] = kOpen;
        stack.push_back({callee, 0});
      }
    }
  }
  return std::nullopt;
}

std::optional<GraphProblem> FindOperandCycle(const ir::Module& module, ComputationId computation) {
  return CheckAcyclic(module, module.computation(computation));
}

std::optional<GraphProblem> FindGraphProblem(const ir::Module& module) {
  for (const ir::Instruction& instruction : module.instructions()) {
    if (!module.contains(instruction.computation)) {
      return Problem(ComputationId(), instruction.id,
                     StrCat("expected '", instruction.name, "' to belong to a computation"));
    }
  }
  for (const ir::Computation& c : module.computations()) {
    if (auto problem = CheckComputation(module, c)) return problem;
  }
  if (module.entry.valid() && !module.contains(module.entry)) {
    return Problem(ComputationId(), InstructionId(), "expected the entry to be a computation of this module");
  }
  std::vector<std::pair<ComputationId, ComputationId>> calls;
  for (const ir::Instruction& instruction : module.instructions()) {
    for (const ir::CalledComputation& call : instruction.calls) {
      calls.emplace_back(instruction.computation, call.computation);
    }
  }
  return FindRecursion(module, calls);
}

}  // namespace memplan::parsers
