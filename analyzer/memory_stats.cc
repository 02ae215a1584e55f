#include "analyzer/memory_stats.h"

namespace memplan::analyzer {

MemoryStats ComputeMemoryStats(const ir::Program& program) {
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
