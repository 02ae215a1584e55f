#include "parsers/byte_count.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace memplan::parsers {

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<double> ReadDecimal(std::string_view& s) {
  size_t n = 0;
  bool digits = false;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n, digits = true;
  if (n < s.size() && s[n] == '.') {
    ++n;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n, digits = true;
  }
  if (!digits) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + n, value);
  if (ec != std::errc() || end != s.data() + n) return std::nullopt;
  s.remove_prefix(n);
  return value;
}

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = (a[i] >= 'A' && a[i] <= 'Z') ? a[i] - 'A' + 'a' : a[i];
    const char y = (b[i] >= 'A' && b[i] <= 'Z') ? b[i] - 'A' + 'a' : b[i];
    if (x != y) return false;
  }
  return true;
}

}  // namespace

std::optional<int64_t> ParseByteCount(std::string_view text) {
  std::string_view s = TrimSpaces(text);
  const std::optional<double> number = ReadDecimal(s);
  if (!number) return std::nullopt;
  const std::string_view unit = TrimSpaces(s);
  static constexpr struct {
    const char* unit;
    double multiplier;
  } kUnits[] = {
      {"", 1},
      {"B", 1},
      {"K", 1024.0},
      {"KiB", 1024.0},
      {"KB", 1e3},
      {"M", 1048576.0},
      {"MiB", 1048576.0},
      {"MB", 1e6},
      {"G", 1073741824.0},
      {"GiB", 1073741824.0},
      {"GB", 1e9},
      {"T", 1099511627776.0},
      {"TiB", 1099511627776.0},
      {"TB", 1e12},
      {"P", 1125899906842624.0},
      {"PiB", 1125899906842624.0},
      {"PB", 1e15},
  };
  for (const auto& u : kUnits) {
    if (!EqualsIgnoreCase(unit, u.unit)) continue;
    const long double bytes = static_cast<long double>(*number) * u.multiplier;
    if (u.multiplier == 1 && bytes != std::floor(bytes)) return std::nullopt;  // "1.5B"
    if (bytes >= 9.2e18L) return std::nullopt;
    return static_cast<int64_t>(std::llround(bytes));
  }
  return std::nullopt;
}

std::optional<double> ParsePercent(std::string_view text) {
  std::string_view s = TrimSpaces(text);
  const std::optional<double> number = ReadDecimal(s);
  if (!number || TrimSpaces(s) != "%") return std::nullopt;
  return number;
}

}  // namespace memplan::parsers
