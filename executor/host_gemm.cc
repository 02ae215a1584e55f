// The host backend's GEMM: a cache-blocked column-major kernel. It stands in
// for cuBLAS so that plans with GEMMs replay everywhere; its speed says
// nothing about a GPU's.
#include <algorithm>
#include <optional>
#include <cstdint>
#include <vector>

#include "executor/host_backend.h"
#include "ir/strings.h"

namespace memplan::executor {
namespace {

enum class Accumulator { kFloat, kDouble, kInt32 };

std::optional<Accumulator> AccumulatorFor(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF32: case ir::DType::kF16: case ir::DType::kBF16: return Accumulator::kFloat;
    case ir::DType::kF64: return Accumulator::kDouble;
    case ir::DType::kS8: case ir::DType::kU8: return Accumulator::kInt32;
    default: return std::nullopt;
  }
}

template <typename T>
std::vector<T> Widen(ir::DType dtype, const void* data, int64_t elements) {
  const WireType type = WireLayoutFor(dtype).type;
  const int width = WireBytes(type);
  const char* in = static_cast<const char*>(data);
  std::vector<T> out(static_cast<size_t>(elements));
  for (int64_t i = 0; i < elements; ++i) out[i] = static_cast<T>(LoadAsDouble(type, in + i * width));
  return out;
}

// C (m x n) = A (m x k) B (k x n), column-major, accumulating in T.
template <typename T>
void Kernel(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  std::fill(c, c + m * n, T(0));
  constexpr int64_t kRows = 256;
  constexpr int64_t kDepth = 128;
  for (int64_t i0 = 0; i0 < m; i0 += kRows) {
    const int64_t i1 = std::min(m, i0 + kRows);
    for (int64_t p0 = 0; p0 < k; p0 += kDepth) {
      const int64_t p1 = std::min(k, p0 + kDepth);
      for (int64_t j = 0; j < n; ++j) {
        T* column = c + j * m;
        for (int64_t p = p0; p < p1; ++p) {
          const T scale = b[p + j * k];
          const T* a_column = a + p * m;
          for (int64_t i = i0; i < i1; ++i) column[i] += a_column[i] * scale;
        }
      }
    }
  }
}

template <typename T>
void Run(const GemmOp& g, const void* a, const void* b, void* c) {
  const std::vector<T> wide_a = Widen<T>(g.dtype, a, g.m * g.k);
  const std::vector<T> wide_b = Widen<T>(g.dtype, b, g.k * g.n);
  std::vector<T> wide_c(static_cast<size_t>(g.m * g.n));
  const WireType out = WireLayoutFor(g.out_dtype).type;
  const int width = WireBytes(out);
  for (int64_t i = 0; i < g.count; ++i) {
    Kernel<T>(g.m, g.n, g.k, wide_a.data(), wide_b.data(), wide_c.data());
    char* dst = static_cast<char*>(c);
    for (int64_t e = 0; e < g.m * g.n; ++e) StoreDouble(out, static_cast<double>(wide_c[e]), dst + e * width);
  }
}

}  // namespace

absl::Status HostGemm(const GemmOp& gemm, const void* a, const void* b, void* c) {
  const std::optional<Accumulator> accumulator = AccumulatorFor(gemm.dtype);
  if (!accumulator || !WireLayoutFor(gemm.out_dtype).exact || WireLayoutFor(gemm.out_dtype).per_element != 1) {
    return absl::FailedPreconditionError(
        StrCat("the host backend runs GEMMs of f32, f16, bf16, f64, s8 and u8 into a real type; not ",
               ir::DTypeName(gemm.dtype), " into ", ir::DTypeName(gemm.out_dtype)));
  }
  switch (*accumulator) {
    case Accumulator::kFloat: Run<float>(gemm, a, b, c); break;
    case Accumulator::kDouble: Run<double>(gemm, a, b, c); break;
    case Accumulator::kInt32: Run<int64_t>(gemm, a, b, c); break;  // no signed overflow
  }
  return absl::OkStatus();
}

}  // namespace memplan::executor
