// String building over std::string_view. Debian's Abseil is built with its
// own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0), which does not
// accept std::string_view; these wrappers bridge the two so the rest of
// memplan can use the standard type.
#ifndef MEMPLAN_IR_STRINGS_H_
#define MEMPLAN_IR_STRINGS_H_

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace memplan {

inline absl::string_view ToAbsl(std::string_view s) { return {s.data(), s.size()}; }
template <typename T>
const T& ToAbsl(const T& value) {
  return value;
}

inline std::string_view FromAbsl(absl::string_view s) { return {s.data(), s.size()}; }

// absl::StrCat / StrAppend that also take std::string_view pieces.
template <typename... Pieces>
std::string StrCat(const Pieces&... pieces) {
  return absl::StrCat(ToAbsl(pieces)...);
}
template <typename... Pieces>
void StrAppend(std::string* out, const Pieces&... pieces) {
  absl::StrAppend(out, ToAbsl(pieces)...);
}

}  // namespace memplan

#endif  // MEMPLAN_IR_STRINGS_H_
