// Strings into llvm::json, one rule for every JSON view: text from the input
// (names, op_names, source paths) need not be UTF-8, and llvm::json asserts
// that its strings are; invalid bytes become U+FFFD.
#ifndef MEMPLAN_VIZ_JSON_TEXT_H_
#define MEMPLAN_VIZ_JSON_TEXT_H_

#include <string_view>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

namespace memplan::viz {

// `s` as a StringRef, for keys and for text known to be UTF-8 (our own
// words, keywords). No copy.
inline llvm::StringRef JsonRef(std::string_view s) { return llvm::StringRef(s.data(), s.size()); }

// A JSON string of text from the input: `s` itself (no copy) when it is
// valid UTF-8, else a copy with each invalid byte replaced by U+FFFD.
inline llvm::json::Value JsonText(std::string_view s) {
  if (LLVM_LIKELY(llvm::json::isUTF8(JsonRef(s)))) return JsonRef(s);
  return llvm::json::fixUTF8(JsonRef(s));
}

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_JSON_TEXT_H_
