// `memplan analyze` as one pure function: Program + options -> Analysis.
#ifndef MEMPLAN_ANALYZER_ANALYSIS_H_
#define MEMPLAN_ANALYZER_ANALYSIS_H_

#include <optional>
#include <vector>

#include "analyzer/attribution.h"
#include "analyzer/liveness.h"
#include "analyzer/memory_stats.h"
#include "analyzer/temp_arena.h"
#include "ir/program.h"

namespace memplan::analyzer {

struct Analysis {
  struct Options {
    int top_n = 10;  // how many allocations and values to list; <= 0: all
    AttributionKey attribution_key = AttributionKey::kOpName;
  };

  MemoryStats stats;
  Timeline timeline;
  std::optional<LivePeak> peak;
  std::optional<StatedPeakComparison> stated_peak;
  std::vector<TempArenaReport> temp_arenas;

  // The values attributed: those live at the peak, or, without live ranges,
  // every value (attribution_scope says which).
  std::vector<ir::ValueId> attributed_values;
  std::string attribution_scope;  // "live peak" or "all values"
  AttributionKey attribution_key = AttributionKey::kOpName;
  AttributionNode attribution;
  std::vector<ir::AllocationId> top_allocations;  // largest first, then by id
  std::vector<ir::ValueId> top_values;            // largest first, then by id

  // Requires program.values and program.allocations sorted by id (parsers
  // produce them so).
  static Analysis Run(const ir::Program& program, const Options& options);
};

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_ANALYSIS_H_
