// Byte counts as XLA prints them for people: tsl's HumanReadableNumBytes
// ("512B", "256.0KiB", "1.00MiB", "1.02GiB") and the TPU compiler's shorter
// form ("420.0K", "124.00M", "1.00G", "0B").
//
// HumanReadableNumBytes prints n < 1024 exactly as "<n>B". Otherwise it
// divides n by 1024 (truncating) while n >= 1024*1024, stepping the unit
// K, M, G, T, P, E, and prints n/1024.0 with one decimal for K and two for
// the others. So every form but "<n>B" is rounded; reading it back gives the
// printed number times the unit, which is within 0.5% of the true count.
#ifndef MEMPLAN_PARSERS_HUMAN_BYTES_H_
#define MEMPLAN_PARSERS_HUMAN_BYTES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/shape.h"
#include "parsers/cursor.h"

namespace memplan::parsers {

struct HumanBytes {
  int64_t bytes = 0;       // exact when `exact`, else the printed value x unit
  bool exact = false;      // printed as "<n>B"
  std::string_view text;   // as printed, e.g. "1.00MiB"
};

// Reads one human-readable byte count at the cursor: digits with an optional
// fraction, then "B", "KiB".."EiB" or "K".."E" (TPU style, no "iB"). On
// failure returns false with the cursor where the text stopped matching.
bool ParseHumanBytes(Cursor& cursor, HumanBytes* out);

// tsl's HumanReadableNumBytes(n), byte for byte: what XLA prints for `n`.
std::string FormatXlaHumanBytes(int64_t n);

// True when XLA would print `n` exactly as `printed.text`: whether a byte
// count derived some other way (from a shape) agrees with the rounded text.
bool AgreesWithPrinted(int64_t n, const HumanBytes& printed);

// Parsers of these reports keep every sum of sizes they produce below this
// (1 EiB), so that analyses adding them up cannot overflow.
inline constexpr int64_t kMaxTotalBytes = int64_t{1} << 60;

// Adds `n` to `*total`; false when the sum would reach kMaxTotalBytes.
inline bool AddBounded(int64_t* total, int64_t n) {
  if (n < 0 || n >= kMaxTotalBytes - *total) return false;
  *total += n;
  return true;
}

// ir::ByteSizeOf for shapes read from untrusted text: nullopt when a
// dimension is unknown ('?') or the size does not fit in int64.
std::optional<int64_t> CheckedByteSizeOf(const ir::Shape& shape, int pointer_size = 8);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_HUMAN_BYTES_H_
