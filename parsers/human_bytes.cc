#include "parsers/human_bytes.h"

#include <cstdint>
#include <cstdio>

namespace memplan::parsers {
namespace {

constexpr std::string_view kUnitLetters = "KMGTPE";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool ParseHumanBytes(Cursor& cursor, HumanBytes* out) {
  const std::string_view rest = cursor.rest();
  size_t n = 0;
  // At most 19 integer and 6 fraction digits: the mantissa stays < 10^25.
  unsigned __int128 mantissa = 0;
  while (n < rest.size() && IsDigit(rest[n])) {
    if (n >= 19) return false;
    mantissa = mantissa * 10 + static_cast<unsigned>(rest[n] - '0');
    ++n;
  }
  if (n == 0) return false;
  int fraction_digits = 0;
  if (n < rest.size() && rest[n] == '.') {
    ++n;
    const size_t fraction_start = n;
    while (n < rest.size() && IsDigit(rest[n])) {
      if (fraction_digits >= 6) return false;
      mantissa = mantissa * 10 + static_cast<unsigned>(rest[n] - '0');
      ++fraction_digits;
      ++n;
    }
    if (n == fraction_start) {
      cursor.Advance(n);
      return false;
    }
  }
  unsigned __int128 unit = 1;
  bool exact = false;
  if (n < rest.size() && rest[n] == 'B') {
    if (fraction_digits > 0) {  // "1.5B" is no XLA spelling
      cursor.Advance(n);
      return false;
    }
    ++n;
    exact = true;
  } else {
    const size_t letter =
        n < rest.size() ? kUnitLetters.find(rest[n]) : std::string_view::npos;
    if (letter == std::string_view::npos) {
      cursor.Advance(n);
      return false;
    }
    ++n;
    for (size_t i = 0; i <= letter; ++i) unit *= 1024;
    if (rest.substr(n, 2) == "iB") n += 2;
  }
  unsigned __int128 scale = 1;
  for (int i = 0; i < fraction_digits; ++i) scale *= 10;
  // Mantissa < 10^25 and unit <= 2^60 could overflow 128 bits together.
  if (mantissa > ~static_cast<unsigned __int128>(0) / unit) return false;
  // Round to the nearest byte.
  const unsigned __int128 bytes = (mantissa * unit + scale / 2) / scale;
  if (bytes > static_cast<unsigned __int128>(INT64_MAX)) return false;
  out->bytes = static_cast<int64_t>(bytes);
  out->exact = exact;
  out->text = rest.substr(0, n);
  cursor.Advance(n);
  return true;
}

std::string FormatXlaHumanBytes(int64_t n) {
  char buffer[32];
  if (n < 0) return "-" + FormatXlaHumanBytes(n == INT64_MIN ? INT64_MAX : -n);
  if (n < 1024) {
    std::snprintf(buffer, sizeof(buffer), "%lldB", static_cast<long long>(n));
    return buffer;
  }
  size_t unit = 0;
  while (n >= int64_t{1024} * 1024 && unit + 1 < kUnitLetters.size()) {
    n /= 1024;
    ++unit;
  }
  std::snprintf(buffer, sizeof(buffer), unit == 0 ? "%.1f%ciB" : "%.2f%ciB",
                static_cast<double>(n) / 1024.0, kUnitLetters[unit]);
  return buffer;
}

bool AgreesWithPrinted(int64_t n, const HumanBytes& printed) {
  if (printed.exact) return n == printed.bytes;
  std::string formatted = FormatXlaHumanBytes(n);
  if (!printed.text.ends_with("iB") && formatted.ends_with("iB")) {
    formatted.resize(formatted.size() - 2);  // the TPU form drops "iB"
  }
  return formatted == printed.text;
}

std::optional<int64_t> CheckedByteSizeOf(const ir::Shape& shape, int pointer_size) {
  if (shape.IsTuple()) {
    return pointer_size * static_cast<int64_t>(shape.tuple_elements.size());
  }
  if (shape.dtype == ir::DType::kOpaque) return pointer_size;
  if (!shape.IsArray()) return 0;
  int64_t elements = 1;
  for (int64_t d : shape.dims) {
    if (d < 0 || __builtin_mul_overflow(elements, d, &elements)) return std::nullopt;
  }
  int64_t bytes = 0;
  if (shape.layout && shape.layout->element_size_bits > 0) {
    int64_t bits = 0;
    if (__builtin_mul_overflow(elements, int64_t{shape.layout->element_size_bits}, &bits) ||
        bits > INT64_MAX - 7) {
      return std::nullopt;
    }
    return (bits + 7) / 8;
  }
  if (__builtin_mul_overflow(elements, int64_t{ir::DTypeStorageBytes(shape.dtype)}, &bytes)) {
    return std::nullopt;
  }
  return bytes;
}

}  // namespace memplan::parsers
