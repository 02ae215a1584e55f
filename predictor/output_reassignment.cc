#include "predictor/output_reassignment.h"

#include <algorithm>
#include <cstdint>
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

// Buffers the assigner places as one: an in-place group (a buffer and
// those reusing its memory, share_with) goes where its first buffer goes
// (XLA's AssignSingleHloBuffer tries the allocation of an operand it may
// share first: transformer_fwd dp2_tp4 puts ynn_fusion.11 and the
// broadcast_select_fusion that overwrites it both in allocation 2), so it
// moves whole or not at all: its largest size, the union of its steps.
struct Unit {
  std::vector<size_t> members;
  int64_t size = 0, order = 0;
  ir::ScheduleStep start = 0, end = 0;
  size_t first = 0;
};

// The units of `temp` with a size, in XLA's order: larger first, then
// earlier in post order (InstructionPostOrder), then earlier defined.
std::vector<Unit> MovableInOrder(const std::vector<TempBuffer>& temp) {
  std::map<size_t, Unit> by_first;
  for (size_t i = 0; i < temp.size(); ++i) {
    size_t r = i;
    while (temp[r].share_with >= 0) r = static_cast<size_t>(temp[r].share_with);
    const TempBuffer& b = temp[i];
    auto [it, fresh] = by_first.try_emplace(r);
    Unit& u = it->second;
    if (fresh) u = {{}, b.size, b.order, b.start, b.end, r};
    u.members.push_back(i);
    u.size = std::max(u.size, b.size);
    u.order = std::min(u.order, b.order);
    u.start = std::min(u.start, b.start);
    u.end = std::max(u.end, b.end);
  }
  std::vector<Unit> units;
  for (auto& entry : by_first) {
    if (entry.second.size > 0) units.push_back(std::move(entry.second));
  }
  std::sort(units.begin(), units.end(), [](const Unit& x, const Unit& y) {
    if (x.size != y.size) return x.size > y.size;
    if (x.order != y.order) return x.order < y.order;
    if (x.start != y.start) return x.start < y.start;
    return x.first < y.first;
  });
  return units;
}

// Where the re-run put a buffer of `temp`.
enum class Placement : uint8_t {
  kArena,             // found no allocation: stays in the temp arena
  kOutputAllocation,  // moved to an output allocation: resident
  kArguments,         // moved to a donated parameter's allocation, whose
                      // bytes the arguments count: dropped
};

// The buffers of `temp` left in the arena (`placed`, per buffer), their
// share_with indices renumbered; those placed in an output allocation
// appended to `resident`.
void KeepUnmoved(const std::vector<Placement>& placed, std::vector<TempBuffer>& temp,
                 std::vector<TempBuffer>& resident) {
  std::vector<int64_t> renumber(temp.size(), -1);
  std::vector<TempBuffer> kept;
  kept.reserve(temp.size());
  for (size_t i = 0; i < temp.size(); ++i) {
    if (placed[i] != Placement::kArena) {
      if (placed[i] == Placement::kOutputAllocation) resident.push_back(temp[i]);
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
                               const std::vector<uint8_t>& in_arguments,
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
  std::vector<Placement> placed(temp.size(), Placement::kArena);
  for (const Unit& u : MovableInOrder(temp)) {
    auto first = std::partition_point(allocations.begin(), allocations.end(),
                                      [&](size_t a) { return cap[a] < u.size; });
    for (auto it = first; it != allocations.end(); ++it) {
      Occupied& o = occupied[static_cast<size_t>(it - allocations.begin())];
      if (!o.Free(u.start, u.end)) continue;
      o.Add(u.start, u.end);
      const bool counted = *it < in_arguments.size() && in_arguments[*it] != 0;
      for (size_t i : u.members) {
        placed[i] = counted ? Placement::kArguments : Placement::kOutputAllocation;
      }
      break;
    }
  }
  KeepUnmoved(placed, temp, resident);
}

namespace {

// Computations callees first: from each computation no instruction calls,
// depth-first over the calls of its instructions (input order).
std::vector<ir::ComputationId> ComputationPostOrder(const ir::Module& module) {
  const size_t n = module.computations().size();
  std::vector<uint8_t> called(n, 0), state(n, 0);  // state: 1 on the stack, 2 done
  for (const ir::Instruction& inst : module.instructions()) {
    for (const ir::CalledComputation& c : inst.calls) {
      if (c.computation.valid()) called[static_cast<size_t>(c.computation.value())] = 1;
    }
  }
  // The callees of each computation, in instruction order, listed once
  // (not again each time the walk comes back to a caller).
  std::vector<std::vector<size_t>> callees(n);
  for (size_t c = 0; c < n; ++c) {
    for (ir::InstructionId id : module.computations()[c].instructions) {
      for (const ir::CalledComputation& cc : module.instruction(id).calls) {
        if (cc.computation.valid()) callees[c].push_back(static_cast<size_t>(cc.computation.value()));
      }
    }
  }
  std::vector<ir::ComputationId> order;
  std::vector<std::pair<size_t, size_t>> stack;  // (computation, next callee)
  for (size_t root = 0; root < n; ++root) {
    if (called[root] || state[root]) continue;
    stack.push_back({root, 0});
    state[root] = 1;
    while (!stack.empty()) {
      const size_t c = stack.back().first;
      const std::vector<size_t>& next = callees[c];
      size_t& k = stack.back().second;
      while (k < next.size() && state[next[k]] != 0) ++k;
      if (k < next.size()) {
        state[next[k]] = 1;
        stack.push_back({next[k], 0});
        continue;
      }
      state[c] = 2;
      order.push_back(module.computations()[c].id);
      stack.pop_back();
    }
  }
  return order;
}

// One computation's instructions depth-first from each user-less one
// (input order), operands first in operand order, then control
// predecessors before them (XLA's ComputeInstructionPostOrder pushes
// them last); appended to `position` from `next`. `local` (per module
// instruction id, -1 outside the computation) is filled with the
// computation's local indices here and reset to -1 before returning.
void InstructionPostOrderOf(const ir::Module& module, const ir::Computation& comp,
                            std::vector<int64_t>& position, int64_t& next,
                            std::vector<int32_t>& local) {
  auto local_of = [&](ir::InstructionId id) -> int32_t {
    return id.valid() && id.value() < static_cast<int64_t>(local.size())
               ? local[static_cast<size_t>(id.value())]
               : -1;
  };
  for (size_t i = 0; i < comp.instructions.size(); ++i) {
    local[static_cast<size_t>(comp.instructions[i].value())] = static_cast<int32_t>(i);
  }
  std::vector<uint8_t> used(comp.instructions.size(), 0);
  for (ir::InstructionId id : comp.instructions) {
    for (ir::InstructionId op : module.instruction(id).operands) {
      const int32_t at = local_of(op);
      if (at >= 0) used[static_cast<size_t>(at)] = 1;
    }
  }
  std::vector<uint8_t> state(comp.instructions.size(), 0);  // 1 visiting, 2 done
  std::vector<size_t> stack;
  for (size_t r = 0; r < comp.instructions.size(); ++r) {
    if (used[r] || state[r]) continue;
    stack.push_back(r);
    while (!stack.empty()) {
      const size_t i = stack.back();
      if (state[i] != 0) {
        stack.pop_back();
        if (state[i] == 1) {
          state[i] = 2;
          position[static_cast<size_t>(comp.instructions[i].value())] = next++;
        }
        continue;
      }
      state[i] = 1;
      const ir::Instruction& inst = module.instruction(comp.instructions[i]);
      for (size_t k = inst.operands.size(); k-- > 0;) {
        const int32_t at = local_of(inst.operands[k]);
        if (at >= 0 && state[static_cast<size_t>(at)] == 0) stack.push_back(static_cast<size_t>(at));
      }
      for (ir::InstructionId pred : inst.control_predecessors) {
        const int32_t at = local_of(pred);
        if (at >= 0 && state[static_cast<size_t>(at)] == 0) stack.push_back(static_cast<size_t>(at));
      }
    }
  }
  for (ir::InstructionId id : comp.instructions) local[static_cast<size_t>(id.value())] = -1;
}

}  // namespace

void InstructionPostOrder(const ir::Module& module, std::vector<int64_t>& position) {
  position.assign(module.instruction_count(), -1);
  int64_t next = 0;
  std::vector<int32_t> local(module.instruction_count(), -1);
  for (ir::ComputationId c : ComputationPostOrder(module)) {
    InstructionPostOrderOf(module, module.computation(c), position, next, local);
  }
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

void HoldDonatedParametersToTheirReaders(const std::vector<Predictor::ValueInfo>& values,
                                         const std::vector<std::pair<int32_t, int32_t>>& readers,
                                         const std::vector<ir::ScheduleStep>& begin,
                                         std::vector<ir::ScheduleStep>& end) {
  for (const auto& [p, r] : readers) {
    const size_t pv = static_cast<size_t>(p), rv = static_cast<size_t>(r);
    if (end[pv] < values[pv].start) continue;
    const ir::ScheduleStep at = end[rv] >= values[rv].start
                                    ? PerDeviceStart(begin[rv], end[rv], values[rv].start)
                                    : values[rv].start;
    end[pv] = std::max(end[pv], at);
  }
}

void StartsAfterCombinedAllReduces(const CombinedGroups& combined,
                                   const std::vector<PredictedCollective>& collectives,
                                   const std::vector<int32_t>& value_of,
                                   const std::vector<ir::ScheduleStep>& starts,
                                   std::vector<ir::ScheduleStep>& out) {
  out.assign(starts.begin(), starts.end());
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
