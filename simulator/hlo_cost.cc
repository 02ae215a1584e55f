#include "simulator/hlo_cost.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "ir/convolution.h"

namespace memplan::simulator {
namespace {

using ir::Instruction;
using ir::InstructionId;
using ir::Opcode;

constexpr int kMaxCallDepth = 256;

double Elements(const ir::Shape& shape) {
  return shape.IsArray() ? static_cast<double>(shape.ElementCount()) : 0.0;
}

// The first array of a shape: the array itself, or a tuple's first element
// (variadic reduce and reduce-window).
const ir::Shape& FirstArray(const ir::Shape& shape) {
  return shape.IsTuple() && !shape.tuple_elements.empty() ? shape.tuple_elements.front() : shape;
}

bool IsTranscendental(Opcode op) {
  switch (op) {
    case Opcode::kExp:
    case Opcode::kLog:
    case Opcode::kLogistic:
    case Opcode::kPower:
    case Opcode::kSqrt:
    case Opcode::kCbrt:
    case Opcode::kRsqrt:
    case Opcode::kTanh:
    case Opcode::kSin:
    case Opcode::kCos:
    case Opcode::kTan:
    case Opcode::kExpm1:
    case Opcode::kLog1p:
    case Opcode::kAtan2:
    case Opcode::kErf:
      return true;
    default:
      return false;
  }
}

// Opcodes XLA's visitor sends to HandleElementwiseOp.
bool IsElementwise(Opcode op) {
  switch (op) {
    case Opcode::kAbs: case Opcode::kAcos: case Opcode::kAcosh: case Opcode::kAsin:
    case Opcode::kAsinh: case Opcode::kAtan: case Opcode::kAtanh: case Opcode::kCeil:
    case Opcode::kClz: case Opcode::kCos: case Opcode::kCosh: case Opcode::kErf:
    case Opcode::kExp: case Opcode::kExpm1: case Opcode::kFloor: case Opcode::kImag:
    case Opcode::kIsFinite: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kLogistic:
    case Opcode::kNot: case Opcode::kNegate: case Opcode::kPopulationCount: case Opcode::kReal:
    case Opcode::kRoundNearestAfz: case Opcode::kRoundNearestEven: case Opcode::kRsqrt:
    case Opcode::kSign: case Opcode::kSin: case Opcode::kSinh: case Opcode::kSqrt:
    case Opcode::kCbrt: case Opcode::kTan: case Opcode::kTanh: case Opcode::kBitcastConvert:
    case Opcode::kAdd: case Opcode::kAtan2: case Opcode::kComplex: case Opcode::kDivide:
    case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kMultiply: case Opcode::kPower:
    case Opcode::kRemainder: case Opcode::kSubtract: case Opcode::kAnd: case Opcode::kOr:
    case Opcode::kXor: case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kMulhi: case Opcode::kCompare:
    case Opcode::kClamp: case Opcode::kSelect: case Opcode::kConvert:
    case Opcode::kReducePrecision: case Opcode::kStochasticConvert:
      return true;
    default:
      return false;
  }
}

// ceil(log2(n)) for n >= 1.
double Log2Ceiling(double n) {
  if (n <= 1) return 0;
  return static_cast<double>(std::bit_width(static_cast<uint64_t>(n) - 1));
}

int64_t Dim(const ir::Shape& shape, int64_t d) {
  return d >= 0 && d < static_cast<int64_t>(shape.dims.size()) ? shape.dims[d] : 1;
}

}  // namespace

double ShapeBytes(const ir::Shape& shape) { return static_cast<double>(ir::ByteSizeOf(shape, 8)); }

bool TransposeIsBitcast(const ir::Shape& operand, const ir::Shape& output,
                        const std::vector<int64_t>& dimensions) {
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
  const ir::HloAttributes& attributes = module_.attributes(fusion);
  if (attributes.fusion_kind == "kCustom") {
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
  // Outputs: a dynamic-update-slice root writes only its update.
  const Instruction* root = module_.contains(fused.root) ? &module_.instruction(fused.root) : nullptr;
  auto update_bytes = [&](const Instruction& dus) {
    return dus.operands.size() > 1 && module_.contains(dus.operands[1])
               ? ShapeBytes(module_.instruction(dus.operands[1]).shape)
               : ShapeBytes(dus.shape);
  };
  if (fusion.shape.IsArray()) {
    cost.bytes_accessed += root != nullptr && root->opcode == Opcode::kDynamicUpdateSlice
                               ? update_bytes(*root)
                               : ShapeBytes(fusion.shape);
  } else if (fusion.shape.IsTuple()) {
    for (size_t k = 0; k < fusion.shape.tuple_elements.size(); ++k) {
      const ir::Shape& element = fusion.shape.tuple_elements[k];
      const Instruction* part =
          root != nullptr && root->opcode == Opcode::kTuple && k < root->operands.size() &&
                  module_.contains(root->operands[k])
              ? &module_.instruction(root->operands[k])
              : nullptr;
      if (element.IsArray() && part != nullptr && part->opcode == Opcode::kDynamicUpdateSlice) {
        cost.bytes_accessed += update_bytes(*part);
        continue;
      }
      // Every array below this element.
      std::vector<const ir::Shape*> stack = {&element};
      while (!stack.empty()) {
        const ir::Shape* s = stack.back();
        stack.pop_back();
        if (s->IsArray()) cost.bytes_accessed += ShapeBytes(*s);
        for (const ir::Shape& e : s->tuple_elements) stack.push_back(&e);
      }
    }
  }
  // Constants of more than one element are read from memory.
  for (InstructionId id : fused.instructions) {
    const Instruction& inner = module_.instruction(id);
    if (inner.opcode == Opcode::kConstant && Elements(inner.shape) > 1) {
      cost.bytes_accessed += ShapeBytes(inner.shape);
    }
  }
  // Operands, as the fused parameters read them.
  for (InstructionId parameter : fused.parameters) {
    if (!module_.contains(parameter)) continue;
    const Instruction& p = module_.instruction(parameter);
    if (!p.shape.IsTuple()) {
      cost.bytes_accessed += FusionParameterReadBytes(parameter);
      continue;
    }
    // A tuple parameter: each leaf through the get-tuple-element that reads it.
    std::vector<std::pair<const ir::Shape*, std::vector<int64_t>>> leaves;
    std::vector<std::pair<const ir::Shape*, std::vector<int64_t>>> stack = {{&p.shape, {}}};
    while (!stack.empty()) {
      auto [s, index] = stack.back();
      stack.pop_back();
      if (!s->IsTuple()) {
        leaves.push_back({s, index});
        continue;
      }
      for (size_t k = s->tuple_elements.size(); k-- > 0;) {
        std::vector<int64_t> child = index;
        child.push_back(static_cast<int64_t>(k));
        stack.push_back({&s->tuple_elements[k], child});
      }
    }
    for (const auto& [leaf, index] : leaves) {
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
      cost.bytes_accessed += FusionParameterReadBytes(at);
    }
  }
  return cost;
}

HloCost HloCostAnalysis::Compute(const Instruction& i) {
  HloCost cost;
  const ir::HloAttributes& attributes = module_.attributes(i);
  auto operand = [&](size_t k) -> const Instruction* {
    return k < i.operands.size() && module_.contains(i.operands[k])
               ? &module_.instruction(i.operands[k])
               : nullptr;
  };
  auto called = [&](ir::CallRole role) -> std::optional<ir::ComputationId> {
    for (const ir::CalledComputation& c : i.calls) {
      if (c.role == role) return c.computation;
    }
    return i.calls.empty() ? std::nullopt : std::optional(i.calls.front().computation);
  };
  // XLA's default: output plus every operand.
  cost.bytes_accessed = ShapeBytes(i.shape);
  for (size_t k = 0; k < i.operands.size(); ++k) {
    if (const Instruction* o = operand(k)) cost.bytes_accessed += ShapeBytes(o->shape);
  }
  const double output_elements = Elements(i.shape);

  if (IsElementwise(i.opcode)) {
    (IsTranscendental(i.opcode) ? cost.transcendentals : cost.flops) = output_elements;
    return cost;
  }
  switch (i.opcode) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kDomain:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
      cost.bytes_accessed = 0;
      return cost;
    case Opcode::kTuple:
      cost.bytes_accessed = ShapeBytes(i.shape);
      return cost;
    case Opcode::kSlice:
      cost.bytes_accessed = 2 * ShapeBytes(i.shape);
      return cost;
    case Opcode::kDynamicSlice:
      cost.bytes_accessed =
          2 * ShapeBytes(i.shape) + (operand(1) != nullptr ? ShapeBytes(operand(1)->shape) : 0);
      return cost;
    case Opcode::kDynamicUpdateSlice: {
      const double update = operand(1) != nullptr ? ShapeBytes(operand(1)->shape) : 0;
      cost.bytes_accessed = 2 * update + (operand(2) != nullptr ? ShapeBytes(operand(2)->shape) : 0);
      return cost;
    }
    case Opcode::kGather:
      cost.bytes_accessed =
          2 * ShapeBytes(i.shape) + (operand(1) != nullptr ? ShapeBytes(operand(1)->shape) : 0);
      return cost;
    case Opcode::kTranspose:
      if (const Instruction* o = operand(0);
          o != nullptr && TransposeIsBitcast(o->shape, i.shape, attributes.dimensions)) {
        cost.bytes_accessed = 0;
      }
      return cost;
    case Opcode::kDot: {
      const Instruction* lhs = operand(0);
      if (!attributes.dot || lhs == nullptr) {
        cost.unknown = 1;
        return cost;
      }
      double width = 1;
      for (int64_t d : attributes.dot->lhs_contracting) width *= static_cast<double>(Dim(lhs->shape, d));
      cost.flops = 2 * output_elements * width;
      return cost;
    }
    case Opcode::kConvolution: {
      const Instruction* lhs = operand(0);
      const Instruction* rhs = operand(1);
      if (!attributes.convolution || lhs == nullptr || rhs == nullptr) {
        cost.unknown = 1;
        return cost;
      }
      const ir::ConvolutionDimensionNumbers& d = *attributes.convolution;
      const std::vector<ir::WindowDimension> window =
          attributes.window ? attributes.window->dimensions : std::vector<ir::WindowDimension>();
      double positions = 1;
      for (size_t s = 0; s < window.size(); ++s) {
        const int64_t input = s < d.input_spatial.size() ? Dim(lhs->shape, d.input_spatial[s]) : 1;
        const int64_t kernel = s < d.kernel_spatial.size() ? Dim(rhs->shape, d.kernel_spatial[s]) : 1;
        const int64_t output = s < d.output_spatial.size() ? Dim(i.shape, d.output_spatial[s]) : 1;
        positions *= static_cast<double>(ir::ConvolutionValidPositions(input, kernel, output, window[s]));
      }
      const double fmas =
          static_cast<double>(Dim(lhs->shape, d.input_feature) /
                              std::max<int64_t>(1, attributes.feature_group_count)) *
          static_cast<double>(Dim(i.shape, d.output_feature)) *
          static_cast<double>(Dim(lhs->shape, d.input_batch) /
                              std::max<int64_t>(1, attributes.batch_group_count)) *
          positions;
      cost.flops = 2 * fmas;
      return cost;
    }
    case Opcode::kReduce: {
      const Instruction* input = operand(0);
      const HloCost sub = CalledCost(called(ir::CallRole::kToApply).value_or(ir::ComputationId()));
      const double count =
          input == nullptr ? 0 : Elements(input->shape) - Elements(FirstArray(i.shape));
      cost.flops = sub.flops * count;
      cost.transcendentals = sub.transcendentals * count;
      cost.unknown = sub.unknown;
      return cost;
    }
    case Opcode::kReduceWindow: {
      const HloCost sub = CalledCost(called(ir::CallRole::kToApply).value_or(ir::ComputationId()));
      if (!attributes.window) {
        cost.unknown = 1;
        return cost;
      }
      const std::vector<ir::WindowDimension>& dims = attributes.window->dimensions;
      double window_elements = 1;
      for (const ir::WindowDimension& w : dims) window_elements *= static_cast<double>(w.size);
      const ir::Shape& out = FirstArray(i.shape);
      const double out_elements = Elements(out);
      double count = (window_elements - 1) * out_elements;
      // A reduce broadcast back over one padded dimension (XLA's special case).
      int reduced = 0, padded = 0;
      for (const ir::WindowDimension& w : dims) {
        reduced += w.size != 1;
        padded += w.padding_low != 0 || w.padding_high != 0;
      }
      if (reduced == 1 && padded == 1 && i.shape.IsArray()) {
        for (size_t k = 0; k < dims.size(); ++k) {
          const ir::WindowDimension& w = dims[k];
          if (w.size != 1 && w.padding_low != 0 && w.padding_high != 0 &&
              w.padding_low == w.padding_high && w.size == 2 * w.padding_low + 1) {
            if (w.padding_low == Dim(i.shape, static_cast<int64_t>(k)) - 1) {
              const double span = static_cast<double>(Dim(i.shape, static_cast<int64_t>(k)));
              count = out_elements / span + (span - 1);
            }
            break;
          }
        }
      }
      cost.flops = sub.flops * count;
      cost.transcendentals = sub.transcendentals * count;
      cost.unknown = sub.unknown;
      return cost;
    }
    case Opcode::kMap: {
      const HloCost sub = CalledCost(called(ir::CallRole::kToApply).value_or(ir::ComputationId()));
      cost.flops = sub.flops * output_elements;
      cost.transcendentals = sub.transcendentals * output_elements;
      cost.unknown = sub.unknown;
      return cost;
    }
    case Opcode::kScatter: {
      // Operands: n inputs, the indices, n updates.
      const size_t n = (i.operands.size() - 1) / 2;
      double updates = 0;
      for (size_t k = 0; k < n; ++k) {
        if (const Instruction* u = operand(n + 1 + k)) updates += ShapeBytes(u->shape);
      }
      const Instruction* indices = operand(n);
      cost.bytes_accessed = 3 * updates + (indices != nullptr ? ShapeBytes(indices->shape) : 0);
      const Instruction* first_update = operand(n + 1);
      const double elements = first_update != nullptr ? Elements(first_update->shape) : 0;
      const HloCost sub = CalledCost(called(ir::CallRole::kToApply).value_or(ir::ComputationId()));
      cost.flops = sub.flops * elements;
      cost.transcendentals = sub.transcendentals * elements;
      cost.unknown = sub.unknown;
      return cost;
    }
    case Opcode::kSelectAndScatter: {
      const Instruction* source = operand(1);
      const double source_elements = source != nullptr ? Elements(source->shape) : 0;
      double window_elements = 1;
      if (attributes.window) {
        for (const ir::WindowDimension& w : attributes.window->dimensions) {
          window_elements *= static_cast<double>(w.size);
        }
      } else {
        cost.unknown = 1;
      }
      const HloCost select = CalledCost(called(ir::CallRole::kSelect).value_or(ir::ComputationId()));
      const HloCost scatter =
          CalledCost(called(ir::CallRole::kScatter).value_or(ir::ComputationId()));
      const double selects = source_elements * (window_elements - 1);
      cost.flops = select.flops * selects + scatter.flops * source_elements;
      cost.transcendentals =
          select.transcendentals * selects + scatter.transcendentals * source_elements;
      cost.unknown += select.unknown + scatter.unknown;
      return cost;
    }
    case Opcode::kSort: {
      const Instruction* first = operand(0);
      const double n = first != nullptr ? Elements(first->shape) : 0;
      cost.flops = n * Log2Ceiling(n);
      return cost;
    }
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart: {
      // XLA assumes two replicas: one add per output element.
      double flops = 0, output = 0;
      std::vector<const ir::Shape*> stack = {&i.shape};
      while (!stack.empty()) {
        const ir::Shape* s = stack.back();
        stack.pop_back();
        if (s->IsArray()) {
          flops += Elements(*s);
          output += ShapeBytes(*s);
        }
        for (const ir::Shape& e : s->tuple_elements) stack.push_back(&e);
      }
      cost.flops = flops;
      cost.bytes_accessed = output;
      for (size_t k = 0; k < i.operands.size(); ++k) {
        if (const Instruction* o = operand(k)) cost.bytes_accessed += ShapeBytes(o->shape);
      }
      return cost;
    }
    case Opcode::kRng:
      cost.transcendentals = output_elements;
      return cost;
    case Opcode::kRngBitGenerator: {
      double leaves = 0;
      std::vector<const ir::Shape*> stack = {&i.shape};
      while (!stack.empty()) {
        const ir::Shape* s = stack.back();
        stack.pop_back();
        if (s->IsArray()) leaves += Elements(*s);
        for (const ir::Shape& e : s->tuple_elements) stack.push_back(&e);
      }
      cost.transcendentals = leaves;
      return cost;
    }
    case Opcode::kFft: {
      const Instruction* input = operand(0);
      if (input == nullptr) return cost;
      // fft_length is not modelled: the operand's minor dimensions stand in.
      cost.unknown = 1;
      return cost;
    }
    case Opcode::kTriangularSolve: {
      const Instruction* a = operand(0);
      const Instruction* b = operand(1);
      if (a == nullptr || b == nullptr) return cost;
      cost.bytes_accessed = ShapeBytes(i.shape) + ShapeBytes(a->shape) / 2 + ShapeBytes(b->shape);
      const int64_t last = a->shape.dims.empty() ? 1 : a->shape.dims.back();
      cost.flops = 2 * static_cast<double>(last) * Elements(b->shape);
      return cost;
    }
    case Opcode::kCholesky: {
      const Instruction* a = operand(0);
      if (a == nullptr) return cost;
      cost.bytes_accessed = ShapeBytes(a->shape);  // half read, half written
      const int64_t last = a->shape.dims.empty() ? 1 : a->shape.dims.back();
      cost.flops = std::floor(static_cast<double>(last) * Elements(a->shape) / 3);
      return cost;
    }
    case Opcode::kFusion:
      return FusionCost(i);
    case Opcode::kCall:
    case Opcode::kAsyncStart:
      return CalledCost(i.calls.empty() ? ir::ComputationId() : i.calls.front().computation);
    case Opcode::kWhile: {
      const HloCost body = CalledCost(called(ir::CallRole::kWhileBody).value_or(ir::ComputationId()));
      const HloCost condition =
          CalledCost(called(ir::CallRole::kWhileCondition).value_or(ir::ComputationId()));
      cost.flops = body.flops + condition.flops;
      cost.transcendentals = body.transcendentals + condition.transcendentals;
      cost.bytes_accessed = body.bytes_accessed + condition.bytes_accessed;
      cost.unknown = body.unknown + condition.unknown;
      cost.custom_calls = body.custom_calls + condition.custom_calls;
      return cost;
    }
    case Opcode::kConditional: {
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
    case Opcode::kCustomCall:
      cost.bytes_accessed = 0;
      cost.custom_calls = 1;
      return cost;
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot:
    case Opcode::kUnknown:
      cost.unknown = 1;
      return cost;
    default:
      // Copies, broadcasts, reshapes, concatenates, pads, iotas, collectives
      // other than all-reduce, sends and receives: XLA's default bytes, no
      // flops.
      return cost;
  }
}

}  // namespace memplan::simulator
