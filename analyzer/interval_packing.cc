#include "analyzer/interval_packing.h"

#include <algorithm>
#include <climits>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "analyzer/interval_packing_order.h"
#include "analyzer/interval_packing_placed.h"

namespace memplan::analyzer {
namespace {

using namespace packing_internal;  // NOLINT: the packer's own internals


// Many chunks (long lifetimes overlapping many others): sorted by offset
// (>= 0) a byte at a time; chunks at equal offsets merge into one busy range
// whatever their order.
void RadixSortByOffset(std::vector<Chunk>& busy, std::vector<Chunk>& scratch) {
  int64_t top = 0;
  for (const Chunk& c : busy) top = std::max(top, c.offset);
  scratch.resize(busy.size());
  for (int shift = 0; shift < 64 && (top >> shift) > 0; shift += 8) {
    size_t count[257] = {};
    for (const Chunk& c : busy) ++count[((c.offset >> shift) & 255) + 1];
    for (size_t d = 1; d < 257; ++d) count[d] += count[d - 1];
    for (const Chunk& c : busy) scratch[count[(c.offset >> shift) & 255]++] = c;
    busy.swap(scratch);
  }
}

int64_t AlignUp(int64_t offset, int64_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

// The smallest free gap among `busy` holding `own_size` and, from its start,
// `size` (the lowest among equals; gaps start at the aligned end of the busy
// range below them), else the aligned top.
int64_t BestFit(int64_t own_size, int64_t size, int64_t alignment, std::vector<Chunk>& busy,
                std::vector<Chunk>& scratch) {
  if (busy.empty()) return 0;
  auto by_offset = [](const Chunk& a, const Chunk& b) { return a.offset < b.offset; };
  if (busy.size() <= 16) {
    for (size_t i = 1; i < busy.size(); ++i) {  // insertion sort: few chunks
      const Chunk c = busy[i];
      size_t j = i;
      for (; j > 0 && c.offset < busy[j - 1].offset; --j) busy[j] = busy[j - 1];
      busy[j] = c;
    }
  } else if (busy.size() <= 128) {
    std::sort(busy.begin(), busy.end(), by_offset);
  } else {
    RadixSortByOffset(busy, scratch);
  }
  int64_t best_offset = -1;
  int64_t best_gap = 0;
  auto consider = [&](int64_t from, int64_t to) {
    if (to - from < own_size || to - size < from) return;
    if (best_offset < 0 || to - from < best_gap) {
      best_offset = from;
      best_gap = to - from;
    }
  };
  int64_t free_from = 0;
  int64_t range_begin = busy.front().offset;
  int64_t range_end = busy.front().end;
  for (size_t i = 1; i < busy.size(); ++i) {
    if (busy[i].offset < range_end) {
      range_end = std::max(range_end, busy[i].end);
      continue;
    }
    consider(free_from, range_begin);
    free_from = std::max(free_from, AlignUp(range_end, alignment));
    range_begin = busy[i].offset;
    range_end = busy[i].end;
  }
  consider(free_from, range_begin);
  free_from = std::max(free_from, AlignUp(range_end, alignment));
  return best_offset >= 0 ? best_offset : free_from;
}


template <typename Tick>
int64_t Pack(const std::vector<PackingInterval>& iv, const Groups& groups, int64_t alignment,
             bool spatial, PlacedArrays<Tick>& arrays, std::vector<OrderKey>& keys,
             OrderScratch& sort) {
  Placed<Tick> placed(iv, arrays);
  std::vector<Chunk> busy, scratch;
  int64_t heap = 0;
  for (const int32_t root : Order(iv, groups, spatial, keys, sort)) {
    const size_t r = static_cast<size_t>(root);
    busy.clear();
    placed.Overlapping(iv[r].start, iv[r].end, &busy);
    for (int32_t m = groups.first_member[r]; m >= 0; m = groups.next_member[static_cast<size_t>(m)]) {
      placed.Overlapping(iv[static_cast<size_t>(m)].start, iv[static_cast<size_t>(m)].end, &busy);
    }
    const int64_t size = groups.size[r];
    const int64_t offset = BestFit(iv[r].size, size, alignment, busy, scratch);
    const Chunk chunk{offset, offset + size};
    placed.Place(r, chunk);
    for (int32_t m = groups.first_member[r]; m >= 0; m = groups.next_member[static_cast<size_t>(m)]) {
      placed.Place(static_cast<size_t>(m), chunk);
    }
    heap = std::max(heap, chunk.end);
  }
  return heap;
}


int64_t PeakOf(const std::vector<PackingInterval>& iv, const Groups& groups, PeakArrays& a) {
  // (tick, interval, is_end): starts are distinct ticks and come in index
  // order; ends are merged in by an order of their own.
  const std::vector<std::pair<int64_t, int32_t>>& ends = ByEnd(iv, a);
  std::vector<int32_t>& live_members = a.live_members;
  live_members.assign(groups.any_sharers ? iv.size() : 0, 0);
  int64_t live = 0, peak = 0;
  size_t e = 0;
  auto end_one = [&](size_t i) {
    const size_t g = static_cast<size_t>(iv[i].group);
    if (groups.any_sharers && --live_members[g] > 0) return;
    live -= groups.size[g];
  };
  for (size_t i = 0; i < iv.size(); ++i) {
    // Intervals are live through their end tick: those ending before this
    // start are gone.
    for (; e < ends.size() && ends[e].first < iv[i].start; ++e) end_one(static_cast<size_t>(ends[e].second));
    const size_t g = static_cast<size_t>(iv[i].group);
    if (!groups.any_sharers || live_members[g]++ == 0) live += groups.size[g];
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace

PackingScratch::PackingScratch() : arrays_(std::make_unique<Arrays>()) {}
PackingScratch::~PackingScratch() = default;

int64_t LiveGroupBytesPeak(const std::vector<PackingInterval>& intervals) {
  PeakArrays peak;
  return PeakOf(intervals, Groups(intervals), peak);
}

int64_t BestFitHeapSize(const std::vector<PackingInterval>& intervals, int64_t alignment) {
  PackingScratch scratch;
  return BestFitHeapSize(intervals, alignment, scratch);
}

int64_t BestFitHeapSize(const std::vector<PackingInterval>& intervals, int64_t alignment,
                        PackingScratch& scratch) {
  if (intervals.empty()) return 0;
  PackingScratch::Arrays& a = *scratch.arrays_;
  alignment = std::max<int64_t>(alignment, 1);
  a.groups.Build(intervals);
  const Groups& groups = a.groups;
  bool narrow = true;
  for (const PackingInterval& p : intervals) {
    if (p.start <= INT32_MIN || p.start >= INT32_MAX || p.end <= INT32_MIN || p.end >= INT32_MAX) {
      narrow = false;
      break;
    }
  }
  auto pack = [&](bool spatial) {
    return narrow ? Pack<int32_t>(intervals, groups, alignment, spatial, a.narrow, a.keys, a.sort)
                  : Pack<int64_t>(intervals, groups, alignment, spatial, a.wide, a.keys, a.sort);
  };
  const int64_t spatial = pack(/*spatial=*/true);
  if (spatial <= PeakOf(intervals, groups, a.peak)) return spatial;  // no packing is smaller
  return std::min(spatial, pack(/*spatial=*/false));
}

}  // namespace memplan::analyzer
