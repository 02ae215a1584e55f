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

// The change from `before` to `now` in percent of `before` (0 when `before`
// is 0): 110 against 100 is 10.0.
double ChangePercent(int64_t now, int64_t before);

// A signed percentage with two decimals: "+1.25%", "-0.40%", "0.00%".
std::string SignedPercent(double percent);
// An unsigned one: "12.50%".
std::string Percent(double percent);

// What an allocation is, in words: "argument 5", "output tuple", "output",
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

// Display columns of `text`: its UTF-8 code points (bytes that do not
// continue a sequence).
size_t DisplayWidth(std::string_view text);

// `text` in at most `width` display columns: unchanged when it fits, else
// its start and end around "..." (its end alone below 4 columns), never
// splitting a UTF-8 sequence.
std::string ElideMiddle(std::string_view text, size_t width);

// `text` in at most `width` display columns: unchanged when it fits, else
// "..." and its end (its end alone below 4 columns).
std::string ElideStart(std::string_view text, size_t width);

// `text` broken at spaces into lines of at most `width` display columns
// (a word longer than a line is elided), each line after the first starting
// with `indent`; no trailing newline. `first_column` is where the first
// line starts. With `width` 0, `text` unchanged.
std::string WrapText(std::string_view text, size_t width, std::string_view indent,
                     size_t first_column);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_FORMAT_H_
