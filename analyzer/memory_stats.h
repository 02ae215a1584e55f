// Bytes per category, computed from allocations the way XLA's
// CompiledMemoryStats does (xla/pjrt/compiled_memory_stats.cc):
//   argument  = entry-parameter allocations
//   output    = maybe-live-out allocations (donated parameters included)
//   alias     = allocations that are both, i.e. parameters aliased with output
//   temp      = preallocated-temp allocations
// Constant and thread-local allocations count in none of those four, but in
// the total allocation ("Total bytes used").
//
// A program without allocations that states its category totals (XLA's OOM
// message) takes them as stated: argument = parameter, output =
// maybe_live_out, temp = preallocated_temp, constant, total; alias as stated
// (the TPU message) or 0 (the GPU one does not say; its parser notes that).
// What the message leaves out is unstated (MemoryStats::unstated).
#ifndef MEMPLAN_ANALYZER_MEMORY_STATS_H_
#define MEMPLAN_ANALYZER_MEMORY_STATS_H_

#include <array>
#include <cstdint>
#include <optional>

#include "ir/program.h"

namespace memplan::analyzer {

// The category numbers an input may leave unstated.
enum class StatsField {
  kArgument, kOutput, kAlias, kTemp, kConstant, kThreadLocal, kDeviceFootprint, kTotalAllocation
};
inline constexpr int kNumStatsFields = 8;

struct MemoryStats {
  int64_t argument_bytes = 0;
  int64_t output_bytes = 0;
  int64_t alias_bytes = 0;
  int64_t temp_bytes = 0;
  int64_t constant_bytes = 0;
  int64_t thread_local_bytes = 0;
  // Sum of all allocation sizes.
  int64_t total_allocation_bytes = 0;
  // argument + output - alias + temp: what memory_analysis() adds up (code
  // size is not in a buffer-assignment dump).
  int64_t device_footprint_bytes = 0;
  // The dump's "Total bytes used", when stated.
  std::optional<int64_t> stated_total_bytes;
  // True when the numbers above are the input's stated category totals
  // (Program::stated_categories), not sums over allocations.
  bool from_stated_categories = false;
  // Numbers the input does not state: a memory-usage report that prints no
  // allocation kinds (Note kReportNoAllocationHeaders) states none of them
  // but the total; an OOM message states some, and may say it does not know
  // one (a TPU message's "arguments unknown size", "Output size unknown.":
  // Note kOomSizeNotStated). A sum that rests on an unstated number (device
  // footprint; the total when the input does not state it) is unstated too.
  // Their fields above hold 0 or a partial sum; Get() says null.
  std::array<bool, kNumStatsFields> unstated{};
  // The field's bytes, or nullopt when the input does not state it.
  std::optional<int64_t> Get(StatsField field) const;
  bool TotalMatchesStated() const {
    return !stated_total_bytes || *stated_total_bytes == total_allocation_bytes;
  }
};

MemoryStats ComputeMemoryStats(const ir::Program& program);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_MEMORY_STATS_H_
