// `memplan analyze` as one pure function: Program + options -> Analysis.
#ifndef MEMPLAN_ANALYZER_ANALYSIS_H_
#define MEMPLAN_ANALYZER_ANALYSIS_H_

#include <optional>
#include <vector>

#include "analyzer/attribution.h"
#include "analyzer/liveness.h"
#include "analyzer/memory_stats.h"
#include "analyzer/occupied_memory.h"
#include "analyzer/temp_arena.h"
#include "analyzer/value_groups.h"
#include "ir/program.h"

namespace memplan::analyzer {

struct Analysis {
  struct Options {
    int top_n = 10;  // how many allocations and values to list; <= 0: all
    AttributionKey attribution_key = AttributionKey::kOpName;
  };

  MemoryStats stats;
  Timeline timeline;
  // XLA's live peak (HloLiveRange's rule: the sizes of the values live at a
  // step, added), which counts memory shared by two live values twice.
  std::optional<LivePeak> peak;
  // The headline: the most memory live values occupy at one step, shared
  // bytes counted once (occupied_memory.h); never above the total allocation.
  std::optional<LivePeak> occupied_peak;
  // The memory live values occupy at each step (occupied_peak's step
  // function), by category.
  Timeline occupied_timeline;
  // Memory occupied at XLA's peak step; peak->bytes minus this is what that
  // step counts twice.
  int64_t occupied_at_xla_peak = 0;
  std::optional<StatedPeakComparison> stated_peak;
  std::vector<TempArenaReport> temp_arenas;

  // Which instruction's metadata stands for each value (source resolution),
  // in the order of program.values. Every view reads origins from here.
  std::vector<ValueOrigin> origins;

  // The values attributed: those live at the peak, or, without live ranges,
  // every value (attribution_scope says which).
  std::vector<ir::ValueId> attributed_values;
  enum class AttributionScope { kLivePeak, kAllValues };
  AttributionScope attribution_scope = AttributionScope::kAllValues;
  AttributionKey attribution_key = AttributionKey::kOpName;
  AttributionNode attribution;
  std::vector<ir::AllocationId> top_allocations;  // largest first, then by id
  std::vector<ir::ValueId> top_values;            // largest first, then by id

  // The values live at the headline peak (occupied_peak), grouped into
  // identical layers (value_groups.h); empty without live ranges.
  std::vector<ValueGroup> peak_groups;
  // Every other value, grouped the same way: those not live at that peak, or
  // every value where there is no peak. Members largest first, then by id.
  std::vector<ValueGroup> other_groups;

  // Requires program.values and program.allocations sorted by id (parsers
  // produce them so).
  static Analysis Run(const ir::Program& program, const Options& options);

  // The origin of `value`, one of the analysed program's values.
  const ValueOrigin& OriginOf(const ir::Program& program, const ir::Value& value) const {
    return origins[static_cast<size_t>(&value - program.values.data())];
  }
};

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_ANALYSIS_H_
