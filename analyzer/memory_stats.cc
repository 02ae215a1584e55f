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

MemoryStats FromStatedCategories(const ir::Program& program) {
  const ir::StatedCategoryBytes& stated = *program.stated_categories;
  MemoryStats stats;
  stats.from_stated_categories = true;
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
  for (const ir::Note& note : program.notes) {
    if (note.code != ir::NoteCode::kOomSizeNotStated || note.texts.empty()) continue;
    if (note.texts[0] == "arguments") stats.argument_known = false;
    if (note.texts[0] == "output") stats.output_known = stats.alias_known = false;
  }
  stats.device_footprint_known = stats.argument_known && stats.output_known && stats.alias_known;
  stats.total_allocation_known = stated.total.has_value() || stats.device_footprint_known;
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
  return stats;
}

}  // namespace memplan::analyzer
