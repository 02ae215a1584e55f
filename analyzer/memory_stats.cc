#include "analyzer/memory_stats.h"

#include <cstdint>

namespace memplan::analyzer {

namespace {

// Saturating, so that absurd stated numbers cannot overflow.
int64_t Add(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

void MarkUnstated(MemoryStats& stats, StatsField field) {
  stats.unstated[static_cast<int>(field)] = true;
}

MemoryStats FromStatedCategories(const ir::Program& program) {
  const ir::StatedCategoryBytes& stated = *program.stated_categories;
  MemoryStats stats;
  stats.from_stated_categories = true;
  if (!stated.parameter) MarkUnstated(stats, StatsField::kArgument);
  if (!stated.maybe_live_out) MarkUnstated(stats, StatsField::kOutput);
  if (!stated.alias) MarkUnstated(stats, StatsField::kAlias);
  if (!stated.preallocated_temp) MarkUnstated(stats, StatsField::kTemp);
  if (!stated.constant) MarkUnstated(stats, StatsField::kConstant);
  MarkUnstated(stats, StatsField::kThreadLocal);
  if (!stated.parameter || !stated.maybe_live_out || !stated.preallocated_temp) {
    MarkUnstated(stats, StatsField::kDeviceFootprint);
  }
  stats.argument_bytes = stated.parameter.value_or(0);
  stats.output_bytes = stated.maybe_live_out.value_or(0);
  stats.alias_bytes = stated.alias.value_or(0);
  stats.temp_bytes = stated.preallocated_temp.value_or(0);
  stats.constant_bytes = stated.constant.value_or(0);
  stats.device_footprint_bytes =
      Add(Add(stats.argument_bytes, stats.output_bytes), Add(stats.temp_bytes, -stats.alias_bytes));
  stats.total_allocation_bytes =
      stated.total.value_or(Add(stats.device_footprint_bytes, stats.constant_bytes));
  stats.stated_total_bytes = program.stated_total_bytes;
  // "unknown size": the parser leaves the number absent and says so; an
  // unknown output leaves what it shares with the arguments unknown too.
  for (const ir::Note& note : program.notes) {
    if (note.code != ir::NoteCode::kOomSizeNotStated || note.texts.empty()) continue;
    if (note.texts[0] == "arguments") MarkUnstated(stats, StatsField::kArgument);
    if (note.texts[0] == "output") {
      MarkUnstated(stats, StatsField::kOutput);
      MarkUnstated(stats, StatsField::kAlias);
    }
  }
  if (stats.unstated[static_cast<int>(StatsField::kArgument)] ||
      stats.unstated[static_cast<int>(StatsField::kOutput)]) {
    MarkUnstated(stats, StatsField::kDeviceFootprint);
  }
  // The total, when not stated, is footprint + constant: unstated with it.
  if (!stated.total && stats.unstated[static_cast<int>(StatsField::kDeviceFootprint)]) {
    MarkUnstated(stats, StatsField::kTotalAllocation);
  }
  return stats;
}

}  // namespace

MemoryStats ComputeMemoryStats(const ir::Program& program) {
  if (program.allocations.empty() && program.stated_categories) {
    return FromStatedCategories(program);
  }
  MemoryStats stats;
  for (const ir::Allocation& a : program.allocations) {
    stats.total_allocation_bytes += a.size;
    if (a.is_entry_parameter()) stats.argument_bytes += a.size;
    if (a.maybe_live_out) stats.output_bytes += a.size;
    if (a.is_entry_parameter() && a.maybe_live_out) stats.alias_bytes += a.size;
    if (a.is_preallocated_temp) stats.temp_bytes += a.size;
    if (a.is_constant) stats.constant_bytes += a.size;
    if (a.is_thread_local) stats.thread_local_bytes += a.size;
  }
  stats.device_footprint_bytes =
      stats.argument_bytes + stats.output_bytes - stats.alias_bytes + stats.temp_bytes;
  stats.stated_total_bytes = program.stated_total_bytes;
  // Allocations without their kinds (the newest memory-usage report): only
  // the total is known.
  for (const ir::Note& note : program.notes) {
    if (note.code != ir::NoteCode::kReportNoAllocationHeaders) continue;
    stats.unstated.fill(true);
    stats.unstated[static_cast<int>(StatsField::kTotalAllocation)] = false;
  }
  return stats;
}

std::optional<int64_t> MemoryStats::Get(StatsField field) const {
  if (unstated[static_cast<int>(field)]) return std::nullopt;
  switch (field) {
    case StatsField::kArgument: return argument_bytes;
    case StatsField::kOutput: return output_bytes;
    case StatsField::kAlias: return alias_bytes;
    case StatsField::kTemp: return temp_bytes;
    case StatsField::kConstant: return constant_bytes;
    case StatsField::kThreadLocal: return thread_local_bytes;
    case StatsField::kDeviceFootprint: return device_footprint_bytes;
    case StatsField::kTotalAllocation: return total_allocation_bytes;
  }
  return std::nullopt;
}

}  // namespace memplan::analyzer
