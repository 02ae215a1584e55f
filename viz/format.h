// Number formatting shared by every view. Output never depends on locale.
#ifndef MEMPLAN_VIZ_FORMAT_H_
#define MEMPLAN_VIZ_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/program.h"

namespace memplan::viz {

// "512 B", "1.50 KiB", "296.75 MiB", "1.02 GiB" (binary units, 2 decimals).
std::string HumanBytes(int64_t bytes);

// "1093622736" grouped for reading: "1,093,622,736".
std::string GroupedBytes(int64_t bytes);

// "1.234 s", "5.678 ms", "56.700 us", "890.0 ns".
std::string HumanSeconds(double seconds);

// A signed percentage with two decimals: "+1.25%", "-0.40%", "0.00%".
std::string SignedPercent(double percent);
// An unsigned one: "12.50%".
std::string Percent(double percent);

// What an allocation is, in words: "parameter 5", "output tuple, live-out",
// "temp", "constant", "color 1", ...; "other" when nothing applies.
std::string AllocationKindLabel(const ir::Allocation& allocation);

// `text` made safe to embed in a markup or graph format (XML, SVG, HTML, DOT):
// valid UTF-8 with each byte that does not start a well-formed sequence
// replaced by U+FFFD, and each control character other than tab and newline
// (U+0000-U+001F but those two, U+007F) replaced by U+FFFD too. Escaping of
// the format's own special characters is left to the caller.
std::string MarkupSafeText(std::string_view text);

// `text` cut to at most `max_bytes` bytes without splitting a UTF-8 sequence.
std::string_view Utf8Prefix(std::string_view text, size_t max_bytes);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_FORMAT_H_
