#include "analyzer/analysis.h"

#include <algorithm>

namespace memplan::analyzer {
namespace {

// The ids of the `n` largest items (all when n <= 0), largest first, ties by id.
template <typename Item, typename Id>
std::vector<Id> LargestIds(const std::vector<Item>& items, int n) {
  std::vector<const Item*> sorted;
  sorted.reserve(items.size());
  for (const Item& item : items) sorted.push_back(&item);
  const size_t keep = n <= 0 ? sorted.size() : std::min(sorted.size(), static_cast<size_t>(n));
  std::partial_sort(sorted.begin(), sorted.begin() + keep, sorted.end(),
                    [](const Item* a, const Item* b) {
                      if (a->size != b->size) return a->size > b->size;
                      return a->id < b->id;
                    });
  std::vector<Id> ids;
  for (size_t i = 0; i < keep; ++i) ids.push_back(sorted[i]->id);
  return ids;
}

// Fills peak_groups and other_groups.
void GroupLayers(const ir::Program& program, Analysis& analysis) {
  std::vector<bool> at_peak(program.values.size(), false);
  if (analysis.occupied_peak) {
    for (ir::ValueId id : analysis.occupied_peak->values) {
      if (const ir::Value* v = program.FindValue(id)) {
        at_peak[static_cast<size_t>(v - program.values.data())] = true;
      }
    }
    analysis.peak_groups = GroupValues(program, analysis.origins, analysis.occupied_peak->values);
  }
  std::vector<ir::ValueId> others;
  for (const ir::ValueId id : LargestIds<ir::Value, ir::ValueId>(program.values, 0)) {
    const ir::Value* v = program.FindValue(id);
    if (!at_peak[static_cast<size_t>(v - program.values.data())]) others.push_back(id);
  }
  analysis.other_groups = GroupValues(program, analysis.origins, others);
}

}  // namespace

Analysis Analysis::Run(const ir::Program& program, const Options& options) {
  Analysis analysis;
  analysis.stats = ComputeMemoryStats(program);
  analysis.timeline = ComputeTimeline(program);
  analysis.peak = ComputeLivePeak(program, analysis.timeline);
  if (analysis.peak) {
    analysis.stated_peak = CompareWithStatedPeak(program, *analysis.peak, analysis.timeline);
  }
  analysis.occupied_timeline = ComputeOccupiedTimeline(program);
  analysis.occupied_peak = OccupiedPeakOf(program, analysis.occupied_timeline);
  if (analysis.peak) analysis.occupied_at_xla_peak = OccupiedBytesAt(program, analysis.peak->step);
  analysis.temp_arenas = SimulateTempArenas(program);
  analysis.origins = ResolveValueOrigins(program);
  if (analysis.peak) {
    analysis.attributed_values = analysis.peak->values;
    analysis.attribution_scope = AttributionScope::kLivePeak;
  } else {
    for (const ir::Value& v : program.values) analysis.attributed_values.push_back(v.id);
    analysis.attribution_scope = AttributionScope::kAllValues;
  }
  analysis.attribution_key = options.attribution_key;
  analysis.attribution =
      Attribute(program, analysis.origins, analysis.attributed_values, options.attribution_key);
  analysis.top_allocations =
      LargestIds<ir::Allocation, ir::AllocationId>(program.allocations, options.top_n);
  analysis.top_values = LargestIds<ir::Value, ir::ValueId>(program.values, options.top_n);
  GroupLayers(program, analysis);
  return analysis;
}

}  // namespace memplan::analyzer
