#include "analyzer/heap_simulator.h"

#include <algorithm>
#include <climits>
#include <utility>

namespace memplan::analyzer {
namespace {

class NoFragmentationHeap : public HeapAlgorithm {
 public:
  void Alloc(ir::ValueId buffer, int64_t size) override {
    sizes_[buffer] = size;
    current_ += size;
    peak_ = std::max(peak_, current_);
  }
  void Free(ir::ValueId buffer) override {
    auto it = sizes_.find(buffer);
    if (it == sizes_.end()) return;  // a sharer owns no bytes
    current_ -= it->second;
    sizes_.erase(it);
  }
  void ShareWith(ir::ValueId, ir::ValueId, int64_t) override {}
  HeapResult Finish() override {
    HeapResult result;
    result.heap_size = peak_;
    return result;
  }

 private:
  absl::flat_hash_map<ir::ValueId, int64_t> sizes_;
  int64_t current_ = 0;
  int64_t peak_ = 0;
};

// One buffer's lifetime in ticks, inclusive. A sharer keeps its own
// lifetime; `group` is the index of the buffer it shares with (transitively;
// its own index for a buffer that was allocated).
struct BufferInterval {
  ir::ValueId buffer;
  int64_t size = 0;
  int64_t start = 0;
  int64_t end = -1;  // -1 until freed
  size_t group = 0;
};

class DecreasingSizeBestFitHeap : public HeapAlgorithm {
 public:
  DecreasingSizeBestFitHeap(int64_t alignment, PackingOrder order)
      : alignment_(std::max<int64_t>(alignment, 1)), order_(order) {}

  void Alloc(ir::ValueId buffer, int64_t size) override {
    if (size <= 0) {  // empty buffers sit at offset 0 and take no room
      empty_.push_back(buffer);
      return;
    }
    const size_t i = intervals_.size();
    index_[buffer] = i;
    intervals_.push_back({buffer, size, clock_++, -1, i});
    members_.emplace_back();
  }

  void Free(ir::ValueId buffer) override {
    auto it = index_.find(buffer);
    if (it == index_.end()) return;
    BufferInterval& interval = intervals_[it->second];
    if (interval.end < 0) interval.end = clock_++;
  }

  void ShareWith(ir::ValueId buffer, ir::ValueId canonical, int64_t size) override {
    auto it = index_.find(canonical);
    if (it == index_.end()) {  // sharing with nothing known: a buffer of its own
      Alloc(buffer, size);
      return;
    }
    const size_t group = intervals_[it->second].group;
    const size_t i = intervals_.size();
    index_[buffer] = i;
    intervals_.push_back({buffer, std::max<int64_t>(size, 0), clock_++, -1, group});
    members_.emplace_back();
    members_[group].push_back(i);
  }

  HeapResult Finish() override {
    for (BufferInterval& interval : intervals_) {
      if (interval.end < 0) interval.end = clock_;
    }
    HeapResult result;
    for (ir::ValueId buffer : empty_) result.chunks[buffer] = HeapChunk{0, 0};
    PlacedIntervals placed(intervals_);
    std::vector<HeapChunk> busy;
    for (size_t group : Order()) {
      const int64_t size = GroupSize(group);
      busy.clear();
      placed.Overlapping(intervals_[group].start, intervals_[group].end, &busy);
      for (size_t member : members_[group]) {
        placed.Overlapping(intervals_[member].start, intervals_[member].end, &busy);
      }
      const HeapChunk chunk{BestFitOffset(intervals_[group].size, size, busy), size};
      placed.Place(group, chunk);
      result.chunks[intervals_[group].buffer] = chunk;
      for (size_t member : members_[group]) {
        placed.Place(member, chunk);
        result.chunks[intervals_[member].buffer] = chunk;
      }
      result.heap_size = std::max(result.heap_size, chunk.end());
    }
    return result;
  }

 private:
  // The largest size among a group's buffers: its chunk's size.
  int64_t GroupSize(size_t group) const {
    int64_t size = intervals_[group].size;
    for (size_t member : members_[group]) size = std::max(size, intervals_[member].size);
    return size;
  }

  // The groups (allocated buffers) in placement order.
  std::vector<size_t> Order() const {
    struct Key {
      int64_t first;
      int64_t second;
      ir::ValueId buffer;
      size_t group;
    };
    std::vector<Key> keys;
    for (size_t i = 0; i < intervals_.size(); ++i) {
      const BufferInterval& a = intervals_[i];
      if (a.group != i) continue;
      if (order_ == PackingOrder::kSpatial) {
        keys.push_back({-a.size, a.start - a.end, a.buffer, i});
      } else {
        int64_t lo = a.start;
        int64_t hi = a.end;
        for (size_t member : members_[i]) {
          lo = std::min(lo, intervals_[member].start);
          hi = std::max(hi, intervals_[member].end);
        }
        keys.push_back({lo - hi, -a.size, a.buffer, i});
      }
    }
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
      if (a.first != b.first) return a.first < b.first;
      if (a.second != b.second) return a.second < b.second;
      return a.buffer < b.buffer;
    });
    std::vector<size_t> order;
    order.reserve(keys.size());
    for (const Key& k : keys) order.push_back(k.group);
    return order;
  }

  // Chunks of already placed intervals, found by lifetime overlap in
  // O(log n + k): intervals sorted by start under a segment tree holding the
  // latest end among placed ones.
  class PlacedIntervals {
   public:
    explicit PlacedIntervals(const std::vector<BufferInterval>& intervals) {
      std::vector<size_t> by_start(intervals.size());
      for (size_t i = 0; i < intervals.size(); ++i) by_start[i] = i;
      std::sort(by_start.begin(), by_start.end(), [&](size_t a, size_t b) {
        return intervals[a].start < intervals[b].start;
      });
      starts_.resize(intervals.size());
      ends_.resize(intervals.size());
      rank_.resize(intervals.size());
      for (size_t r = 0; r < by_start.size(); ++r) {
        starts_[r] = intervals[by_start[r]].start;
        ends_[r] = intervals[by_start[r]].end;
        rank_[by_start[r]] = r;
      }
      while (leaves_ < intervals.size()) leaves_ *= 2;
      max_end_.assign(2 * leaves_, kNone);
      chunks_.resize(intervals.size());
    }

    void Place(size_t interval, const HeapChunk& chunk) {
      const size_t r = rank_[interval];
      chunks_[r] = chunk;
      for (size_t node = r + leaves_; node >= 1; node /= 2) {
        max_end_[node] = std::max(max_end_[node], ends_[r]);
      }
    }

    // Appends the chunks of placed intervals with start <= end and
    // end >= start.
    void Overlapping(int64_t start, int64_t end, std::vector<HeapChunk>* out) const {
      const size_t count = static_cast<size_t>(
          std::upper_bound(starts_.begin(), starts_.end(), end) - starts_.begin());
      if (count > 0) Collect(1, 0, leaves_, count, start, out);
    }

   private:
    static constexpr int64_t kNone = INT64_MIN;

    void Collect(size_t node, size_t lo, size_t hi, size_t count, int64_t start,
                 std::vector<HeapChunk>* out) const {
      if (lo >= count || max_end_[node] < start) return;
      if (hi - lo == 1) {
        out->push_back(chunks_[lo]);
        return;
      }
      const size_t mid = (lo + hi) / 2;
      Collect(2 * node, lo, mid, count, start, out);
      Collect(2 * node + 1, mid, hi, count, start, out);
    }

    std::vector<size_t> rank_;
    std::vector<int64_t> starts_;
    std::vector<int64_t> ends_;
    std::vector<HeapChunk> chunks_;
    std::vector<int64_t> max_end_;
    size_t leaves_ = 1;
  };

  int64_t Align(int64_t offset) const {
    return (offset + alignment_ - 1) / alignment_ * alignment_;
  }

  // Where a group of `size` bytes (its canonical buffer alone: `own_size`)
  // goes among the `busy` chunks: the free gaps lie between the merged busy
  // ranges, each starting at the aligned end of the range below it (the
  // first at 0, the last unbounded); a gap is a candidate when it holds
  // `own_size` and, from its start, `size`; the smallest candidate wins, the
  // lowest among equals.
  int64_t BestFitOffset(int64_t own_size, int64_t size, std::vector<HeapChunk>& busy) const {
    if (busy.empty()) return 0;
    std::sort(busy.begin(), busy.end(),
              [](const HeapChunk& a, const HeapChunk& b) { return a.offset < b.offset; });
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
    int64_t range_end = busy.front().end();
    for (size_t i = 1; i < busy.size(); ++i) {
      if (busy[i].offset < range_end) {
        range_end = std::max(range_end, busy[i].end());
        continue;
      }
      consider(free_from, range_begin);
      free_from = std::max(free_from, Align(range_end));
      range_begin = busy[i].offset;
      range_end = busy[i].end();
    }
    consider(free_from, range_begin);
    free_from = std::max(free_from, Align(range_end));
    return best_offset >= 0 ? best_offset : free_from;
  }

  int64_t alignment_;
  PackingOrder order_;
  int64_t clock_ = 0;
  std::vector<BufferInterval> intervals_;
  std::vector<std::vector<size_t>> members_;  // per allocated buffer: its sharers
  std::vector<ir::ValueId> empty_;
  absl::flat_hash_map<ir::ValueId, size_t> index_;
};

// Several algorithms fed the same calls; the smallest heap wins, the first
// among equals.
class SmallestOfHeap : public HeapAlgorithm {
 public:
  explicit SmallestOfHeap(std::vector<std::unique_ptr<HeapAlgorithm>> algorithms)
      : algorithms_(std::move(algorithms)) {}
  void Alloc(ir::ValueId buffer, int64_t size) override {
    for (auto& a : algorithms_) a->Alloc(buffer, size);
  }
  void Free(ir::ValueId buffer) override {
    for (auto& a : algorithms_) a->Free(buffer);
  }
  void ShareWith(ir::ValueId buffer, ir::ValueId canonical, int64_t size) override {
    for (auto& a : algorithms_) a->ShareWith(buffer, canonical, size);
  }
  HeapResult Finish() override {
    HeapResult best;
    bool first = true;
    for (auto& a : algorithms_) {
      HeapResult result = a->Finish();
      if (first || result.heap_size < best.heap_size) best = std::move(result);
      first = false;
    }
    return best;
  }

 private:
  std::vector<std::unique_ptr<HeapAlgorithm>> algorithms_;
};

}  // namespace

std::unique_ptr<HeapAlgorithm> MakeNoFragmentationHeap() {
  return std::make_unique<NoFragmentationHeap>();
}

std::unique_ptr<HeapAlgorithm> MakeDecreasingSizeBestFitHeap(int64_t alignment,
                                                             PackingOrder order) {
  return std::make_unique<DecreasingSizeBestFitHeap>(alignment, order);
}

std::unique_ptr<HeapAlgorithm> MakeDecreasingSizeBestFitHeap(int64_t alignment) {
  std::vector<std::unique_ptr<HeapAlgorithm>> both;
  both.push_back(MakeDecreasingSizeBestFitHeap(alignment, PackingOrder::kSpatial));
  both.push_back(MakeDecreasingSizeBestFitHeap(alignment, PackingOrder::kTemporal));
  return std::make_unique<SmallestOfHeap>(std::move(both));
}

}  // namespace memplan::analyzer
