#include "parsers/hlo_primitive_type.h"

#include <iterator>

namespace memplan::parsers {

ir::DType DTypeFromPrimitiveType(int number) {
  using D = ir::DType;
  // Indexed by xla.PrimitiveType number.
  static constexpr D kByNumber[] = {
      D::kInvalid,    D::kPred,     D::kS8,           D::kS16,        D::kS32,
      D::kS64,        D::kU8,       D::kU16,          D::kU32,        D::kU64,
      D::kF16,        D::kF32,      D::kF64,          D::kTuple,      D::kOpaque,
      D::kC64,        D::kBF16,     D::kToken,        D::kC128,       D::kF8E5M2,
      D::kF8E4M3FN,   D::kS4,       D::kU4,           D::kF8E4M3B11FNUZ, D::kF8E5M2FNUZ,
      D::kF8E4M3FNUZ, D::kS2,       D::kU2,           D::kF8E4M3,     D::kF8E3M4,
      D::kS1,         D::kU1,       D::kF4E2M1FN,     D::kF8E8M0FNU,
  };
  if (number < 0 || number >= static_cast<int>(std::size(kByNumber))) return D::kInvalid;
  return kByNumber[number];
}

}  // namespace memplan::parsers
