// Internal to analyzer/interval_packing*.cc: the packer's lifetime index
// (which placed intervals overlap a lifetime), its groups, its placement
// orders and the by-end order of the live-bytes peak, shared by
// BestFitHeapSize and its recording twin (interval_packing_forms.cc).
// Nothing here reads a chunk's fields: callers may store what they like in
// them.
#ifndef MEMPLAN_ANALYZER_INTERVAL_PACKING_PLACED_H_
#define MEMPLAN_ANALYZER_INTERVAL_PACKING_PLACED_H_

#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "analyzer/interval_packing.h"
#include "analyzer/interval_packing_order.h"

namespace memplan::analyzer::packing_internal {

struct Chunk {
  int64_t offset = 0;
  int64_t end = 0;
};

// The groups (allocated intervals) and their sharers, by index.
struct Groups {
  std::vector<int32_t> roots;         // allocated intervals, in index order
  std::vector<int64_t> size;          // per interval: its group's chunk size (roots only)
  std::vector<int32_t> first_member;  // per interval: first sharer (roots only); -1 none
  std::vector<int32_t> next_member;   // per interval: next sharer of its group; -1 none
  bool any_sharers = false;
  std::vector<int32_t> last;  // working array of Build

  Groups() = default;
  explicit Groups(const std::vector<PackingInterval>& iv) { Build(iv); }

  // Rebuilds every field for `iv` (the arrays' storage is reused).
  void Build(const std::vector<PackingInterval>& iv) {
    roots.clear();
    size.assign(iv.size(), 0);
    first_member.assign(iv.size(), -1);
    next_member.assign(iv.size(), -1);
    last.assign(iv.size(), -1);
    any_sharers = false;
    for (size_t i = 0; i < iv.size(); ++i) {
      const size_t g = static_cast<size_t>(iv[i].group);
      if (g == i) {
        roots.push_back(static_cast<int32_t>(i));
        size[i] = std::max(size[i], iv[i].size);
        continue;
      }
      any_sharers = true;
      size[g] = std::max(size[g], iv[i].size);
      if (last[g] < 0) {
        first_member[g] = static_cast<int32_t>(i);
      } else {
        next_member[static_cast<size_t>(last[g])] = static_cast<int32_t>(i);
      }
      last[g] = static_cast<int32_t>(i);
    }
  }
};

// How many intervals start at or before a tick: from a table by tick when
// ticks run from 0 to at most 4n + 1024 (the streams callers write: about
// two ticks per interval), else by binary search.
class StartIndex {
 public:
  StartIndex(const std::vector<int64_t>& starts, std::vector<uint32_t>& started_by)
      : starts_(starts), started_by_(started_by) {
    started_by_.clear();  // reused: dense() reads its emptiness
    int64_t last = -1;
    for (int64_t t : starts) last = std::max(last, t);
    if (!starts.empty() && starts.front() >= 0 && last >= 0 &&
        static_cast<uint64_t>(last) <= 4 * static_cast<uint64_t>(starts.size()) + 1024) {
      started_by_.assign(static_cast<size_t>(last) + 1, 0);
      size_t k = 0;
      for (size_t t = 0; t < started_by_.size(); ++t) {
        while (k < starts.size() && starts[k] <= static_cast<int64_t>(t)) ++k;
        started_by_[t] = static_cast<uint32_t>(k);
      }
    }
  }
  bool dense() const { return !started_by_.empty(); }
  // Intervals with start <= tick (a prefix of the indices).
  size_t StartedBy(int64_t tick) const {
    if (tick < 0 && dense()) return 0;
    if (dense()) {
      return static_cast<size_t>(tick) < started_by_.size()
                 ? started_by_[static_cast<size_t>(tick)]
                 : starts_.size();
    }
    return static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), tick) -
                               starts_.begin());
  }

 private:
  const std::vector<int64_t>& starts_;
  std::vector<uint32_t>& started_by_;  // by tick: intervals starting at or before it
};

// Placed intervals found by lifetime overlap, among intervals indexed in
// start order: a segment tree over the indices holding the latest end among
// placed ones finds every placed interval with start <= e and end >= s in
// O(log n + k); a subtree whose intervals are all placed and all end at or
// after s is copied whole (its chunks are contiguous by index). `Tick` holds
// the ends in the tree: int32_t when every tick lies strictly between
// INT32_MIN and INT32_MAX (a tree half the size), else int64_t.
template <typename Tick>
class OverlapTree {
 public:
  explicit OverlapTree(size_t n) : chunk_(n) {
    while (leaves_ < n) leaves_ *= 2;
    node_.assign(2 * leaves_, Node{});
    for (size_t i = 0; i < n; ++i) node_[i + leaves_].min_end = kUnplaced;
    for (size_t node = leaves_ - 1; node >= 1; --node) {
      node_[node].min_end = std::min(node_[2 * node].min_end, node_[2 * node + 1].min_end);
    }
  }

  void Place(size_t i, Chunk chunk, int64_t end_tick) {
    chunk_[i] = chunk;
    const Tick end = static_cast<Tick>(end_tick);
    size_t node = i + leaves_;
    node_[node].max_end = end;
    node_[node].min_end = end;
    // Up the tree while a node's fields change: when neither does, no
    // ancestor's does either.
    for (node /= 2; node >= 1; node /= 2) {
      Node& n = node_[node];
      const Tick max_end = std::max(n.max_end, end);
      const Tick min_end = std::min(node_[2 * node].min_end, node_[2 * node + 1].min_end);
      if (max_end == n.max_end && min_end == n.min_end) break;
      n.max_end = max_end;
      n.min_end = min_end;
    }
  }

  // Appends the chunks of placed intervals among the first `count` that end
  // at or after `start`.
  void Collect(size_t count, int64_t start, std::vector<Chunk>* out) const {
    if (count > 0) Collect(1, 0, leaves_, count, start, out);
  }

 private:
  static constexpr Tick kNone = std::numeric_limits<Tick>::min();
  // An unplaced interval's end as min_end sees it: below every tick, so a
  // subtree's min_end reaches a query's start tick (> the lowest Tick) only when all its
  // intervals are placed.
  static constexpr Tick kUnplaced = std::numeric_limits<Tick>::min();
  struct Node {
    Tick max_end = kNone;                              // among placed intervals
    Tick min_end = std::numeric_limits<Tick>::max();  // kUnplaced while any is unplaced
  };

  void Collect(size_t node, size_t lo, size_t hi, size_t count, int64_t start,
               std::vector<Chunk>* out) const {
    while (true) {
      const Node& n = node_[node];
      if (lo >= count || n.max_end < start) return;
      if (hi <= count && n.min_end >= start) {
        out->insert(out->end(), chunk_.begin() + static_cast<long>(lo),
                    chunk_.begin() + static_cast<long>(hi));
        return;
      }
      if (hi - lo == 1) {
        out->push_back(chunk_[lo]);
        return;
      }
      const size_t mid = (lo + hi) / 2;
      Collect(2 * node, lo, mid, count, start, out);
      node = 2 * node + 1;
      lo = mid;
    }
  }

  std::vector<Chunk> chunk_;
  std::vector<Node> node_;
  size_t leaves_ = 1;
};

// Placed intervals found by lifetime overlap. Most intervals are short (at
// most kShort ticks): a short placed interval overlapping [s, e] starts in
// [s - span, e], span the longest short lifetime (at most kShort), so when
// ticks are dense (StartIndex) and that index range is small, a scan of the
// placed ends there finds them, a few cache lines instead of a walk down
// the tree. Long intervals sit in a tree of their own; queries whose range
// of short candidates is wide use a tree of the short ones (kept only when
// some query needs it). The chunks found are the same set either way (their
// order differs; BestFit sorts them by offset).
// Placed's per-interval arrays, kept between packings (PackingScratch) so
// that a caller packing many lists reuses their pages. Every field is
// rewritten (or cleared) before it is read.
template <typename Tick>
struct PlacedArrays {
  std::vector<int64_t> starts;
  std::vector<uint32_t> started_by;
  std::vector<int32_t> long_index;
  std::vector<int32_t> long_before;
  std::vector<Tick> ends;
  std::vector<Chunk> chunk;
};

template <typename Tick>
class Placed {
 public:
  Placed(const std::vector<PackingInterval>& iv, PlacedArrays<Tick>& a)
      : iv_(iv), starts_(Starts(iv, a.starts)), index_(starts_, a.started_by),
        long_index_(a.long_index), long_before_(a.long_before), ends_(a.ends), chunk_(a.chunk) {
    long_index_.assign(iv.size(), -1);
    int32_t longs = 0;
    if (index_.dense()) {
      ends_.assign(iv.size(), kUnplaced);
      chunk_.resize(iv.size());
      for (size_t i = 0; i < iv.size(); ++i) {
        if (iv[i].end - iv[i].start > kShort) {
          long_index_[i] = longs++;
        } else {
          short_span_ = std::max(short_span_, iv[i].end - iv[i].start);
        }
      }
      // A tree of the short ones only when some query would scan widely.
      for (size_t i = 0; i < iv.size(); ++i) {
        if (Wide(iv[i].start, iv[i].end)) {
          short_tree_.emplace(iv.size());
          break;
        }
      }
    } else {  // ticks spread out: every interval in the tree
      for (size_t i = 0; i < iv.size(); ++i) long_index_[i] = longs++;
    }
    long_before_.assign(iv.size() + 1, 0);
    for (size_t i = 0; i < iv.size(); ++i) {
      long_before_[i + 1] = long_before_[i] + (long_index_[i] >= 0 ? 1 : 0);
    }
    long_tree_.emplace(static_cast<size_t>(longs));
  }

  void Place(size_t i, Chunk chunk) {
    const int64_t end = iv_[i].end;
    if (long_index_[i] >= 0) {
      long_tree_->Place(static_cast<size_t>(long_index_[i]), chunk, end);
      return;
    }
    ends_[i] = static_cast<Tick>(end);
    chunk_[i] = chunk;
    if (short_tree_) short_tree_->Place(i, chunk, end);
  }

  void Overlapping(int64_t start, int64_t end, std::vector<Chunk>* out) const {
    const size_t count = index_.StartedBy(end);  // intervals with start <= end
    long_tree_->Collect(static_cast<size_t>(long_before_[count]), start, out);
    if (!index_.dense()) return;
    const size_t from = index_.StartedBy(start - short_span_ - 1);
    if (count <= from) return;
    if (count - from > kScanLimit) {
      short_tree_->Collect(count, start, out);
      return;
    }
    for (size_t k = from; k < count; ++k) {
      if (ends_[k] >= start) out->push_back(chunk_[k]);
    }
  }

 private:
  static constexpr int64_t kShort = 64;       // ticks
  static constexpr size_t kScanLimit = 256;   // intervals
  static constexpr Tick kUnplaced = std::numeric_limits<Tick>::min();

  static const std::vector<int64_t>& Starts(const std::vector<PackingInterval>& iv,
                                            std::vector<int64_t>& starts) {
    starts.resize(iv.size());
    for (size_t i = 0; i < iv.size(); ++i) starts[i] = iv[i].start;
    return starts;
  }
  // Whether a query over [start, end] would scan more than kScanLimit.
  bool Wide(int64_t start, int64_t end) const {
    return index_.StartedBy(end) - std::min(index_.StartedBy(end),
                                            index_.StartedBy(start - short_span_ - 1)) > kScanLimit;
  }

  const std::vector<PackingInterval>& iv_;
  const std::vector<int64_t>& starts_;
  StartIndex index_;
  // Per interval: its index among the long ones; -1 when short.
  std::vector<int32_t>& long_index_;
  int64_t short_span_ = 0;  // the longest lifetime (end - start) of a short interval
  // Per prefix length n: long intervals among the first n.
  std::vector<int32_t>& long_before_;
  std::vector<Tick>& ends_;    // per interval: its end when placed and short
  std::vector<Chunk>& chunk_;  // per interval: its chunk when placed and short
  std::optional<OverlapTree<Tick>> long_tree_;
  std::optional<OverlapTree<Tick>> short_tree_;
};

// The roots in XLA's spatial (larger, then longer own lifetime) or temporal
// (longer group lifetime, then larger) order, ids breaking ties.
inline const std::vector<int32_t>& Order(const std::vector<PackingInterval>& iv, const Groups& groups,
                                  bool spatial, std::vector<OrderKey>& keys, OrderScratch& sort) {
  keys.clear();
  keys.reserve(groups.roots.size());
  for (int32_t r : groups.roots) {
    const PackingInterval& a = iv[static_cast<size_t>(r)];
    if (spatial) {
      keys.push_back({-a.size, a.start - a.end, a.id, r});
      continue;
    }
    int64_t lo = a.start, hi = a.end;
    for (int32_t m = groups.first_member[static_cast<size_t>(r)]; m >= 0;
         m = groups.next_member[static_cast<size_t>(m)]) {
      lo = std::min(lo, iv[static_cast<size_t>(m)].start);
      hi = std::max(hi, iv[static_cast<size_t>(m)].end);
    }
    keys.push_back({lo - hi, -a.size, a.id, r});
  }
  return SortedRoots(keys, sort);
}

// PeakOf's arrays (kept in PackingScratch between calls).
struct PeakArrays {
  std::vector<std::pair<int64_t, int32_t>> ends;
  std::vector<uint32_t> first;
  std::vector<int32_t> live_members;
};

// (end, index) of every interval in that order, into a.ends: counted by
// tick when ends lie in [0, 4n + 1024] (the streams callers write), else
// sorted.
inline const std::vector<std::pair<int64_t, int32_t>>& ByEnd(const std::vector<PackingInterval>& iv,
                                                      PeakArrays& a) {
  std::vector<std::pair<int64_t, int32_t>>& ends = a.ends;
  ends.resize(iv.size());  // every slot written below
  int64_t lo = 0, hi = 0;
  for (const PackingInterval& p : iv) lo = std::min(lo, p.end), hi = std::max(hi, p.end);
  if (lo < 0 || static_cast<uint64_t>(hi) > 4 * static_cast<uint64_t>(iv.size()) + 1024) {
    for (size_t i = 0; i < iv.size(); ++i) ends[i] = {iv[i].end, static_cast<int32_t>(i)};
    std::sort(ends.begin(), ends.end());
    return ends;
  }
  std::vector<uint32_t>& first = a.first;  // by tick: its first slot
  first.assign(static_cast<size_t>(hi) + 2, 0);
  for (const PackingInterval& p : iv) ++first[static_cast<size_t>(p.end) + 1];
  for (size_t t = 1; t < first.size(); ++t) first[t] += first[t - 1];
  for (size_t i = 0; i < iv.size(); ++i) {
    ends[first[static_cast<size_t>(iv[i].end)]++] = {iv[i].end, static_cast<int32_t>(i)};
  }
  return ends;
}

}  // namespace memplan::analyzer::packing_internal

namespace memplan::analyzer {

struct PackingScratch::Arrays {
  packing_internal::PlacedArrays<int32_t> narrow;
  packing_internal::PlacedArrays<int64_t> wide;
  std::vector<OrderKey> keys;
  OrderScratch sort;
  packing_internal::Groups groups;
  packing_internal::PeakArrays peak;
};

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_INTERVAL_PACKING_PLACED_H_
