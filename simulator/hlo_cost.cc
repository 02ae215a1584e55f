#include "simulator/hlo_cost.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "simulator/hlo_op_cost.h"

namespace memplan::simulator {
namespace {

using ir::Instruction;
using ir::InstructionId;
using ir::Opcode;

constexpr int kMaxCallDepth = 256;

// The tuple index of every non-tuple leaf below `shape`, left to right.
std::vector<std::vector<int64_t>> LeafIndices(const ir::Shape& shape) {
  std::vector<std::vector<int64_t>> leaves;
  std::vector<std::pair<const ir::Shape*, std::vector<int64_t>>> stack = {{&shape, {}}};
  while (!stack.empty()) {
    auto [s, index] = stack.back();
    stack.pop_back();
    if (!s->IsTuple()) {
      leaves.push_back(index);
      continue;
    }
    for (size_t k = s->tuple_elements.size(); k-- > 0;) {
      std::vector<int64_t> child = index;
      child.push_back(static_cast<int64_t>(k));
      stack.push_back({&s->tuple_elements[k], child});
    }
  }
  return leaves;
}

}  // namespace

double ShapeBytes(const ir::Shape& shape) { return static_cast<double>(ir::ByteSizeOf(shape, 8)); }

bool TransposeIsBitcast(const ir::Shape& operand, const ir::Shape& output,
                        std::span<const int64_t> dimensions) {
  if (!operand.layout || !output.layout) return false;
  const std::vector<int64_t>& in = operand.layout->minor_to_major;
  const std::vector<int64_t>& out = output.layout->minor_to_major;
  if (in.size() != out.size() || out.size() != dimensions.size()) return false;
  // Output dimension d is operand dimension dimensions[d]; the physical
  // order is the same when each minor-to-major position names the same
  // operand dimension.
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t d = out[i];
    if (d < 0 || d >= static_cast<int64_t>(dimensions.size()) || dimensions[d] != in[i]) {
      return false;
    }
  }
  return true;
}

HloCostAnalysis::HloCostAnalysis(const ir::Module& module)
    : module_(module),
      costs_(module.instruction_count()),
      done_(module.instruction_count(), 0),
      users_(module.instruction_count()),
      computation_costs_(module.computations().size()),
      computation_done_(module.computations().size(), 0) {
  for (const Instruction& i : module.instructions()) {
    for (InstructionId operand : i.operands) {
      if (!module.contains(operand)) continue;
      std::vector<InstructionId>& users = users_[operand.value()];
      if (users.empty() || users.back() != i.id) users.push_back(i.id);
    }
  }
  for (std::vector<InstructionId>& users : users_) {
    std::sort(users.begin(), users.end());
    users.erase(std::unique(users.begin(), users.end()), users.end());
  }
  // Called computations first (deepest first), so that recursion stays
  // shallow: each computation's cost is memoized before its callers need it.
  std::vector<int> depth(module.computations().size(), 0);
  for (int round = 0; round < kMaxCallDepth; ++round) {
    bool changed = false;
    for (const Instruction& i : module.instructions()) {
      if (!module.contains(i.computation)) continue;
      for (const ir::CalledComputation& call : i.calls) {
        if (!module.contains(call.computation)) continue;
        const int want = depth[i.computation.value()] + 1;
        if (depth[call.computation.value()] < want) {
          depth[call.computation.value()] = want;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  std::vector<ir::ComputationId> order;
  for (const ir::Computation& c : module.computations()) order.push_back(c.id);
  std::stable_sort(order.begin(), order.end(), [&](ir::ComputationId a, ir::ComputationId b) {
    return depth[a.value()] > depth[b.value()];
  });
  for (ir::ComputationId c : order) CalledCost(c);
  for (const Instruction& i : module.instructions()) Memo(i.id);
}

HloCost& HloCostAnalysis::Memo(InstructionId id) {
  if (!done_[id.value()]) {
    done_[id.value()] = 1;  // set first: a malformed cycle reads zeros, not recursion
    costs_[id.value()] = Compute(module_.instruction(id));
  }
  return costs_[id.value()];
}

HloCost HloCostAnalysis::CalledCost(ir::ComputationId computation) {
  if (!module_.contains(computation)) {
    HloCost unknown;
    unknown.unknown = 1;
    return unknown;
  }
  if (computation_done_[computation.value()]) return computation_costs_[computation.value()];
  computation_done_[computation.value()] = 1;
  HloCost sum;
  for (InstructionId id : module_.computation(computation).instructions) {
    if (!module_.contains(id)) continue;
    const HloCost& c = Memo(id);
    sum.flops += c.flops;
    sum.transcendentals += c.transcendentals;
    sum.bytes_accessed += c.bytes_accessed;
    sum.unknown += c.unknown;
    sum.custom_calls += c.custom_calls;
  }
  computation_costs_[computation.value()] = sum;
  return sum;
}

HloCost HloCostAnalysis::ComputationCost(ir::ComputationId computation) const {
  if (!module_.contains(computation)) return {};
  return computation_costs_[computation.value()];
}

HloCost HloCostAnalysis::ModuleCost() const { return ComputationCost(module_.entry); }

double HloCostAnalysis::FusionParameterReadBytes(InstructionId parameter) const {
  const Instruction& hlo = module_.instruction(parameter);
  double size = 0;
  bool seen_trivial_user = false;
  auto trivial = [&] {
    if (!seen_trivial_user) {
      seen_trivial_user = true;
      size += ShapeBytes(hlo.shape);
    }
  };
  for (InstructionId user_id : users_[parameter.value()]) {
    const Instruction& user = module_.instruction(user_id);
    switch (user.opcode) {
      case Opcode::kFusion: {
        const ir::Computation* fused =
            !user.calls.empty() && module_.contains(user.calls[0].computation)
                ? &module_.computation(user.calls[0].computation)
                : nullptr;
        for (size_t k = 0; k < user.operands.size(); ++k) {
          if (user.operands[k] != parameter) continue;
          if (fused != nullptr && k < fused->parameters.size() &&
              module_.contains(fused->parameters[k])) {
            size += FusionParameterReadBytes(fused->parameters[k]);
          }
        }
        break;
      }
      case Opcode::kSlice:
        size += ShapeBytes(user.shape);
        break;
      case Opcode::kDynamicSlice:
        if (!user.operands.empty() && user.operands[0] == parameter) {
          size += ShapeBytes(user.shape);
        } else {
          trivial();
        }
        break;
      case Opcode::kDynamicUpdateSlice:
        if (user.operands.empty() || user.operands[0] != parameter) trivial();
        break;
      case Opcode::kBroadcast:
      case Opcode::kReshape:
        size += ShapeBytes(hlo.shape);
        break;
      default:
        trivial();
    }
  }
  return size;
}

HloCost HloCostAnalysis::FusionCost(const Instruction& fusion) {
  HloCost cost;
  if (fusion.calls.empty() || !module_.contains(fusion.calls[0].computation)) {
    cost.unknown = 1;
    return cost;
  }
  const ir::Computation& fused = module_.computation(fusion.calls[0].computation);
  if (module_.attributes(fusion).fusion_kind == "kCustom") {
    for (InstructionId id : fused.instructions) {
      const Instruction& inner = module_.instruction(id);
      if (inner.opcode == Opcode::kGather || inner.opcode == Opcode::kScatter) return Memo(id);
    }
  }
  const HloCost inside = CalledCost(fused.id);
  cost.flops = inside.flops;
  cost.transcendentals = inside.transcendentals;
  cost.unknown = inside.unknown;
  cost.custom_calls = inside.custom_calls;
  AddFusionOutputBytes(fusion, fused, &cost.bytes_accessed);
  // Constants of more than one element are read from memory.
  for (InstructionId id : fused.instructions) {
    const Instruction& inner = module_.instruction(id);
    if (inner.opcode == Opcode::kConstant && ArrayElements(inner.shape) > 1) {
      cost.bytes_accessed += ShapeBytes(inner.shape);
    }
  }
  // Operands, as the fused parameters read them.
  for (InstructionId parameter : fused.parameters) {
    if (!module_.contains(parameter)) continue;
    if (!module_.instruction(parameter).shape->IsTuple()) {
      cost.bytes_accessed += FusionParameterReadBytes(parameter);
      continue;
    }
    // A tuple parameter: each leaf through the get-tuple-element that reads it.
    for (const std::vector<int64_t>& index : LeafIndices(module_.instruction(parameter).shape)) {
      cost.bytes_accessed += FusionParameterReadBytes(TupleElementReader(parameter, index));
    }
  }
  return cost;
}

double HloCostAnalysis::DynamicUpdateBytes(const Instruction& dus) const {
  return dus.operands.size() > 1 && module_.contains(dus.operands[1])
             ? ShapeBytes(module_.instruction(dus.operands[1]).shape)
             : ShapeBytes(dus.shape);
}

void HloCostAnalysis::AddFusionOutputBytes(const Instruction& fusion,
                                           const ir::Computation& fused, double* bytes) const {
  const Instruction* root = module_.contains(fused.root) ? &module_.instruction(fused.root) : nullptr;
  if (fusion.shape->IsArray()) {
    *bytes += root != nullptr && root->opcode == Opcode::kDynamicUpdateSlice
                  ? DynamicUpdateBytes(*root)
                  : ShapeBytes(fusion.shape);
    return;
  }
  if (!fusion.shape->IsTuple()) return;
  for (size_t k = 0; k < fusion.shape->tuple_elements.size(); ++k) {
    const ir::Shape& element = fusion.shape->tuple_elements[k];
    const Instruction* part =
        root != nullptr && root->opcode == Opcode::kTuple && k < root->operands.size() &&
                module_.contains(root->operands[k])
            ? &module_.instruction(root->operands[k])
            : nullptr;
    if (element.IsArray() && part != nullptr && part->opcode == Opcode::kDynamicUpdateSlice) {
      *bytes += DynamicUpdateBytes(*part);
      continue;
    }
    // Every array below this element.
    std::vector<const ir::Shape*> stack = {&element};
    while (!stack.empty()) {
      const ir::Shape* s = stack.back();
      stack.pop_back();
      if (s->IsArray()) *bytes += ShapeBytes(*s);
      for (const ir::Shape& e : s->tuple_elements) stack.push_back(&e);
    }
  }
}

InstructionId HloCostAnalysis::TupleElementReader(InstructionId parameter,
                                                  const std::vector<int64_t>& index) const {
  InstructionId at = parameter;
  for (int64_t k : index) {
    for (InstructionId user : users_[at.value()]) {
      const Instruction& u = module_.instruction(user);
      if (u.opcode == Opcode::kGetTupleElement && module_.attributes(u).tuple_index == k) {
        at = user;
        break;
      }
    }
  }
  return at;
}

HloCost HloCostAnalysis::Compute(const Instruction& i) {
  absl::InlinedVector<const ir::Shape*, 4> operands;
  for (InstructionId o : i.operands) {
    operands.push_back(module_.contains(o) ? module_.instruction(o).shape.get() : nullptr);
  }
  const ir::HloAttributes& attributes = module_.attributes(i);
  if (std::optional<HloCost> own = OwnCost(i, attributes, operands)) return *own;
  return AppliedCost(i, attributes, operands);
}

HloCost HloCostAnalysis::CalledCost(const Instruction& i, ir::CallRole role) {
  for (const ir::CalledComputation& c : i.calls) {
    if (c.role == role) return CalledCost(c.computation);
  }
  return CalledCost(i.calls.empty() ? ir::ComputationId() : i.calls.front().computation);
}

HloCost HloCostAnalysis::AppliedCost(const Instruction& i, const ir::HloAttributes& attributes,
                                     OperandShapes operands) {
  HloCost cost = DefaultCost(i, operands);
  auto apply = [&cost](const HloCost& sub, double times) {
    cost.flops += sub.flops * times;
    cost.transcendentals += sub.transcendentals * times;
    cost.unknown += sub.unknown;
  };
  auto operand = [&](size_t k) { return k < operands.size() ? operands[k] : nullptr; };
  switch (i.opcode) {
    case Opcode::kReduce: {
      const ir::Shape* input = operand(0);
      const double count = input == nullptr ? 0 : ArrayElements(*input) - ArrayElements(FirstArray(i.shape));
      apply(CalledCost(i, ir::CallRole::kToApply), count);
      return cost;
    }
    case Opcode::kReduceWindow: {
      const HloCost sub = CalledCost(i, ir::CallRole::kToApply);
      if (!attributes.window) {
        cost.unknown = 1;
        return cost;
      }
      apply(sub, ReduceWindowApplications(i, *attributes.window));
      return cost;
    }
    case Opcode::kMap:
      apply(CalledCost(i, ir::CallRole::kToApply), ArrayElements(i.shape));
      return cost;
    case Opcode::kScatter:
      return ScatterCost(i, operands);
    case Opcode::kSelectAndScatter:
      return SelectAndScatterCost(i, attributes, operands);
    case Opcode::kFusion:
      return FusionCost(i);
    case Opcode::kCall:
    case Opcode::kAsyncStart:
      return CalledCost(i.calls.empty() ? ir::ComputationId() : i.calls.front().computation);
    case Opcode::kWhile: {
      const HloCost body = CalledCost(i, ir::CallRole::kWhileBody);
      const HloCost condition = CalledCost(i, ir::CallRole::kWhileCondition);
      cost.flops = body.flops + condition.flops;
      cost.transcendentals = body.transcendentals + condition.transcendentals;
      cost.bytes_accessed = body.bytes_accessed + condition.bytes_accessed;
      cost.unknown = body.unknown + condition.unknown;
      cost.custom_calls = body.custom_calls + condition.custom_calls;
      return cost;
    }
    case Opcode::kConditional:
      return LargerBranchCost(i);
    default:
      return cost;
  }
}

HloCost HloCostAnalysis::ScatterCost(const Instruction& i, OperandShapes operands) {
  // Operands: n inputs, the indices, n updates.
  HloCost cost;
  const size_t n = operands.empty() ? 0 : (operands.size() - 1) / 2;
  double updates = 0;
  for (size_t k = 0; k < n; ++k) {
    if (const ir::Shape* u = operands[n + 1 + k]) updates += ShapeBytes(*u);  // n + 1 + k < size
  }
  const ir::Shape* indices = n < operands.size() ? operands[n] : nullptr;
  cost.bytes_accessed = 3 * updates + (indices != nullptr ? ShapeBytes(*indices) : 0);
  const ir::Shape* first_update = n + 1 < operands.size() ? operands[n + 1] : nullptr;
  const double elements = first_update != nullptr ? ArrayElements(*first_update) : 0;
  const HloCost sub = CalledCost(i, ir::CallRole::kToApply);
  cost.flops = sub.flops * elements;
  cost.transcendentals = sub.transcendentals * elements;
  cost.unknown = sub.unknown;
  return cost;
}

HloCost HloCostAnalysis::SelectAndScatterCost(const Instruction& i,
                                              const ir::HloAttributes& attributes,
                                              OperandShapes operands) {
  HloCost cost = DefaultCost(i, operands);
  const ir::Shape* source = operands.size() > 1 ? operands[1] : nullptr;
  const double source_elements = source != nullptr ? ArrayElements(*source) : 0;
  double window_elements = 1;
  if (attributes.window) {
    for (const ir::WindowDimension& w : attributes.window->dimensions) {
      window_elements *= static_cast<double>(w.size);
    }
  } else {
    cost.unknown = 1;
  }
  const HloCost select = CalledCost(i, ir::CallRole::kSelect);
  const HloCost scatter = CalledCost(i, ir::CallRole::kScatter);
  const double selects = source_elements * (window_elements - 1);
  cost.flops = select.flops * selects + scatter.flops * source_elements;
  cost.transcendentals = select.transcendentals * selects + scatter.transcendentals * source_elements;
  cost.unknown += select.unknown + scatter.unknown;
  return cost;
}

HloCost HloCostAnalysis::LargerBranchCost(const Instruction& i) {
  HloCost max;
  bool first = true;
  for (const ir::CalledComputation& c : i.calls) {
    const HloCost b = CalledCost(c.computation);
    if (first) {
      max = b;
      first = false;
      continue;
    }
    max.flops = std::max(max.flops, b.flops);
    max.transcendentals = std::max(max.transcendentals, b.transcendentals);
    max.bytes_accessed = std::max(max.bytes_accessed, b.bytes_accessed);
    max.unknown += b.unknown;
    max.custom_calls += b.custom_calls;
  }
  return max;
}

}  // namespace memplan::simulator
