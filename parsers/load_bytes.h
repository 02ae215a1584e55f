// Loads of a few bytes as one little-endian word, for hashing short texts
// without a call to memcpy (a memcpy of a size known only at run time is a
// library call; the name table hashes two names per dump line).
#ifndef MEMPLAN_PARSERS_LOAD_BYTES_H_
#define MEMPLAN_PARSERS_LOAD_BYTES_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace memplan::parsers {

static_assert(std::endian::native == std::endian::little, "LoadUpTo8 combines loads little-endian");

// The `n` bytes at `p` (n <= 8) as a little-endian word, zero-extended: the
// value memcpy(&w, p, n) leaves in a zeroed uint64_t w on a little-endian
// machine. Reads no byte outside [p, p + n).
inline uint64_t LoadUpTo8(const char* p, size_t n) {
  const auto byte = [p](size_t i) { return static_cast<uint64_t>(static_cast<unsigned char>(p[i])); };
  if (n >= 4) {
    if (n == 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      return w;
    }
    // Two overlapping 4-byte loads: bytes 0-3, and the last four, of which
    // the top n - 4 are bytes 4 .. n-1.
    uint32_t lo;
    uint32_t hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return static_cast<uint64_t>(lo) | ((static_cast<uint64_t>(hi) >> (8 * (8 - n))) << 32);
  }
  if (n == 0) return 0;
  // 1 to 3 bytes: the first, middle and last (some the same byte).
  return byte(0) | (byte(n / 2) << (8 * (n / 2))) | (byte(n - 1) << (8 * (n - 1)));
}

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_LOAD_BYTES_H_
