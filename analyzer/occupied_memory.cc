#include "analyzer/occupied_memory.h"

#include <algorithm>
#include <vector>

#include "analyzer/value_category.h"
#include "analyzer/value_order.h"

namespace memplan::analyzer {
namespace {

bool Counted(const ir::Value& value) {
  return value.live_range.has_value() && value.allocation.valid();
}

// One value as a range of a flat address space where every allocation has
// its own disjoint span: [begin, end).
struct Extent {
  int64_t begin = 0;
  int64_t end = 0;
  int category = 0;
};

// The counted values' extents, by position in program.values (empty extent
// for values not counted). Allocation a starts at the sum of the sizes of
// the allocations before it, widened to hold any value that overhangs it.
std::vector<Extent> Extents(const ir::Program& program) {
  std::vector<int64_t> span(program.allocations.size(), 0);
  for (size_t i = 0; i < program.allocations.size(); ++i) span[i] = program.allocations[i].size;
  auto index_of = [&](ir::AllocationId id) -> std::optional<size_t> {
    const ir::Allocation* a = program.FindAllocation(id);
    if (a == nullptr) return std::nullopt;
    return static_cast<size_t>(a - program.allocations.data());
  };
  for (const ir::Value& v : program.values) {
    if (!Counted(v)) continue;
    if (auto i = index_of(v.allocation)) {
      span[*i] = std::max(span[*i], std::max<int64_t>(v.offset, 0) + std::max<int64_t>(v.size, 0));
    }
  }
  std::vector<int64_t> base(span.size(), 0);
  for (size_t i = 1; i < span.size(); ++i) base[i] = base[i - 1] + span[i - 1];
  std::vector<Extent> extents(program.values.size());
  for (size_t k = 0; k < program.values.size(); ++k) {
    const ir::Value& v = program.values[k];
    if (!Counted(v)) continue;
    auto i = index_of(v.allocation);
    if (!i || v.size <= 0) continue;
    const int64_t begin = base[*i] + std::max<int64_t>(v.offset, 0);
    extents[k] = {begin, begin + v.size,
                  static_cast<int>(CategoryOf(program.allocations[*i]))};
  }
  return extents;
}

// The covered length of a union of ranges under insertions and removals of
// whole ranges (a segment tree over the ranges' distinct end points).
class CoverTree {
 public:
  explicit CoverTree(std::vector<int64_t> points) : points_(std::move(points)) {
    std::sort(points_.begin(), points_.end());
    points_.erase(std::unique(points_.begin(), points_.end()), points_.end());
    const size_t segments = points_.size() > 1 ? points_.size() - 1 : 1;
    count_.assign(4 * segments, 0);
    covered_.assign(4 * segments, 0);
  }
  // delta +1 inserts [begin, end), -1 removes an inserted one.
  void Add(int64_t begin, int64_t end, int delta) {
    if (begin >= end || points_.size() < 2) return;
    Update(1, 0, points_.size() - 1, Index(begin), Index(end), delta);
  }
  int64_t covered() const { return points_.size() < 2 ? 0 : covered_[1]; }

 private:
  size_t Index(int64_t point) const {
    return static_cast<size_t>(std::lower_bound(points_.begin(), points_.end(), point) -
                               points_.begin());
  }
  // Node `node` spans points [lo, hi]; the update covers [from, to).
  void Update(size_t node, size_t lo, size_t hi, size_t from, size_t to, int delta) {
    if (to <= lo || hi <= from) return;
    if (from <= lo && hi <= to) {
      count_[node] += delta;
    } else {
      const size_t mid = (lo + hi) / 2;
      Update(2 * node, lo, mid, from, to, delta);
      Update(2 * node + 1, mid, hi, from, to, delta);
    }
    if (count_[node] > 0) {
      covered_[node] = points_[hi] - points_[lo];
    } else if (hi - lo == 1) {
      covered_[node] = 0;
    } else {
      covered_[node] = covered_[2 * node] + covered_[2 * node + 1];
    }
  }

  std::vector<int64_t> points_;
  std::vector<int> count_;
  std::vector<int64_t> covered_;
};

}  // namespace

Timeline ComputeOccupiedTimeline(const ir::Program& program) {
  Timeline timeline;
  timeline.last_step = program.schedule.max_time;
  if (!program.has_live_ranges) return timeline;
  const std::vector<Extent> extents = Extents(program);
  std::vector<std::vector<int64_t>> points(kNumValueCategories);
  struct Event {
    ir::ScheduleStep step;
    bool is_start;
    size_t value;
  };
  // Counted first, so that each array is reserved exactly.
  std::vector<size_t> per_category(kNumValueCategories, 0);
  for (const Extent& e : extents) per_category[e.category] += e.begin < e.end ? 1 : 0;
  size_t with_extent = 0;
  for (int c = 0; c < kNumValueCategories; ++c) {
    points[c].reserve(2 * per_category[c]);
    with_extent += per_category[c];
  }
  std::vector<Event> events;
  events.reserve(2 * with_extent);
  for (size_t k = 0; k < extents.size(); ++k) {
    const Extent& e = extents[k];
    if (e.begin >= e.end) continue;
    points[e.category].push_back(e.begin);
    points[e.category].push_back(e.end);
    const ir::LiveRange& range = *program.values[k].live_range;
    events.push_back({range.start, true, k});
    events.push_back({range.end + 1, false, k});
    timeline.last_step = std::max(timeline.last_step, range.end);
  }
  std::vector<CoverTree> trees;
  for (auto& p : points) trees.emplace_back(std::move(p));
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.step != b.step) return a.step < b.step;
    return a.value < b.value;
  });
  size_t steps = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    steps += i == 0 || events[i].step != events[i - 1].step ? 1 : 0;
  }
  timeline.points.reserve(steps);
  for (size_t i = 0; i < events.size();) {
    const ir::ScheduleStep step = events[i].step;
    for (; i < events.size() && events[i].step == step; ++i) {
      const Extent& e = extents[events[i].value];
      trees[e.category].Add(e.begin, e.end, events[i].is_start ? 1 : -1);
    }
    TimelinePoint point;
    point.step = step;
    for (int c = 0; c < kNumValueCategories; ++c) point.bytes[c] = trees[c].covered();
    timeline.points.push_back(point);
  }
  return timeline;
}

std::optional<LivePeak> OccupiedPeakOf(const ir::Program& program, const Timeline& occupied) {
  if (!program.has_live_ranges || occupied.points.empty()) return std::nullopt;
  const TimelinePoint* best = nullptr;
  for (const TimelinePoint& point : occupied.points) {
    if (best == nullptr || point.total() > best->total()) best = &point;
  }
  LivePeak peak;
  peak.bytes = best->total();
  peak.step = best->step;
  peak.bytes_by_category = best->bytes;
  peak.instruction = ScheduledAt(program, peak.step);
  peak.values = ValuesLiveAt(program, peak.step);
  return peak;
}

std::optional<LivePeak> ComputeOccupiedPeak(const ir::Program& program) {
  return OccupiedPeakOf(program, ComputeOccupiedTimeline(program));
}

int64_t OccupiedBytesAt(const ir::Program& program, ir::ScheduleStep step) {
  const std::vector<Extent> extents = Extents(program);
  std::vector<std::pair<int64_t, int64_t>> live;
  for (size_t k = 0; k < extents.size(); ++k) {
    const Extent& e = extents[k];
    if (e.begin < e.end && program.values[k].live_range->Contains(step)) {
      live.emplace_back(e.begin, e.end);
    }
  }
  std::sort(live.begin(), live.end());
  int64_t total = 0;
  int64_t cursor = INT64_MIN;
  for (const auto& [begin, end] : live) {
    const int64_t from = std::max(begin, cursor);
    if (end > from) total += end - from;
    cursor = std::max(cursor, end);
  }
  return total;
}

}  // namespace memplan::analyzer
