#include "ir/dtype.h"

#include <array>

namespace memplan::ir {
namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  int bits;
};

constexpr std::array<DTypeInfo, 34> kDTypes = {{
    {DType::kInvalid, "invalid", 0},
    {DType::kPred, "pred", 1},
    {DType::kS1, "s1", 1},
    {DType::kS2, "s2", 2},
    {DType::kS4, "s4", 4},
    {DType::kS8, "s8", 8},
    {DType::kS16, "s16", 16},
    {DType::kS32, "s32", 32},
    {DType::kS64, "s64", 64},
    {DType::kU1, "u1", 1},
    {DType::kU2, "u2", 2},
    {DType::kU4, "u4", 4},
    {DType::kU8, "u8", 8},
    {DType::kU16, "u16", 16},
    {DType::kU32, "u32", 32},
    {DType::kU64, "u64", 64},
    {DType::kF4E2M1FN, "f4e2m1fn", 4},
    {DType::kF8E5M2, "f8e5m2", 8},
    {DType::kF8E4M3, "f8e4m3", 8},
    {DType::kF8E4M3FN, "f8e4m3fn", 8},
    {DType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {DType::kF8E5M2FNUZ, "f8e5m2fnuz", 8},
    {DType::kF8E4M3FNUZ, "f8e4m3fnuz", 8},
    {DType::kF8E3M4, "f8e3m4", 8},
    {DType::kF8E8M0FNU, "f8e8m0fnu", 8},
    {DType::kBF16, "bf16", 16},
    {DType::kF16, "f16", 16},
    {DType::kF32, "f32", 32},
    {DType::kF64, "f64", 64},
    {DType::kC64, "c64", 64},
    {DType::kC128, "c128", 128},
    {DType::kToken, "token", 0},
    {DType::kOpaque, "opaque", 0},
    {DType::kTuple, "tuple", 0},
}};

// kDTypes lists the types in the enum's order, so a type's value is its
// index (a linear search was ~150 instructions per f32 ShardBytes).
constexpr bool InEnumOrder() {
  for (size_t i = 0; i < kDTypes.size(); ++i) {
    if (static_cast<size_t>(kDTypes[i].type) != i) return false;
  }
  return true;
}
static_assert(InEnumOrder(), "kDTypes must list the types in DType's order");

const DTypeInfo& Info(DType type) {
  const auto i = static_cast<size_t>(type);
  return i < kDTypes.size() ? kDTypes[i] : kDTypes[0];
}

}  // namespace

std::string_view DTypeName(DType type) { return Info(type).name; }

std::optional<DType> DTypeFromName(std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (const DTypeInfo& info : kDTypes) {
    // Length and first letter before the bytes: most entries differ there,
    // and a full comparison is a memcmp call (once per parsed shape).
    if (info.name.size() != name.size() || info.name[0] != name[0]) continue;
    if (info.type != DType::kInvalid && info.type != DType::kTuple &&
        info.name == name) {
      return info.type;
    }
  }
  return std::nullopt;
}

int DTypeBitWidth(DType type) { return Info(type).bits; }

int DTypeStorageBytes(DType type) {
  const int bits = Info(type).bits;
  return bits == 0 ? 0 : (bits + 7) / 8;
}

bool IsArrayDType(DType type) {
  return type != DType::kInvalid && type != DType::kToken &&
         type != DType::kOpaque && type != DType::kTuple;
}

}  // namespace memplan::ir
