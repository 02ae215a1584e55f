#include "simulator/library_call.h"

#include "simulator/hlo_cost.h"
#include "simulator/library_conv.h"
#include "simulator/library_gemm.h"

namespace memplan::simulator {

const ir::Shape& LibraryCallResult(const ir::Instruction& call) {
  if (call.shape->dtype != ir::DType::kTuple || call.shape->tuple_elements.empty()) return call.shape;
  return call.shape->tuple_elements[0];
}

double LibraryCallBytes(const ir::Module& module, const ir::Instruction& call) {
  double bytes = ShapeBytes(LibraryCallResult(call));
  for (ir::InstructionId operand : call.operands) bytes += ShapeBytes(module.instruction(operand).shape);
  return bytes;
}

std::optional<LibraryCall> LibraryCallCost(const ir::Module& module, const ir::Instruction& instruction) {
  if (std::optional<LibraryCall> gemm = CublasGemm(module, instruction)) return gemm;
  return CudnnConvolution(module, instruction);
}

}  // namespace memplan::simulator
