// The numbers a memory budget limits (`memplan check`, docs/ci.md): shared
// by the budget file's reader (parsers/budget_file.h), the baseline's
// (parsers/analyze_json_metrics.h) and the check (analyzer/budget_check.h).
#ifndef MEMPLAN_IR_BUDGET_METRICS_H_
#define MEMPLAN_IR_BUDGET_METRICS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/notes.h"

namespace memplan::ir {

// What a budget can limit, in the order reports list them.
enum class Metric { kPeak, kTemp, kArgument, kOutput, kDeviceFootprint, kTotalAllocation };
inline constexpr int kNumMetrics = 6;
inline constexpr Metric kAllMetrics[kNumMetrics] = {
    Metric::kPeak,   Metric::kTemp,            Metric::kArgument,
    Metric::kOutput, Metric::kDeviceFootprint, Metric::kTotalAllocation};

// The budget file's key: "peak", "temp", "argument", "output",
// "device_footprint", "total_allocation".
constexpr std::string_view MetricKey(Metric metric) {
  switch (metric) {
    case Metric::kPeak:
      return "peak";
    case Metric::kTemp:
      return "temp";
    case Metric::kArgument:
      return "argument";
    case Metric::kOutput:
      return "output";
    case Metric::kDeviceFootprint:
      return "device_footprint";
    case Metric::kTotalAllocation:
      return "total_allocation";
  }
  return "?";
}

// The numbers a budget checks, for one module. Absent: the input cannot
// tell (a live peak without live ranges, a category the input does not
// state).
struct ModuleMetrics {
  std::string module;
  std::string source;  // the file or directory it came from
  std::array<std::optional<int64_t>, kNumMetrics> bytes;
  // Why its numbers cannot be trusted: the input's ir::NoteCode::
  // kInputEndsEarly note (it stops early: a cut paste), absent otherwise.
  std::optional<ir::Note> untrusted;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_BUDGET_METRICS_H_
