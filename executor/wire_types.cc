#include "executor/wire_types.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <cmath>
#include <cstring>

namespace memplan::executor {

WireLayout WireLayoutFor(ir::DType dtype) {
  using ir::DType;
  switch (dtype) {
    case DType::kF32: return {WireType::kF32, 1, true};
    case DType::kF64: return {WireType::kF64, 1, true};
    case DType::kF16: return {WireType::kF16, 1, true};
    case DType::kBF16: return {WireType::kBF16, 1, true};
    case DType::kS8: return {WireType::kS8, 1, true};
    case DType::kU8: return {WireType::kU8, 1, true};
    case DType::kS32: return {WireType::kS32, 1, true};
    case DType::kU32: return {WireType::kU32, 1, true};
    case DType::kS64: return {WireType::kS64, 1, true};
    case DType::kU64: return {WireType::kU64, 1, true};
    case DType::kC64: return {WireType::kF32, 2, true};
    case DType::kC128: return {WireType::kF64, 2, true};
    default: break;
  }
  switch (ir::DTypeStorageBytes(dtype)) {
    case 2: return {WireType::kF16, 1, false};
    case 4: return {WireType::kF32, 1, false};
    case 8: return {WireType::kF64, 1, false};
    default: return {WireType::kU8, ir::DTypeStorageBytes(dtype) > 0 ? ir::DTypeStorageBytes(dtype) : 1, false};
  }
}

int WireBytes(WireType type) {
  switch (type) {
    case WireType::kF64: case WireType::kS64: case WireType::kU64: return 8;
    case WireType::kF32: case WireType::kS32: case WireType::kU32: return 4;
    case WireType::kF16: case WireType::kBF16: return 2;
    case WireType::kS8: case WireType::kU8: return 1;
  }
  return 1;
}

std::string_view WireTypeName(WireType type) {
  switch (type) {
    case WireType::kF32: return "float";
    case WireType::kF64: return "double";
    case WireType::kF16: return "half";
    case WireType::kBF16: return "bfloat16";
    case WireType::kS8: return "int8";
    case WireType::kU8: return "uint8";
    case WireType::kS32: return "int32";
    case WireType::kU32: return "uint32";
    case WireType::kS64: return "int64";
    case WireType::kU64: return "uint64";
  }
  return "?";
}

int64_t MaxExactInteger(WireType type) {
  switch (type) {
    case WireType::kF32: return int64_t{1} << 24;
    case WireType::kF64: return int64_t{1} << 53;
    case WireType::kF16: return 2048;
    case WireType::kBF16: return 256;
    case WireType::kS8: return 127;
    case WireType::kU8: return 255;
    case WireType::kS32: return (int64_t{1} << 31) - 1;
    case WireType::kU32: return (int64_t{1} << 32) - 1;
    case WireType::kS64: case WireType::kU64: return int64_t{1} << 62;
  }
  return 0;
}

void StoreInteger(WireType type, int64_t v, void* dst) {
  switch (type) {
    case WireType::kF32: { const float f = static_cast<float>(v); std::memcpy(dst, &f, 4); return; }
    case WireType::kF64: { const double d = static_cast<double>(v); std::memcpy(dst, &d, 8); return; }
    case WireType::kF16: { const uint16_t h = FloatToHalf(static_cast<float>(v)); std::memcpy(dst, &h, 2); return; }
    case WireType::kBF16: { const uint16_t b = FloatToBfloat16(static_cast<float>(v)); std::memcpy(dst, &b, 2); return; }
    case WireType::kS8: case WireType::kU8: { const uint8_t b = static_cast<uint8_t>(v); std::memcpy(dst, &b, 1); return; }
    case WireType::kS32: case WireType::kU32: { const uint32_t w = static_cast<uint32_t>(v); std::memcpy(dst, &w, 4); return; }
    case WireType::kS64: case WireType::kU64: { const uint64_t w = static_cast<uint64_t>(v); std::memcpy(dst, &w, 8); return; }
  }
}

double LoadAsDouble(WireType type, const void* src) {
  switch (type) {
    case WireType::kF32: { float f; std::memcpy(&f, src, 4); return f; }
    case WireType::kF64: { double d; std::memcpy(&d, src, 8); return d; }
    case WireType::kF16: { uint16_t h; std::memcpy(&h, src, 2); return HalfToFloat(h); }
    case WireType::kBF16: { uint16_t b; std::memcpy(&b, src, 2); return Bfloat16ToFloat(b); }
    case WireType::kS8: { int8_t b; std::memcpy(&b, src, 1); return b; }
    case WireType::kU8: { uint8_t b; std::memcpy(&b, src, 1); return b; }
    case WireType::kS32: { int32_t w; std::memcpy(&w, src, 4); return w; }
    case WireType::kU32: { uint32_t w; std::memcpy(&w, src, 4); return w; }
    case WireType::kS64: { int64_t w; std::memcpy(&w, src, 8); return static_cast<double>(w); }
    case WireType::kU64: { uint64_t w; std::memcpy(&w, src, 8); return static_cast<double>(w); }
  }
  return 0;
}

namespace {

template <typename T>
T Saturate(double value) {
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (std::isnan(value)) return 0;
  return static_cast<T>(std::nearbyint(std::clamp(value, lo, hi)));
}

}  // namespace

void StoreDouble(WireType type, double value, void* dst) {
  switch (type) {
    case WireType::kF32: { const float f = static_cast<float>(value); std::memcpy(dst, &f, 4); return; }
    case WireType::kF64: std::memcpy(dst, &value, 8); return;
    case WireType::kF16: { const uint16_t h = FloatToHalf(static_cast<float>(value)); std::memcpy(dst, &h, 2); return; }
    case WireType::kBF16: { const uint16_t b = FloatToBfloat16(static_cast<float>(value)); std::memcpy(dst, &b, 2); return; }
    case WireType::kS8: { const int8_t v = Saturate<int8_t>(value); std::memcpy(dst, &v, 1); return; }
    case WireType::kU8: { const uint8_t v = Saturate<uint8_t>(value); std::memcpy(dst, &v, 1); return; }
    case WireType::kS32: { const int32_t v = Saturate<int32_t>(value); std::memcpy(dst, &v, 4); return; }
    case WireType::kU32: { const uint32_t v = Saturate<uint32_t>(value); std::memcpy(dst, &v, 4); return; }
    case WireType::kS64: { const int64_t v = Saturate<int64_t>(value); std::memcpy(dst, &v, 8); return; }
    case WireType::kU64: { const uint64_t v = Saturate<uint64_t>(value); std::memcpy(dst, &v, 8); return; }
  }
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1F;
  const uint32_t mantissa = h & 0x3FF;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // inf or NaN
  } else {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

uint16_t FloatToHalf(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const float magnitude = std::fabs(value);
  if (std::isnan(value)) return sign | 0x7E00;
  if (magnitude >= 65520.0f) return sign | 0x7C00;  // rounds to infinity
  if (magnitude < std::ldexp(1.0f, -14)) {
    // Subnormal: units of 2^-24, rounded to nearest even by rint.
    return sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(magnitude, 24)));
  }
  const uint32_t abs_bits = bits & 0x7FFFFFFF;
  const uint32_t exponent = (abs_bits >> 23) - 112;
  uint32_t mantissa = abs_bits & 0x7FFFFF;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // carries into the exponent if needed
  return sign | static_cast<uint16_t>(half);
}

float Bfloat16ToFloat(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

uint16_t FloatToBfloat16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

}  // namespace memplan::executor
