#include "simulator/units.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>

#include "ir/strings.h"

namespace memplan::simulator {
namespace {

struct Unit {
  std::string_view suffix;
  double multiplier;
};

// Longest suffixes first within each list where one ends another.
constexpr Unit kByteUnits[] = {
    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
    {"PiB", 1125899906842624.0}, {"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
    {"TB", 1e12}, {"PB", 1e15}, {"B", 1.0}, {"", 1.0},
};
constexpr Unit kBandwidthUnits[] = {
    {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
    {"TiB/s", 1099511627776.0}, {"kB/s", 1e3}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9},
    {"TB/s", 1e12}, {"PB/s", 1e15}, {"B/s", 1.0},
    // bits per second
    {"kb/s", 1e3 / 8}, {"Kb/s", 1e3 / 8}, {"Mb/s", 1e6 / 8}, {"Gb/s", 1e9 / 8},
    {"Tb/s", 1e12 / 8}, {"b/s", 1.0 / 8}, {"kbit/s", 1e3 / 8}, {"Mbit/s", 1e6 / 8},
    {"Gbit/s", 1e9 / 8}, {"Tbit/s", 1e12 / 8}, {"bit/s", 1.0 / 8},
};
constexpr Unit kDurationUnits[] = {
    {"ns", 1e-9}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"ms", 1e-3}, {"s", 1.0},
};
constexpr Unit kFlopUnits[] = {
    {"kFLOP/s", 1e3},  {"MFLOP/s", 1e6},  {"GFLOP/s", 1e9},  {"TFLOP/s", 1e12},
    {"PFLOP/s", 1e15}, {"FLOP/s", 1.0},   {"kFLOPS", 1e3},   {"MFLOPS", 1e6},
    {"GFLOPS", 1e9},   {"TFLOPS", 1e12},  {"PFLOPS", 1e15},  {"FLOPS", 1.0},
    {"kOP/s", 1e3},    {"MOP/s", 1e6},    {"GOP/s", 1e9},    {"TOP/s", 1e12},
    {"POP/s", 1e15},   {"OP/s", 1.0},     {"kOPS", 1e3},     {"MOPS", 1e6},
    {"GOPS", 1e9},     {"TOPS", 1e12},    {"POPS", 1e15},    {"OPS", 1.0},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The number at the front of `s` ("12", "1.5", "2e-6"); `s` keeps the rest.
std::optional<double> TakeNumber(std::string_view& s) {
  size_t n = 0;
  auto digits = [&] {
    const size_t start = n;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
    return n > start;
  };
  bool any = digits();
  if (n < s.size() && s[n] == '.') {
    ++n;
    any |= digits();
  }
  if (!any) return std::nullopt;
  if (n < s.size() && (s[n] == 'e' || s[n] == 'E')) {
    size_t m = n + 1;
    if (m < s.size() && (s[m] == '+' || s[m] == '-')) ++m;
    const size_t exponent_start = m;
    while (m < s.size() && s[m] >= '0' && s[m] <= '9') ++m;
    if (m > exponent_start) n = m;  // else "e" starts the unit (none does)
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + n, value);
  if (ec != std::errc() || end != s.data() + n) return std::nullopt;
  s.remove_prefix(n);
  return value;
}

template <size_t N>
std::optional<double> Multiplier(std::string_view unit, const Unit (&units)[N]) {
  for (const Unit& u : units) {
    if (unit == u.suffix) return u.multiplier;
  }
  return std::nullopt;
}

std::string ShortestNumber(double v) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return ec == std::errc() ? std::string(buffer, end) : StrCat(v);
}

// `v` with `decimals` decimals, trailing zeros dropped: never an exponent.
std::string Fixed(double v, int decimals) {
  char buffer[400];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, v);
  std::string s = buffer;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string Digits(double v, int precision) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g", precision, v);
  return buffer;
}

// The units a value is written in, largest first.
std::span<const Unit> FormatUnits(Quantity kind) {
  static constexpr Unit kBytes[] = {{"PiB", 1125899906842624.0}, {"TiB", 1099511627776.0},
                                    {"GiB", 1073741824.0},       {"MiB", 1048576.0},
                                    {"KiB", 1024.0},             {"TB", 1e12},
                                    {"GB", 1e9},                 {"MB", 1e6},
                                    {"kB", 1e3},                 {"", 1.0}};
  static constexpr Unit kBandwidth[] = {
      {"TB/s", 1e12}, {"GB/s", 1e9}, {"MB/s", 1e6}, {"kB/s", 1e3}, {"B/s", 1.0}};
  static constexpr Unit kDuration[] = {{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  static constexpr Unit kFlops[] = {{"PFLOP/s", 1e15}, {"TFLOP/s", 1e12}, {"GFLOP/s", 1e9},
                                    {"MFLOP/s", 1e6},  {"FLOP/s", 1.0}};
  static constexpr Unit kCount[] = {{"", 1.0}};
  switch (kind) {
    case Quantity::kBytes:
      return kBytes;
    case Quantity::kBandwidth:
      return kBandwidth;
    case Quantity::kDuration:
      return kDuration;
    case Quantity::kFlopRate:
      return kFlops;
    case Quantity::kCount:
      return kCount;
  }
  return kCount;
}

// The largest unit in which `value` is at least 1 (the smallest unit for
// values below every unit).
Unit LargestUnit(double value, Quantity kind) {
  const std::span<const Unit> units = FormatUnits(kind);
  for (const Unit& u : units) {
    if (kind == Quantity::kBytes && std::fmod(value, u.multiplier) != 0 && u.multiplier >= 1024 &&
        u.suffix.find('i') != std::string_view::npos) {
      continue;  // binary units only when exact
    }
    if (value >= u.multiplier) return u;
  }
  return units.back();
}

}  // namespace

std::string FormatQuantity(double value, Quantity kind) {
  // The shortest spelling, over units in which the number is >= 1 and up to
  // 17 decimals, that ParseQuantity reads back to exactly `value`; larger
  // units on ties.
  std::string best;
  const std::span<const Unit> units = FormatUnits(kind);
  for (size_t i = 0; i < units.size(); ++i) {
    const Unit& u = units[i];
    const double number = value / u.multiplier;
    if (number < 1 && value != 0 && i + 1 < units.size()) continue;
    std::string candidate;
    for (int decimals = 0; decimals <= 17 && candidate.empty(); ++decimals) {
      std::string text = StrCat(Fixed(number, decimals), u.suffix);
      absl::StatusOr<double> back = ParseQuantity(text, kind);
      if (back.ok() && *back == value) candidate = std::move(text);
    }
    if (candidate.empty()) continue;
    if (best.empty() || candidate.size() < best.size()) best = std::move(candidate);
  }
  if (best.empty()) {
    const Unit u = LargestUnit(value, kind);
    best = StrCat(ShortestNumber(value / u.multiplier), u.suffix);
  }
  return best;
}

std::string FormatQuantityRounded(double value, Quantity kind, int digits) {
  const Unit u = LargestUnit(value, kind);
  double rounded = 0;
  const std::string text = Digits(value / u.multiplier, digits);
  std::from_chars(text.data(), text.data() + text.size(), rounded);
  return StrCat(ShortestNumber(rounded), u.suffix);
}

std::string_view QuantityExpectation(Quantity kind) {
  switch (kind) {
    case Quantity::kBytes:
      return "a byte count such as 85899345920, 80GiB or 141GB";
    case Quantity::kBandwidth:
      return "a bandwidth such as 450GB/s, 3.35TB/s or 400Gb/s (b: bits)";
    case Quantity::kDuration:
      return "a duration such as 1.9us, 250ns or 0.5ms";
    case Quantity::kFlopRate:
      return "a rate such as 989.5TFLOP/s or 1979TOPS";
    case Quantity::kCount:
      return "a positive integer";
  }
  return "a quantity";
}

absl::StatusOr<double> ParseQuantity(std::string_view text, Quantity kind) {
  std::string_view s = Trim(text);
  const auto fail = [&] {
    return absl::InvalidArgumentError(StrCat("expected ", QuantityExpectation(kind)));
  };
  const std::optional<double> number = TakeNumber(s);
  if (!number) return fail();
  const std::string_view unit = Trim(s);
  std::optional<double> multiplier;
  switch (kind) {
    case Quantity::kBytes:
      multiplier = Multiplier(unit, kByteUnits);
      break;
    case Quantity::kBandwidth:
      multiplier = Multiplier(unit, kBandwidthUnits);
      break;
    case Quantity::kDuration:
      multiplier = Multiplier(unit, kDurationUnits);
      break;
    case Quantity::kFlopRate:
      multiplier = Multiplier(unit, kFlopUnits);
      break;
    case Quantity::kCount:
      if (unit.empty()) multiplier = 1.0;
      break;
  }
  if (!multiplier) return fail();
  const double value = *number * *multiplier;
  if (!std::isfinite(value)) return fail();
  switch (kind) {
    case Quantity::kBytes:
      if (value != std::floor(value) || value > 9.0e18) return fail();
      break;
    case Quantity::kCount:
      if (value != std::floor(value) || value < 1 || value > 9.0e18) return fail();
      break;
    case Quantity::kBandwidth:
    case Quantity::kFlopRate:
      if (value <= 0) return fail();
      break;
    case Quantity::kDuration:
      break;
  }
  return value;
}

}  // namespace memplan::simulator
