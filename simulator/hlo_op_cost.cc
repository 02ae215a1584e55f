#include "simulator/hlo_op_cost.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "ir/convolution.h"
#include "ir/opcode_classes.h"

namespace memplan::simulator {
namespace {

using ir::Instruction;
using ir::Opcode;

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

// ceil(log2(n)) for n >= 1.
double Log2Ceiling(double n) {
  if (n <= 1) return 0;
  return static_cast<double>(std::bit_width(static_cast<uint64_t>(n) - 1));
}

int64_t Dim(const ir::Shape& shape, int64_t d) {
  return d >= 0 && d < static_cast<int64_t>(shape.dims.size()) ? shape.dims[d] : 1;
}

const ir::Shape* Operand(OperandShapes operands, size_t k) {
  return k < operands.size() ? operands[k] : nullptr;
}

double BytesOf(const ir::Shape* shape) { return shape != nullptr ? ShapeBytes(*shape) : 0; }

// Elements and bytes over every array leaf of a (tuple) shape.
struct Leaves {
  double elements = 0;
  double bytes = 0;
};
Leaves ArrayLeaves(const ir::Shape& shape) {
  Leaves out;
  std::vector<const ir::Shape*> stack = {&shape};
  while (!stack.empty()) {
    const ir::Shape* s = stack.back();
    stack.pop_back();
    if (s->IsArray()) {
      out.elements += ArrayElements(*s);
      out.bytes += ShapeBytes(*s);
    }
    for (const ir::Shape& e : s->tuple_elements) stack.push_back(&e);
  }
  return out;
}

// Instructions XLA counts as moving fewer bytes than operands + output;
// nullopt for other opcodes.
std::optional<double> MovedBytes(const Instruction& i, const ir::HloAttributes& attributes,
                                 OperandShapes operands) {
  switch (i.opcode) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kDomain:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kCustomCall:
      return 0.0;
    case Opcode::kTuple:
      return ShapeBytes(i.shape);
    case Opcode::kSlice:
      return 2 * ShapeBytes(i.shape);
    case Opcode::kDynamicSlice:
    case Opcode::kGather:
      return 2 * ShapeBytes(i.shape) + BytesOf(Operand(operands, 1));
    case Opcode::kDynamicUpdateSlice:
      return 2 * BytesOf(Operand(operands, 1)) + BytesOf(Operand(operands, 2));
    case Opcode::kTranspose: {
      const ir::Shape* o = Operand(operands, 0);
      if (o != nullptr && TransposeIsBitcast(*o, i.shape, attributes.dimensions)) return 0.0;
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

double DotFlops(const Instruction& i, const ir::HloAttributes& attributes, const ir::Shape& lhs) {
  double width = 1;
  for (int64_t d : attributes.dot->lhs_contracting) width *= static_cast<double>(Dim(lhs, d));
  return 2 * ArrayElements(i.shape) * width;
}

}  // namespace

double ConvolutionFlops(const ir::HloAttributes& attributes, const ir::Shape& input,
                        const ir::Shape& kernel, const ir::Shape& output) {
  const ir::ConvolutionDimensionNumbers& d = *attributes.convolution;
  const std::vector<ir::WindowDimension> window =
      attributes.window ? attributes.window->dimensions : std::vector<ir::WindowDimension>();
  double positions = 1;
  for (size_t s = 0; s < window.size(); ++s) {
    const int64_t in = s < d.input_spatial.size() ? Dim(input, d.input_spatial[s]) : 1;
    const int64_t k = s < d.kernel_spatial.size() ? Dim(kernel, d.kernel_spatial[s]) : 1;
    const int64_t out = s < d.output_spatial.size() ? Dim(output, d.output_spatial[s]) : 1;
    positions *= static_cast<double>(ir::ConvolutionValidPositions(in, k, out, window[s]));
  }
  const double fmas =
      static_cast<double>(Dim(input, d.input_feature) /
                          std::max<int64_t>(1, attributes.feature_group_count)) *
      static_cast<double>(Dim(output, d.output_feature)) *
      static_cast<double>(Dim(input, d.input_batch) /
                          std::max<int64_t>(1, attributes.batch_group_count)) *
      positions;
  return 2 * fmas;
}

namespace {

// Dot, convolution, sort, all-reduce, random numbers and linear algebra:
// writes `cost` and returns true, or returns false for other opcodes.
bool ArithmeticCost(const Instruction& i, const ir::HloAttributes& attributes,
                    OperandShapes operands, HloCost& cost) {
  const ir::Shape* a = Operand(operands, 0);
  const ir::Shape* b = Operand(operands, 1);
  switch (i.opcode) {
    case Opcode::kDot:
      if (!attributes.dot || a == nullptr) {
        cost.unknown = 1;
      } else {
        cost.flops = DotFlops(i, attributes, *a);
      }
      return true;
    case Opcode::kConvolution:
      if (!attributes.convolution || a == nullptr || b == nullptr) {
        cost.unknown = 1;
      } else {
        cost.flops = ConvolutionFlops(attributes, *a, *b, i.shape);
      }
      return true;
    case Opcode::kSort: {
      const double n = a != nullptr ? ArrayElements(*a) : 0;
      cost.flops = n * Log2Ceiling(n);
      return true;
    }
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart: {
      // XLA assumes two replicas: one add per output element.
      const Leaves out = ArrayLeaves(i.shape);
      cost.flops = out.elements;
      cost.bytes_accessed = out.bytes;
      for (const ir::Shape* o : operands) cost.bytes_accessed += BytesOf(o);
      return true;
    }
    case Opcode::kRng:
      cost.transcendentals = ArrayElements(i.shape);
      return true;
    case Opcode::kRngBitGenerator:
      cost.transcendentals = ArrayLeaves(i.shape).elements;
      return true;
    case Opcode::kFft:
      // fft_length is not modelled: its flops are unknown.
      if (a != nullptr) cost.unknown = 1;
      return true;
    case Opcode::kTriangularSolve:
      if (a == nullptr || b == nullptr) return true;
      cost.bytes_accessed = ShapeBytes(i.shape) + ShapeBytes(*a) / 2 + ShapeBytes(*b);
      cost.flops = 2 * static_cast<double>(a->dims.empty() ? 1 : a->dims.back()) * ArrayElements(*b);
      return true;
    case Opcode::kCholesky:
      if (a == nullptr) return true;
      cost.bytes_accessed = ShapeBytes(*a);  // half read, half written
      cost.flops = std::floor(static_cast<double>(a->dims.empty() ? 1 : a->dims.back()) *
                              ArrayElements(*a) / 3);
      return true;
    default:
      return false;
  }
}

bool CallsComputation(Opcode op) {
  switch (op) {
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
    case Opcode::kMap:
    case Opcode::kScatter:
    case Opcode::kSelectAndScatter:
    case Opcode::kFusion:
    case Opcode::kCall:
    case Opcode::kAsyncStart:
    case Opcode::kWhile:
    case Opcode::kConditional:
      return true;
    default:
      return false;
  }
}

}  // namespace

double ArrayElements(const ir::Shape& shape) {
  return shape.IsArray() ? static_cast<double>(shape.ElementCount()) : 0.0;
}

const ir::Shape& FirstArray(const ir::Shape& shape) {
  return shape.IsTuple() && !shape.tuple_elements.empty() ? shape.tuple_elements.front() : shape;
}

HloCost DefaultCost(const Instruction& i, OperandShapes operands) {
  HloCost cost;
  cost.bytes_accessed = ShapeBytes(i.shape);
  for (const ir::Shape* o : operands) cost.bytes_accessed += BytesOf(o);
  return cost;
}

std::optional<HloCost> OwnCost(const Instruction& i, const ir::HloAttributes& attributes,
                               OperandShapes operands) {
  HloCost cost = DefaultCost(i, operands);
  if (ir::IsElementwiseOpcode(i.opcode)) {
    (IsTranscendental(i.opcode) ? cost.transcendentals : cost.flops) = ArrayElements(i.shape);
    return cost;
  }
  if (CallsComputation(i.opcode)) return std::nullopt;
  if (std::optional<double> moved = MovedBytes(i, attributes, operands)) {
    cost.bytes_accessed = *moved;
  }
  if (i.opcode == Opcode::kCustomCall) cost.custom_calls = 1;
  if (i.opcode == Opcode::kRaggedDot || i.opcode == Opcode::kScaledDot ||
      i.opcode == Opcode::kUnknown) {
    cost.unknown = 1;
  }
  // Copies, broadcasts, reshapes, concatenates, pads, iotas, collectives
  // other than all-reduce, sends and receives keep XLA's default bytes and
  // no flops.
  ArithmeticCost(i, attributes, operands, cost);
  return cost;
}

double ReduceWindowApplications(const Instruction& i, const ir::Window& window) {
  const std::vector<ir::WindowDimension>& dims = window.dimensions;
  double window_elements = 1;
  for (const ir::WindowDimension& w : dims) window_elements *= static_cast<double>(w.size);
  const double out_elements = ArrayElements(FirstArray(i.shape));
  // A reduce broadcast back over one padded dimension (XLA's special case).
  int reduced = 0, padded = 0;
  for (const ir::WindowDimension& w : dims) {
    reduced += w.size != 1;
    padded += w.padding_low != 0 || w.padding_high != 0;
  }
  if (reduced != 1 || padded != 1 || !i.shape->IsArray()) return (window_elements - 1) * out_elements;
  for (size_t k = 0; k < dims.size(); ++k) {
    const ir::WindowDimension& w = dims[k];
    if (w.size != 1 && w.padding_low != 0 && w.padding_high != 0 &&
        w.padding_low == w.padding_high && w.size == 2 * w.padding_low + 1) {
      const int64_t span = Dim(i.shape, static_cast<int64_t>(k));
      if (w.padding_low == span - 1) {
        return out_elements / static_cast<double>(span) + static_cast<double>(span - 1);
      }
      break;
    }
  }
  return (window_elements - 1) * out_elements;
}

}  // namespace memplan::simulator
