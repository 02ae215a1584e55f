// Convolutions that XLA's GPU backend hands to cuDNN: a custom-call whose
// target is "__cudnn$convForward", "__cudnn$convBiasActivationForward",
// "__cudnn$convBackwardInput" or "__cudnn$convBackwardFilter", returning
// (result, u8 scratch). Its window, dim_labels and feature_group_count
// describe the forward convolution (input, kernel) -> output, whose three
// arrays XLA's GPU conv runner reads off the call as:
//   forward (and bias-activation): input = operand 0, kernel = operand 1,
//                                  output = result;
//   backward input:  input = result, kernel = operand 1, output = operand 0;
//   backward filter: input = operand 0, kernel = result, output = operand 1.
// Each backward pass makes the same multiply-adds as its forward
// convolution (one per output position and kernel tap that lands on the
// input), paired differently, so all three count the forward
// convolution's FLOPs by XLA's rule (simulator/hlo_op_cost.h). XLA's
// cost_analysis() counts such a custom-call as 0 FLOPs (so does
// simulator/hlo_cost.h, to match it); the time model counts the
// convolution.
#ifndef MEMPLAN_SIMULATOR_LIBRARY_CONV_H_
#define MEMPLAN_SIMULATOR_LIBRARY_CONV_H_

#include <optional>

#include "ir/module.h"
#include "simulator/library_call.h"

namespace memplan::simulator {

// The convolution a cuDNN convolution custom-call computes; nullopt for any
// other instruction, or when the call lacks its dimension numbers (dim_labels)
// or has fewer than two array operands or no array result.
std::optional<LibraryCall> CudnnConvolution(const ir::Module& module,
                                                   const ir::Instruction& instruction);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_LIBRARY_CONV_H_
