// The temp arena, simulated: for each preallocated-temp allocation, pack its
// values with our heap algorithms and hold the result against the size XLA
// chose. Lifetimes come from XLA's heap-simulator trace when the input has
// one (HloProto), else from the live ranges (text dumps).
#ifndef MEMPLAN_ANALYZER_TEMP_ARENA_H_
#define MEMPLAN_ANALYZER_TEMP_ARENA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"

namespace memplan::analyzer {

struct TempArenaReport {
  ir::AllocationId allocation;
  int64_t xla_size = 0;          // the allocation's size
  int64_t best_fit_size = 0;     // our decreasing-size best-fit packing
  int64_t lower_bound = 0;       // most bytes live at once (no fragmentation)
                                 // (both with untraced_prefix_bytes added)
  int64_t alignment = 1;         // inferred from XLA's offsets
  int64_t buffers = 0;           // values simulated
  std::string lifetimes_from;    // "heap-simulator trace" or "live ranges"
  // With XLA's own offsets, the highest byte the traced buffers reach
  // (equals xla_size when the trace is complete); trace inputs only.
  std::optional<int64_t> trace_replay_size;
  // Trace inputs: the allocation's values the trace does not name (XLA's
  // tuple index tables on CPU). When they all lie below every traced buffer,
  // the bytes below XLA's heap (prefix); when they all lie at or above the
  // end of every traced buffer, the bytes from that end to theirs (suffix);
  // 0 otherwise. best_fit_size and lower_bound count those bytes as XLA
  // placed them, around the heap simulated from the trace.
  int64_t untraced_values = 0;
  int64_t untraced_prefix_bytes = 0;
  int64_t untraced_suffix_bytes = 0;

  // (best_fit - xla) / xla, in percent; signed.
  double BestFitErrorPercent() const;
  // (xla - lower_bound) / xla, in percent: memory lost to fragmentation.
  double FragmentationPercent() const;
};

// One report per preallocated-temp allocation whose lifetimes are known, by
// allocation id.
std::vector<TempArenaReport> SimulateTempArenas(const ir::Program& program);

// The largest power of two (up to 4096) dividing every value offset in
// `allocation`; 1 when nothing says more.
int64_t InferAlignment(const ir::Program& program, const ir::Allocation& allocation);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_TEMP_ARENA_H_
