#include "simulator/library_conv.h"

#include <string_view>

#include "simulator/hlo_cost.h"
#include "simulator/hlo_op_cost.h"

namespace memplan::simulator {
namespace {

enum class ConvKind { kForward, kBackwardInput, kBackwardFilter };

std::optional<ConvKind> KindOf(std::string_view target) {
  if (target == "__cudnn$convForward" || target == "__cudnn$convBiasActivationForward") {
    return ConvKind::kForward;
  }
  if (target == "__cudnn$convBackwardInput") return ConvKind::kBackwardInput;
  if (target == "__cudnn$convBackwardFilter") return ConvKind::kBackwardFilter;
  return std::nullopt;
}

bool IsArray(const ir::Shape& shape) {
  return shape.dtype != ir::DType::kTuple && shape.dtype != ir::DType::kToken;
}

}  // namespace

std::optional<LibraryCall> CudnnConvolution(const ir::Module& module,
                                                   const ir::Instruction& i) {
  if (i.opcode != ir::Opcode::kCustomCall || i.operands.size() < 2) return std::nullopt;
  const ir::HloAttributes& attributes = module.attributes(i);
  const std::optional<ConvKind> kind = KindOf(attributes.custom_call_target);
  if (!kind || !attributes.convolution) return std::nullopt;
  const ir::Shape& operand0 = module.instruction(i.operands[0]).shape;
  const ir::Shape& operand1 = module.instruction(i.operands[1]).shape;
  const ir::Shape& result = LibraryCallResult(i);
  if (!IsArray(operand0) || !IsArray(operand1) || !IsArray(result)) return std::nullopt;
  LibraryCall out;
  switch (*kind) {
    case ConvKind::kForward:
      out.flops = ConvolutionFlops(attributes, operand0, operand1, result);
      break;
    case ConvKind::kBackwardInput:
      out.flops = ConvolutionFlops(attributes, result, operand1, operand0);
      break;
    case ConvKind::kBackwardFilter:
      out.flops = ConvolutionFlops(attributes, operand0, result, operand1);
      break;
  }
  out.operand_dtype = operand0.dtype;
  out.bytes_accessed = LibraryCallBytes(module, i);
  return out;
}

}  // namespace memplan::simulator
