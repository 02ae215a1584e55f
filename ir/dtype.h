// Element types of XLA shapes, with their bit widths.
#ifndef MEMPLAN_IR_DTYPE_H_
#define MEMPLAN_IR_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace memplan::ir {

enum class DType : uint8_t {
  kInvalid,
  kPred,
  kS1, kS2, kS4, kS8, kS16, kS32, kS64,
  kU1, kU2, kU4, kU8, kU16, kU32, kU64,
  kF4E2M1FN,
  kF8E5M2, kF8E4M3, kF8E4M3FN, kF8E4M3B11FNUZ, kF8E5M2FNUZ, kF8E4M3FNUZ,
  kF8E3M4, kF8E8M0FNU,
  kBF16, kF16, kF32, kF64,
  kC64, kC128,
  kToken,
  kOpaque,
  kTuple,
};

// The spelling XLA prints ("bf16", "f8e4m3fn", "token", ...).
std::string_view DTypeName(DType type);

// Looks a spelling up; nullopt if it names no element type.
std::optional<DType> DTypeFromName(std::string_view name);

// Bits of one element's logical representation (4 for s4, 1 for pred), as
// XLA's primitive_util::BitWidth. Zero for token, opaque and tuple.
int DTypeBitWidth(DType type);

// Bytes XLA allocates per element when the layout does not pack sub-byte
// types: ShapeUtil::ByteSizeOfPrimitiveType (1 for pred, s4, u4, f4...).
int DTypeStorageBytes(DType type);

// True for element types that hold numbers (not token, opaque or tuple).
bool IsArrayDType(DType type);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_DTYPE_H_
