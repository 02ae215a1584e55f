// Quantities in hardware files: a number and a unit, read into SI base units
// (bytes, bytes per second, seconds, FLOP per second) and written back in a
// canonical form. Plain functions, no I/O.
#ifndef MEMPLAN_SIMULATOR_UNITS_H_
#define MEMPLAN_SIMULATOR_UNITS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace memplan::simulator {

enum class Quantity {
  kBytes,      // "85899345920", "80GiB", "141GB" (1e9), "512KiB"; a whole number of bytes
  kBandwidth,  // "3.35TB/s", "450GB/s", "400Gb/s" (bits), "25GiB/s"
  kDuration,   // "1.9us", "4µs", "250ns", "0.5ms", "1e-6s"
  kFlopRate,   // "989.5TFLOP/s", "1979TOPS", "67e12FLOP/s"
  kCount,      // a positive integer: "8"
};

// Parses `text` (spaces between number and unit allowed) into base units.
// InvalidArgument whose message says what was expected, e.g. "expected a
// bandwidth such as 450GB/s or 400Gb/s". Values must be finite and not
// negative; bandwidths, FLOP rates and counts must be positive.
absl::StatusOr<double> ParseQuantity(std::string_view text, Quantity kind);

// The canonical spelling: the largest unit that keeps the number >= 1
// (binary units for bytes when exact), the number in its shortest form that
// reads back to the same double ("450GB/s", "1.9us", "80GiB", "989.5TFLOP/s").
std::string FormatQuantity(double value, Quantity kind);

// The same with the number rounded to `digits` significant digits, for
// fitted values ("229.7GB/s").
std::string FormatQuantityRounded(double value, Quantity kind, int digits);

// What ParseQuantity expects, for messages: "a bandwidth such as 450GB/s".
std::string_view QuantityExpectation(Quantity kind);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_UNITS_H_
