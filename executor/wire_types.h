// The element types collectives and GEMMs actually run in. NCCL and MPI know
// a handful of types; a plan may name any XLA element type. Each XLA type
// maps to a wire type of the same storage size (complex types to pairs of
// their real type), so bytes moved stay what the plan says.
#ifndef MEMPLAN_EXECUTOR_WIRE_TYPES_H_
#define MEMPLAN_EXECUTOR_WIRE_TYPES_H_

#include <cstdint>
#include <string_view>

#include "ir/dtype.h"

namespace memplan::executor {

enum class WireType : uint8_t { kF32, kF64, kF16, kBF16, kS8, kU8, kS32, kU32, kS64, kU64 };

struct WireLayout {
  WireType type = WireType::kF32;
  int64_t per_element = 1;  // wire elements per element of the plan's type
  // True when the wire type is the plan's own type (or its real part): a
  // reduction then computes what the plan's type would. False for types run
  // as another of the same size (f8 as u8, s16 as f16): bytes and timing
  // carry over, arithmetic does not.
  bool exact = true;
};

// Requires an array type (ir::IsArrayDType).
WireLayout WireLayoutFor(ir::DType dtype);

int WireBytes(WireType type);

// nccl-tests' spelling: "float", "double", "half", "bfloat16", "int8",
// "uint8", "int32", "uint32", "int64", "uint64".
std::string_view WireTypeName(WireType type);

// The largest M such that every integer 0..M is exactly representable.
int64_t MaxExactInteger(WireType type);

// Stores integer `v` (0 <= v <= MaxExactInteger) as one element at `dst`.
void StoreInteger(WireType type, int64_t v, void* dst);
// Reads one element at `src` as a double (exact for the integers above).
double LoadAsDouble(WireType type, const void* src);
// Stores `value` as one element at `dst`, rounded to nearest (integers
// saturate at the type's range).
void StoreDouble(WireType type, double value, void* dst);

// IEEE binary16 and bfloat16 from and to float, rounding to nearest even.
float HalfToFloat(uint16_t bits);
uint16_t FloatToHalf(float value);
float Bfloat16ToFloat(uint16_t bits);
uint16_t FloatToBfloat16(float value);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_WIRE_TYPES_H_
