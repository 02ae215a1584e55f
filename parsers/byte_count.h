// Byte counts and percents as people write them in budget files and flags
// ("1.5GiB", "800MB", "5%").
#ifndef MEMPLAN_PARSERS_BYTE_COUNT_H_
#define MEMPLAN_PARSERS_BYTE_COUNT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace memplan::parsers {

// "1234", "1234B", "1.5GiB", "800MB", "64 KiB": binary units (KiB..PiB) are
// powers of 1024, decimal ones (KB..PB) powers of 1000; K/M/G/T/P alone are
// binary. nullopt when the text is none of these or does not fit in int64.
std::optional<int64_t> ParseByteCount(std::string_view text);

// "5%", "2.5 %": the percent as a number; nullopt otherwise.
std::optional<double> ParsePercent(std::string_view text);

// `s` without leading and trailing spaces and tabs.
std::string_view TrimSpaces(std::string_view s);

// A non-negative decimal number at the start of `s` ("12", "1.5", ".5");
// advances `s` past it. nullopt (and `s` unchanged) when there is none.
std::optional<double> ReadDecimal(std::string_view& s);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_BYTE_COUNT_H_
