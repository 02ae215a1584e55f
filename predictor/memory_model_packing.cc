// The temp arena's packing (best fit, or answered from a structure's
// recorded packing) and the live peak, for MemoryModel::Run.
#include <algorithm>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "analyzer/heap_simulator.h"
#include "analyzer/interval_packing.h"
#include "predictor/memory_model.h"
#include "predictor/memory_model_scratch.h"

namespace memplan::predictor {

// The heap simulator's call stream for the temp buffers, as PackTempReference
// drives it (events by step, allocations before frees, then buffer index;
// buffers updated in place share their group's memory while any member of
// the group is live), written down as lifetimes in ticks for
// analyzer::BestFitHeapSize. Events are bucketed by step (counting sort)
// when the steps span no more than a few times the buffer count.
const std::vector<analyzer::PackingInterval>& MemoryModel::TempIntervals() const {
  ModelScratch& s = *scratch_;
  const size_t n = temp_.size();
  ir::ScheduleStep lo = temp_[0].start, hi = temp_[0].start;
  for (const Buffer& b : temp_) {
    lo = std::min({lo, b.start, b.end});
    hi = std::max({hi, b.start, b.end});
  }
  // Event e: buffer e / 2, a free when odd.
  std::vector<uint32_t>& events = s.events;
  events.resize(2 * n);
  const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
  auto key = [&](uint32_t e) {
    const Buffer& b = temp_[e / 2];
    return 2 * static_cast<uint64_t>(((e & 1) ? b.end : b.start) - lo) + (e & 1);
  };
  if (range <= 8 * n + 1024) {
    std::vector<uint32_t>& count = s.count;
    count.assign(2 * range + 1, 0);
    for (uint32_t e = 0; e < 2 * n; ++e) ++count[key(e) + 1];
    for (size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];
    for (uint32_t e = 0; e < 2 * n; ++e) events[count[key(e)]++] = e;
  } else {
    for (uint32_t e = 0; e < 2 * n; ++e) events[e] = e;
    std::sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) {
      const uint64_t ka = key(a), kb = key(b);
      return ka != kb ? ka < kb : a < b;
    });
  }
  // Groups with sharers keep their live members in order; the first one is
  // the canonical buffer a new member shares with.
  std::vector<int32_t>& slot = s.slot;
  slot.assign(n, -1);
  std::vector<std::vector<size_t>> live_in_group;
  for (const Buffer& b : temp_) {
    if (b.share_with >= 0 && slot[static_cast<size_t>(b.share_with)] < 0) {
      slot[static_cast<size_t>(b.share_with)] = static_cast<int32_t>(live_in_group.size());
      live_in_group.emplace_back();
    }
  }
  std::vector<analyzer::PackingInterval>& intervals = s.intervals;
  intervals.clear();
  intervals.reserve(n);
  std::vector<int32_t>& interval_of = s.interval_of;
  interval_of.assign(n, -1);
  int64_t tick = 0;
  for (const uint32_t e : events) {
    const size_t b = e / 2;
    const size_t group = temp_[b].share_with >= 0 ? static_cast<size_t>(temp_[b].share_with) : b;
    std::vector<size_t>* members =
        slot[group] >= 0 ? &live_in_group[static_cast<size_t>(slot[group])] : nullptr;
    if (e & 1) {
      const int32_t i = interval_of[b];
      if (i >= 0 && intervals[static_cast<size_t>(i)].end < 0) {
        intervals[static_cast<size_t>(i)].end = tick++;
      }
      if (members) members->erase(std::remove(members->begin(), members->end(), b), members->end());
      continue;
    }
    analyzer::PackingInterval interval;
    interval.id = static_cast<int64_t>(b);
    interval.size = std::max<int64_t>(temp_[b].size, 1);
    interval.start = tick++;
    interval.end = -1;
    interval.group = static_cast<int32_t>(intervals.size());
    if (members && !members->empty()) {
      interval.group = intervals[static_cast<size_t>(interval_of[members->front()])].group;
    }
    interval_of[b] = static_cast<int32_t>(intervals.size());
    intervals.push_back(interval);
    if (members) members->push_back(b);
  }
  for (analyzer::PackingInterval& interval : intervals) {
    if (interval.end < 0) interval.end = tick;
  }
  return intervals;
}

int64_t MemoryModel::PackTemp() {
  if (temp_.empty()) return 0;
  if (p_.options_.reference_heap) return PackTempReference();
  const int64_t alignment = p_.options_.temp_alignment;
  if (memo_ == nullptr) return analyzer::BestFitHeapSize(TempIntervals(), alignment, scratch_->packing);
  // Recorded forms first: where a structure has them they answer its
  // uniformly scaled candidates too.
  std::optional<int64_t> heap = memo_->FromForms(temp_, alignment);
  if (!heap) heap = memo_->Scaled(temp_, alignment);
  if (heap) {
    packing_scaled_ = true;
    return *heap;
  }
  // A second candidate of these lifetimes with few sizes: packed as forms
  // of them, which answer later candidates whose sizes keep every
  // comparison's sign (analyzer/interval_packing_forms.h).
  std::optional<analyzer::PackingForms> forms;
  if (memo_->KeptLifetimes(temp_, alignment)) {
    forms = analyzer::PackingForms::Record(TempIntervals(), alignment, scratch_->packing);
  }
  if (forms) {
    const int64_t recorded = forms->heap();
    memo_->KeepForms(temp_, alignment, *std::move(forms));
    return recorded;
  }
  const int64_t packed = analyzer::BestFitHeapSize(TempIntervals(), alignment, scratch_->packing);
  memo_->Keep(temp_, alignment, packed);
  return packed;
}

int64_t MemoryModel::PackTempReference() const {

  // (step, is_free, buffer)
  std::vector<std::tuple<ir::ScheduleStep, bool, size_t>> events;
  events.reserve(2 * temp_.size());
  for (size_t b = 0; b < temp_.size(); ++b) {
    events.emplace_back(temp_[b].start, false, b);
    events.emplace_back(temp_[b].end, true, b);
  }
  std::sort(events.begin(), events.end());
  auto heap = analyzer::MakeDecreasingSizeBestFitHeap(p_.options_.temp_alignment);
  // Buffers updated in place share their group's memory while any member of
  // the group is live (as analyzer/temp_arena.cc drives the heap).
  std::vector<std::vector<size_t>> live_in_group(temp_.size());
  for (const auto& [step, is_free, b] : events) {
    const ir::ValueId id(static_cast<int64_t>(b));
    const size_t group = temp_[b].share_with >= 0 ? static_cast<size_t>(temp_[b].share_with) : b;
    std::vector<size_t>& members = live_in_group[group];
    if (is_free) {
      heap->Free(id);
      members.erase(std::remove(members.begin(), members.end(), b), members.end());
      continue;
    }
    if (!members.empty()) {
      heap->ShareWith(id, ir::ValueId(static_cast<int64_t>(members.front())),
                      std::max<int64_t>(temp_[b].size, 1));
    } else {
      heap->Alloc(id, std::max<int64_t>(temp_[b].size, 1));
    }
    members.push_back(b);
  }
  return heap->Finish().heap_size;
}

std::optional<BuffersPeak> LivePeakInSteps(const std::vector<TempBuffer>& temp,
                                           const std::vector<TempBuffer>& resident, size_t span,
                                           std::vector<int64_t>& per_step) {
  per_step.assign(span, 0);
  int64_t* table = per_step.data();
  auto add = [&](const std::vector<TempBuffer>& list) {
    for (const TempBuffer& b : list) {
      const uint64_t from = static_cast<uint64_t>(b.start), to = static_cast<uint64_t>(b.end + 1);
      if (from >= span || to >= span) return false;  // a negative step wraps past span too
      table[from] += b.size;
      table[to] -= b.size;
    }
    return true;
  };
  if (!add(temp) || !add(resident)) return std::nullopt;
  BuffersPeak peak;
  int64_t live = 0;
  for (size_t k = 0; k < span; ++k) {
    live += table[k];
    if (live > peak.bytes) {
      peak.bytes = live;
      peak.step = static_cast<ir::ScheduleStep>(k);
    }
  }
  return peak;
}

BuffersPeak LivePeakOfBuffers(const std::vector<TempBuffer>& temp,
                              const std::vector<TempBuffer>& resident,
                              std::vector<int64_t>& per_step,
                              std::vector<std::pair<ir::ScheduleStep, int64_t>>& deltas) {
  // Bytes added and removed per step, summed per step in a table when the
  // steps span no more than a few times the buffer count, else sorted.
  size_t count = 0;  // two deltas per buffer
  ir::ScheduleStep lo = 0, hi = 0;
  auto bound = [&](const std::vector<TempBuffer>& list) {
    for (const TempBuffer& b : list) {
      if (count == 0) lo = hi = b.start;
      lo = std::min({lo, b.start, b.end + 1});
      hi = std::max({hi, b.start, b.end + 1});
      count += 2;
    }
  };
  bound(temp);
  bound(resident);
  BuffersPeak peak;
  int64_t live = 0;
  if (count == 0) return peak;
  const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
  if (range <= 4 * count + 1024) {
    per_step.assign(range, 0);
    auto add = [&](const std::vector<TempBuffer>& list) {
      for (const TempBuffer& b : list) {
        per_step[static_cast<size_t>(b.start - lo)] += b.size;
        per_step[static_cast<size_t>(b.end + 1 - lo)] -= b.size;
      }
    };
    add(temp);
    add(resident);
    for (size_t k = 0; k < per_step.size(); ++k) {
      live += per_step[k];
      if (live > peak.bytes) {
        peak.bytes = live;
        peak.step = lo + static_cast<ir::ScheduleStep>(k);
      }
    }
    return peak;
  }
  deltas.clear();
  deltas.reserve(count);
  auto add = [&](const std::vector<TempBuffer>& list) {
    for (const TempBuffer& b : list) {
      deltas.emplace_back(b.start, b.size);
      deltas.emplace_back(b.end + 1, -b.size);
    }
  };
  add(temp);
  add(resident);
  std::sort(deltas.begin(), deltas.end());
  for (size_t i = 0; i < deltas.size();) {
    const ir::ScheduleStep s = deltas[i].first;
    for (; i < deltas.size() && deltas[i].first == s; ++i) live += deltas[i].second;
    if (live > peak.bytes) {
      peak.bytes = live;
      peak.step = s;
    }
  }
  return peak;
}

// Arguments are live throughout; output-allocation values and temp buffers
// over their lifetimes (those reusing another's memory in place too).
int64_t MemoryModel::LivePeak(ir::ScheduleStep* at) const {
  // One pass when every step is in [0, max_step_ + 1].
  const size_t span = static_cast<size_t>(std::max<ir::ScheduleStep>(p_.max_step_, 0)) + 2;
  std::optional<BuffersPeak> peak;
  if (span <= 8 * (temp_.size() + resident_.size()) + 1024) {
    peak = LivePeakInSteps(temp_, resident_, span, scratch_->per_step);
  }
  if (!peak) peak = LivePeakOfBuffers(temp_, resident_, scratch_->per_step, scratch_->deltas);
  *at = peak->step;
  return argument_bytes_ + peak->bytes;
}

PeakBuffer MemoryModel::PeakBufferOf(const TempBuffer& b, bool in_temp_arena) const {
  PeakBuffer out;
  out.bytes = b.size;
  out.start = b.start;
  out.end = b.end;
  out.in_temp_arena = in_temp_arena;
  const size_t index = static_cast<size_t>(b.origin.index);
  if (b.origin.kind == BufferOrigin::Kind::kValue) {
    const Predictor::ValueInfo& info = p_.values_[index];
    out.kind = PeakBuffer::Kind::kValue;
    out.value = info.value->id;
    out.instruction = info.value->instruction;
    out.leaf = info.leaf;
  } else {
    out.kind = b.origin.kind == BufferOrigin::Kind::kCollectiveResult
                   ? PeakBuffer::Kind::kCollectiveResult
                   : PeakBuffer::Kind::kCollectiveOperand;
    out.collective = static_cast<int64_t>(index);
    out.instruction = collectives_[index].at;
  }
  return out;
}

std::shared_ptr<const PeakContents> MemoryModel::LiveAtPeak(ir::ScheduleStep step,
                                                            int64_t peak_bytes) const {
  auto contents = std::make_shared<PeakContents>();
  if (peak_bytes <= argument_bytes_) return contents;  // nothing above the arguments
  // The buffers LivePeak counted at `step`, by pointer (one without an
  // origin is only counted); the largest are read out below.
  struct Live {
    const TempBuffer* b;
    bool in_temp_arena;
  };
  std::vector<Live> live;
  auto add = [&](const std::vector<TempBuffer>& list, bool in_temp_arena) {
    for (const TempBuffer& b : list) {
      if (b.start > step || b.end < step || b.size == 0) continue;
      if (b.origin.kind == BufferOrigin::Kind::kNone) {
        contents->other_count += 1;
        contents->other_bytes += b.size;
      } else {
        live.push_back({&b, in_temp_arena});
      }
    }
  };
  add(temp_, true);
  add(resident_, false);
  // Most bytes first; then earlier start, origin kind and index, end and
  // place (buffers equal in all of these give equal entries: the list is
  // the same whichever comes first).
  auto before = [](const Live& x, const Live& y) {
    return std::make_tuple(-x.b->size, x.b->start, x.b->origin.kind, x.b->origin.index,
                           x.b->end, !x.in_temp_arena) <
           std::make_tuple(-y.b->size, y.b->start, y.b->origin.kind, y.b->origin.index,
                           y.b->end, !y.in_temp_arena);
  };
  const size_t kept = std::min(live.size(), PeakContents::kLargestKept);
  const auto middle = live.begin() + static_cast<std::ptrdiff_t>(kept);
  std::nth_element(live.begin(), middle, live.end(), before);
  std::sort(live.begin(), middle, before);
  for (auto it = middle; it != live.end(); ++it) {
    contents->other_count += 1;
    contents->other_bytes += it->b->size;
  }
  contents->largest.reserve(kept);
  for (auto it = live.begin(); it != middle; ++it) {
    contents->largest.push_back(PeakBufferOf(*it->b, it->in_temp_arena));
  }
  return contents;
}

}  // namespace memplan::predictor
