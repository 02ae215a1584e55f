// UTF-8 validation for text a parser keeps in the Program: the JSON view
// (LLVM's json::Value) requires valid UTF-8, so parsers whose formats are
// text reject invalid bytes up front with a located error.
#ifndef MEMPLAN_PARSERS_UTF8_H_
#define MEMPLAN_PARSERS_UTF8_H_

#include <cstddef>
#include <string_view>

namespace memplan::parsers {

// Offset of the first byte of `text` that does not start a well-formed UTF-8
// sequence (Unicode 3.9, table 3-7: no overlong forms, no surrogates, at most
// U+10FFFF), or text.size() when all of it is valid.
inline size_t FirstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80;  // allowed range of the second byte
    unsigned char high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    const unsigned char second = static_cast<unsigned char>(text[i + 1]);
    if (second < low || second > high) return i;
    for (size_t k = 2; k < length; ++k) {
      const unsigned char next = static_cast<unsigned char>(text[i + k]);
      if (next < 0x80 || next > 0xBF) return i;
    }
    i += length;
  }
  return i;
}

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_UTF8_H_
