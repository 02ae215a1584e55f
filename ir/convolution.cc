#include "ir/convolution.h"

#include <algorithm>

namespace memplan::ir {

int64_t ConvolutionValidPositions(int64_t input, int64_t kernel, int64_t output,
                                  const WindowDimension& w) {
  if (input == output && kernel == output && input == w.base_dilation &&
      w.window_dilation == 1 && std::max<int64_t>(1, input - 1) == w.stride &&
      w.padding_low == 0 && w.padding_high == 0) {
    return input;
  }
  if (input == 1 && kernel == output && w.window_dilation == 1 && w.base_dilation == 1 &&
      w.stride == 1 && w.padding_high == output - 1 && w.padding_low == output - 1) {
    return output;
  }
  int64_t count = 0;
  for (int64_t k = 0; k < kernel; ++k) {
    for (int64_t o = 0; o < output; ++o) {
      const int64_t undilated = o * w.stride - w.padding_low + k * w.window_dilation;
      const int64_t index = w.base_dilation > 1 ? undilated / w.base_dilation : undilated;
      if (undilated != index * w.base_dilation) continue;
      if (index < 0 || index >= input) continue;
      ++count;
    }
  }
  return count;
}

}  // namespace memplan::ir
