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
  void ShareWith(ir::ValueId, ir::ValueId) override {}
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

// A buffer's lifetime in ticks, inclusive, and the buffers living in it.
struct BufferInterval {
  ir::ValueId buffer;
  int64_t size = 0;
  int64_t start = 0;
  int64_t end = 0;
  bool open = true;
  std::vector<ir::ValueId> sharers;
};

class DecreasingSizeBestFitHeap : public HeapAlgorithm {
 public:
  explicit DecreasingSizeBestFitHeap(int64_t alignment) : alignment_(std::max<int64_t>(alignment, 1)) {}

  void Alloc(ir::ValueId buffer, int64_t size) override {
    const int64_t now = clock_++;
    index_[buffer] = intervals_.size();
    intervals_.push_back({buffer, RoundUp(size), now, now, true, {}});
  }

  void Free(ir::ValueId buffer) override {
    const int64_t now = clock_++;
    auto it = index_.find(buffer);
    if (it == index_.end()) return;
    BufferInterval& interval = intervals_[it->second];
    interval.end = std::max(interval.end, now);
  }

  void ShareWith(ir::ValueId buffer, ir::ValueId canonical) override {
    const int64_t now = clock_++;
    auto it = index_.find(canonical);
    if (it == index_.end()) {  // sharing with nothing known: a buffer of its own
      index_[buffer] = intervals_.size();
      intervals_.push_back({buffer, 0, now, now, true, {}});
      return;
    }
    intervals_[it->second].sharers.push_back(buffer);
    intervals_[it->second].end = std::max(intervals_[it->second].end, now);
    index_[buffer] = it->second;
  }

  HeapResult Finish() override {
    // Largest first, then longest, then by buffer id. The keys sit next to
    // the index so the sort reads no interval (same comparisons, same order).
    struct Key {
      int64_t size;
      int64_t length;
      ir::ValueId buffer;
      size_t index;
    };
    std::vector<Key> keys(intervals_.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      const BufferInterval& a = intervals_[i];
      keys[i] = {a.size, a.end - a.start, a.buffer, i};
    }
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
      if (a.size != b.size) return a.size > b.size;
      if (a.length != b.length) return a.length > b.length;
      return a.buffer < b.buffer;
    });
    std::vector<size_t> order(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].index;
    keys = {};
    PlacedIntervals placed(intervals_);
    HeapResult result;
    std::vector<HeapChunk> busy;
    for (size_t i : order) {
      const BufferInterval& interval = intervals_[i];
      placed.Overlapping(interval.start, interval.end, &busy);
      const HeapChunk chunk{BestFitOffset(interval.size, busy), interval.size};
      placed.Place(i, chunk);
      result.heap_size = std::max(result.heap_size, chunk.end());
      result.chunks[interval.buffer] = chunk;
      for (ir::ValueId sharer : interval.sharers) result.chunks[sharer] = chunk;
    }
    return result;
  }

 private:
  // Chunks of already placed intervals, found by lifetime overlap in
  // O(log n + k): intervals sorted by start under a segment tree holding the
  // latest end among placed ones.
  class PlacedIntervals {
   public:
    explicit PlacedIntervals(const std::vector<BufferInterval>& intervals) {
      by_start_.resize(intervals.size());
      for (size_t i = 0; i < intervals.size(); ++i) by_start_[i] = i;
      std::sort(by_start_.begin(), by_start_.end(), [&](size_t a, size_t b) {
        return intervals[a].start < intervals[b].start;
      });
      starts_.resize(intervals.size());
      ends_.resize(intervals.size());
      rank_.resize(intervals.size());
      for (size_t r = 0; r < by_start_.size(); ++r) {
        starts_[r] = intervals[by_start_[r]].start;
        ends_[r] = intervals[by_start_[r]].end;
        rank_[by_start_[r]] = r;
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

    // Chunks of placed intervals with start <= end and end >= start.
    void Overlapping(int64_t start, int64_t end, std::vector<HeapChunk>* out) const {
      out->clear();
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

    std::vector<size_t> by_start_;
    std::vector<size_t> rank_;
    std::vector<int64_t> starts_;
    std::vector<int64_t> ends_;
    std::vector<HeapChunk> chunks_;
    std::vector<int64_t> max_end_;
    size_t leaves_ = 1;
  };

  int64_t RoundUp(int64_t size) const { return (size + alignment_ - 1) / alignment_ * alignment_; }

  // The start of the smallest free gap between `busy` chunks that holds
  // `size` bytes; else the end of the highest of them.
  static int64_t BestFitOffset(int64_t size, std::vector<HeapChunk>& busy) {
    std::sort(busy.begin(), busy.end(),
              [](const HeapChunk& a, const HeapChunk& b) { return a.offset < b.offset; });
    int64_t best_offset = -1;
    int64_t best_gap = 0;
    int64_t cursor = 0;
    for (const HeapChunk& chunk : busy) {
      const int64_t gap = chunk.offset - cursor;
      if (gap >= size && (best_offset < 0 || gap < best_gap)) {
        best_offset = cursor;
        best_gap = gap;
      }
      cursor = std::max(cursor, chunk.end());
    }
    return best_offset >= 0 ? best_offset : cursor;
  }

  int64_t alignment_;
  int64_t clock_ = 0;
  std::vector<BufferInterval> intervals_;
  absl::flat_hash_map<ir::ValueId, size_t> index_;
};

}  // namespace

std::unique_ptr<HeapAlgorithm> MakeNoFragmentationHeap() {
  return std::make_unique<NoFragmentationHeap>();
}

std::unique_ptr<HeapAlgorithm> MakeDecreasingSizeBestFitHeap(int64_t alignment) {
  return std::make_unique<DecreasingSizeBestFitHeap>(alignment);
}

}  // namespace memplan::analyzer
