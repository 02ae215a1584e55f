// Custom-calls into NVIDIA's libraries that XLA's GPU backend emits for dots
// (cuBLAS: simulator/library_gemm.h) and convolutions (cuDNN:
// simulator/library_conv.h). XLA's cost_analysis() counts each as 0 FLOPs
// (so does simulator/hlo_cost.h, to match it); the time model counts what
// the call computes.
#ifndef MEMPLAN_SIMULATOR_LIBRARY_CALL_H_
#define MEMPLAN_SIMULATOR_LIBRARY_CALL_H_

#include <optional>

#include "ir/module.h"

namespace memplan::simulator {

struct LibraryCall {
  double flops = 0;           // of the dot or convolution it computes
  double bytes_accessed = 0;  // operands + result (not the workspace or scratch)
  ir::DType operand_dtype = ir::DType::kF32;  // of operand 0: the rate it runs at
};

// The call's result: its shape, or the first element of a (result,
// workspace) tuple.
const ir::Shape& LibraryCallResult(const ir::Instruction& call);

// The bytes a library call reads and writes: its operands and LibraryCallResult.
double LibraryCallBytes(const ir::Module& module, const ir::Instruction& call);

// The cuBLAS GEMM or cuDNN convolution `instruction` computes; nullopt for
// anything else.
std::optional<LibraryCall> LibraryCallCost(const ir::Module& module, const ir::Instruction& instruction);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_LIBRARY_CALL_H_
