#include "predictor/output_reassignment.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>
#include <utility>

namespace memplan::predictor {
namespace {

// Disjoint closed step intervals of one allocation, by start.
class Occupied {
 public:
  bool Free(ir::ScheduleStep start, ir::ScheduleStep end) const {
    auto it = spans_.upper_bound(end);
    return it == spans_.begin() || std::prev(it)->second < start;
  }
  // Adds [start, end], merged with whatever it overlaps.
  void Add(ir::ScheduleStep start, ir::ScheduleStep end) {
    auto it = spans_.upper_bound(end);
    while (it != spans_.begin()) {
      auto prev = std::prev(it);
      if (prev->second < start) break;
      start = std::min(start, prev->first);
      end = std::max(end, prev->second);
      it = spans_.erase(prev);
    }
    spans_.emplace(start, end);
  }

 private:
  std::map<ir::ScheduleStep, ir::ScheduleStep> spans_;
};

// Which temp buffers may move: not updated in place, not empty; in XLA's
// order (larger first, then earlier defined).
std::vector<size_t> MovableInOrder(const std::vector<TempBuffer>& temp) {
  std::vector<bool> pinned(temp.size(), false);
  for (size_t i = 0; i < temp.size(); ++i) {
    if (temp[i].share_with >= 0) {
      pinned[i] = true;
      pinned[static_cast<size_t>(temp[i].share_with)] = true;
    }
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < temp.size(); ++i) {
    if (!pinned[i] && temp[i].size > 0) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    if (temp[x].size != temp[y].size) return temp[x].size > temp[y].size;
    if (temp[x].start != temp[y].start) return temp[x].start < temp[y].start;
    return x < y;
  });
  return order;
}

// The buffers of `temp` not `moved`, their share_with indices renumbered.
void KeepUnmoved(const std::vector<bool>& moved, std::vector<TempBuffer>& temp,
                 std::vector<TempBuffer>& resident) {
  std::vector<int64_t> renumber(temp.size(), -1);
  std::vector<TempBuffer> kept;
  kept.reserve(temp.size());
  for (size_t i = 0; i < temp.size(); ++i) {
    if (moved[i]) {
      resident.push_back(temp[i]);
      continue;
    }
    renumber[i] = static_cast<int64_t>(kept.size());
    kept.push_back(temp[i]);
  }
  for (TempBuffer& b : kept) {
    if (b.share_with >= 0) b.share_with = renumber[static_cast<size_t>(b.share_with)];
  }
  temp.swap(kept);
}

}  // namespace

void ReassignOutputAllocations(const std::vector<int64_t>& cap,
                               const std::vector<std::vector<TempBuffer>>& live_out,
                               std::vector<TempBuffer>& temp, std::vector<TempBuffer>& resident) {
  // The smallest allocation first (later made first among equals).
  std::vector<size_t> allocations;
  for (size_t a = 0; a < cap.size(); ++a) {
    if (cap[a] > 0) allocations.push_back(a);
  }
  if (allocations.empty() || temp.empty()) return;
  std::sort(allocations.begin(), allocations.end(), [&](size_t x, size_t y) {
    return cap[x] != cap[y] ? cap[x] < cap[y] : x > y;
  });
  std::vector<Occupied> occupied(allocations.size());
  for (size_t k = 0; k < allocations.size(); ++k) {
    for (const TempBuffer& b : live_out[allocations[k]]) occupied[k].Add(b.start, b.end);
  }
  std::vector<bool> moved(temp.size(), false);
  for (size_t i : MovableInOrder(temp)) {
    const TempBuffer& b = temp[i];
    auto first = std::partition_point(allocations.begin(), allocations.end(),
                                      [&](size_t a) { return cap[a] < b.size; });
    for (auto it = first; it != allocations.end(); ++it) {
      Occupied& o = occupied[static_cast<size_t>(it - allocations.begin())];
      if (!o.Free(b.start, b.end)) continue;
      o.Add(b.start, b.end);
      moved[i] = true;
      break;
    }
  }
  KeepUnmoved(moved, temp, resident);
}

void LoopBufferLeaders(const std::vector<Predictor::ValueInfo>& values,
                       const std::vector<std::vector<int32_t>>& allocation_values,
                       std::vector<int32_t>& leader) {
  leader.resize(values.size());
  for (size_t v = 0; v < values.size(); ++v) leader[v] = static_cast<int32_t>(v);
  std::vector<int32_t> order;
  for (const std::vector<int32_t>& in : allocation_values) {
    order.clear();
    for (int32_t v : in) {
      if (values[static_cast<size_t>(v)].end >= values[static_cast<size_t>(v)].start) order.push_back(v);
    }
    auto key = [&](int32_t v) {
      const Predictor::ValueInfo& i = values[static_cast<size_t>(v)];
      return std::make_tuple(i.value->offset, i.start, i.end, v);
    };
    std::sort(order.begin(), order.end(), [&](int32_t x, int32_t y) { return key(x) < key(y); });
    for (size_t k = 1; k < order.size(); ++k) {
      const Predictor::ValueInfo& a = values[static_cast<size_t>(order[k - 1])];
      const Predictor::ValueInfo& b = values[static_cast<size_t>(order[k])];
      if (a.value->offset == b.value->offset && b.start == a.end &&
          (a.value->is_phi || b.value->is_phi)) {
        leader[static_cast<size_t>(order[k])] = leader[static_cast<size_t>(order[k - 1])];
      }
    }
  }
}

void HoldInPlaceOperandsToTheirWriters(const std::vector<Predictor::ValueInfo>& values,
                                       const std::vector<std::pair<int32_t, int32_t>>& in_place,
                                       const std::vector<ir::ScheduleStep>& begin,
                                       std::vector<ir::ScheduleStep>& end) {
  std::map<int32_t, std::vector<int32_t>> groups;  // by the group's first value
  for (const auto& [v, first] : in_place) {
    std::vector<int32_t>& members = groups[first];
    if (members.empty()) members.push_back(first);
    members.push_back(v);
  }
  auto live = [&](size_t v) { return end[v] >= values[v].start; };
  for (auto& entry : groups) {
    std::vector<int32_t>& members = entry.second;
    std::sort(members.begin(), members.end(), [&](int32_t x, int32_t y) {
      return std::make_pair(values[static_cast<size_t>(x)].start, x) <
             std::make_pair(values[static_cast<size_t>(y)].start, y);
    });
    for (size_t k = members.size() - 1; k > 0; --k) {
      const size_t a = static_cast<size_t>(members[k - 1]), b = static_cast<size_t>(members[k]);
      if (!live(a) || !live(b) || values[a].end < values[b].start) continue;
      end[a] = std::max(end[a], PerDeviceStart(begin[b], end[b], values[b].start));
    }
  }
}

void StartsAfterCombinedAllReduces(const CombinedGroups& combined,
                                   const std::vector<PredictedCollective>& collectives,
                                   const std::vector<int32_t>& value_of,
                                   const std::vector<Predictor::ValueInfo>& values,
                                   std::vector<ir::ScheduleStep>& out) {
  out.resize(values.size());
  for (size_t v = 0; v < values.size(); ++v) out[v] = values[v].start;
  auto value = [&](ir::InstructionId id) {
    return id.valid() && id.value() < static_cast<int64_t>(value_of.size())
               ? value_of[static_cast<size_t>(id.value())]
               : -1;
  };
  for (size_t k = 0; k < combined.groups.size(); ++k) {
    const ir::ScheduleStep step = combined.groups[k].step;
    if (combined.members[k].size() < 2) continue;
    for (size_t c : combined.members[k]) {
      for (ir::InstructionId reader : {collectives[c].at, collectives[c].first_at}) {
        const int32_t u = value(reader);
        if (u >= 0 && out[static_cast<size_t>(u)] <= step) out[static_cast<size_t>(u)] = step + 1;
      }
    }
  }
}

}  // namespace memplan::predictor
