#include "analyzer/analysis.h"

#include <algorithm>

namespace memplan::analyzer {
namespace {

// An item's sort key: its size, its id and where it is in its vector.
struct SizeKey {
  int64_t size;
  int64_t id;
  size_t index;
};

// The keys of the `n` largest items (all when n <= 0), largest first, ties
// by id. Sorts the keys, not the items (a sort through pointers to 432-byte
// values missed the cache on every compare).
template <typename Item>
std::vector<SizeKey> LargestKeys(const std::vector<Item>& items, int n) {
  std::vector<SizeKey> keys;
  keys.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) keys.push_back({items[i].size, items[i].id.value(), i});
  const size_t keep = n <= 0 ? keys.size() : std::min(keys.size(), static_cast<size_t>(n));
  const auto larger = [](const SizeKey& a, const SizeKey& b) {
    if (a.size != b.size) return a.size > b.size;
    if (a.id != b.id) return a.id < b.id;
    return a.index < b.index;  // equal ids (never from a parser): a total order all the same
  };
  if (keep == keys.size()) {
    std::sort(keys.begin(), keys.end(), larger);
  } else {
    std::partial_sort(keys.begin(), keys.begin() + keep, keys.end(), larger);
    keys.resize(keep);
  }
  return keys;
}

// The ids of the `n` largest items (all when n <= 0), largest first, ties by id.
template <typename Item, typename Id>
std::vector<Id> LargestIds(const std::vector<Item>& items, int n) {
  std::vector<Id> ids;
  for (const SizeKey& key : LargestKeys(items, n)) ids.push_back(Id(key.id));
  return ids;
}

// Fills peak_groups and other_groups.
void GroupLayers(const ir::Program& program, Analysis& analysis) {
  std::vector<bool> at_peak(program.values.size(), false);
  size_t peak_count = 0;  // values at_peak (ids listed twice count once)
  if (analysis.occupied_peak) {
    // One lookup by id per value (GroupValues would look each up again);
    // ids not found are left out, as GroupValues skips them.
    std::vector<size_t> peak;
    peak.reserve(analysis.occupied_peak->values.size());
    for (ir::ValueId id : analysis.occupied_peak->values) {
      if (const ir::Value* v = program.FindValue(id)) {
        peak.push_back(static_cast<size_t>(v - program.values.data()));
        peak_count += at_peak[peak.back()] ? 0 : 1;
        at_peak[peak.back()] = true;
      }
    }
    analysis.peak_groups = GroupValuesAt(program, analysis.origins, peak);
  }
  std::vector<size_t> others;
  others.reserve(program.values.size() - peak_count);
  for (const SizeKey& key : LargestKeys(program.values, 0)) {
    if (!at_peak[key.index]) others.push_back(key.index);
  }
  analysis.other_groups = GroupValuesAt(program, analysis.origins, others);
}

}  // namespace

Analysis Analysis::Run(const ir::Program& program, const Options& options) {
  Analysis analysis;
  // The temp arena's packing first: its working arrays (events, intervals,
  // the packer's tree: several per value of the arena) are freed before the
  // per-value structures below are built, so its peak does not add to
  // theirs. It reads only the program.
  analysis.temp_arenas = SimulateTempArenas(program);
  analysis.stats = ComputeMemoryStats(program);
  analysis.timeline = ComputeTimeline(program);
  analysis.peak = ComputeLivePeak(program, analysis.timeline);
  if (analysis.peak) {
    analysis.stated_peak = CompareWithStatedPeak(program, *analysis.peak, analysis.timeline);
  }
  analysis.occupied_timeline = ComputeOccupiedTimeline(program);
  analysis.occupied_peak = OccupiedPeakOf(program, analysis.occupied_timeline);
  if (analysis.peak) analysis.occupied_at_xla_peak = OccupiedBytesAt(program, analysis.peak->step);
  analysis.origins = ResolveValueOrigins(program);
  if (analysis.peak) {
    analysis.attributed_values = analysis.peak->values;
    analysis.attribution_scope = AttributionScope::kLivePeak;
  } else {
    analysis.attributed_values.reserve(program.values.size());
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
