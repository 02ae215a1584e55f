// Facts of XLA convolutions shared by the HLO cost model (simulator/) and
// the jaxpr flop count (analyzer/).
#ifndef MEMPLAN_IR_CONVOLUTION_H_
#define MEMPLAN_IR_CONVOLUTION_H_

#include <cstdint>

#include "ir/hlo_attributes.h"

namespace memplan::ir {

// How many (output position, kernel position) pairs of one spatial
// dimension land on an input element (not on padding or a dilation hole),
// as XLA's HloCostAnalysis counts them for a convolution's flops, with its
// two shortcuts (a window as large as a base-dilated input, and a full
// correlation of a length-1 input).
int64_t ConvolutionValidPositions(int64_t input, int64_t kernel, int64_t output,
                                  const WindowDimension& window);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_CONVOLUTION_H_
