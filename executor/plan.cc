#include "executor/plan.h"

#include <algorithm>

namespace memplan::executor {
namespace {

constexpr std::string_view kCollectiveNames[kNumCollectiveKinds] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"};

}  // namespace

std::string_view CollectiveName(CollectiveKind kind) {
  return kCollectiveNames[static_cast<int>(kind)];
}

std::optional<CollectiveKind> CollectiveFromName(std::string_view name) {
  for (int i = 0; i < kNumCollectiveKinds; ++i) {
    if (kCollectiveNames[i] == name) return static_cast<CollectiveKind>(i);
  }
  return std::nullopt;
}

std::string_view AllocationModeName(AllocationMode mode) {
  return mode == AllocationMode::kArena ? "arena" : "pool";
}

AllocationMode DefaultAllocationMode(const RankPlan& rank) {
  if (rank.buffers.empty()) return rank.arena_bytes ? AllocationMode::kArena : AllocationMode::kPool;
  for (const PlanBuffer& b : rank.buffers) {
    if (!b.offset) return AllocationMode::kPool;
  }
  return AllocationMode::kArena;
}

int64_t PoolPeakBytes(const RankPlan& rank) {
  // +bytes at start, -bytes after end; at one step, frees of the step before
  // come first (they are at end + 1), so the running sum after each step's
  // events is what is live at that step.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(2 * rank.buffers.size());
  for (const PlanBuffer& b : rank.buffers) {
    events.emplace_back(b.start, b.bytes);
    events.emplace_back(b.end + 1, -b.bytes);
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0;
  int64_t peak = 0;
  for (size_t i = 0; i < events.size();) {
    const int64_t step = events[i].first;
    for (; i < events.size() && events[i].first == step; ++i) live += events[i].second;
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t ArenaBytes(const RankPlan& rank) {
  if (rank.arena_bytes) return *rank.arena_bytes;
  int64_t end = 0;
  for (const PlanBuffer& b : rank.buffers) {
    if (b.offset) end = std::max(end, *b.offset + b.bytes);
  }
  return end;
}

int64_t PlanPeakBytes(const RankPlan& rank, AllocationMode mode) {
  return mode == AllocationMode::kArena ? ArenaBytes(rank) : PoolPeakBytes(rank);
}

int64_t PlannedPeakBytes(const RankPlan& rank, AllocationMode mode) {
  return rank.planned_peak_bytes ? *rank.planned_peak_bytes : PlanPeakBytes(rank, mode);
}

int64_t LastStep(const RankPlan& rank) {
  int64_t last = -1;
  for (const PlanBuffer& b : rank.buffers) last = std::max(last, b.end);
  for (const PlanOp& op : rank.ops) last = std::max(last, op.step);
  return last;
}

const PlanBuffer* FindBuffer(const RankPlan& rank, int64_t id) {
  auto it = std::lower_bound(rank.buffers.begin(), rank.buffers.end(), id,
                             [](const PlanBuffer& b, int64_t v) { return b.id < v; });
  return it != rank.buffers.end() && it->id == id ? &*it : nullptr;
}

int64_t CollectiveInputBytes(const CollectiveOp& op) {
  const int64_t n = std::max<int64_t>(1, static_cast<int64_t>(op.group.size()));
  return op.kind == CollectiveKind::kAllGather ? op.bytes / n : op.bytes;
}

int64_t CollectiveOutputBytes(const CollectiveOp& op) {
  const int64_t n = std::max<int64_t>(1, static_cast<int64_t>(op.group.size()));
  return op.kind == CollectiveKind::kReduceScatter ? op.bytes / n : op.bytes;
}

int64_t GemmOperandBytes(const GemmOp& op, char operand) {
  switch (operand) {
    case 'a': return op.m * op.k * ir::DTypeStorageBytes(op.dtype);
    case 'b': return op.k * op.n * ir::DTypeStorageBytes(op.dtype);
    default: return op.m * op.n * ir::DTypeStorageBytes(op.out_dtype);
  }
}

int64_t ScratchBytes(const PlanOp& op) {
  if (op.kind == PlanOp::Kind::kGemm) {
    const GemmOp& g = op.gemm;
    return (g.a ? 0 : GemmOperandBytes(g, 'a')) + (g.b ? 0 : GemmOperandBytes(g, 'b')) +
           (g.c ? 0 : GemmOperandBytes(g, 'c'));
  }
  const CollectiveOp& c = op.collective;
  // NCCL has no in-place all-to-all or send/recv: the input is copied first.
  const bool copied = c.input && c.output && *c.input == *c.output &&
                      (c.kind == CollectiveKind::kAllToAll || c.kind == CollectiveKind::kSendRecv);
  return (c.input && !copied ? 0 : CollectiveInputBytes(c)) + (c.output ? 0 : CollectiveOutputBytes(c));
}

int64_t MaxScratchBytes(const RankPlan& rank) {
  int64_t most = 0;
  for (const PlanOp& op : rank.ops) most = std::max(most, ScratchBytes(op));
  return most;
}

std::vector<std::vector<int>> CollectiveGroups(const ExecutorPlan& plan) {
  std::vector<std::vector<int>> groups;
  for (const RankPlan& rank : plan.ranks) {
    for (const PlanOp& op : rank.ops) {
      if (op.kind == PlanOp::Kind::kCollective) groups.push_back(op.collective.group);
    }
  }
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  return groups;
}

}  // namespace memplan::executor
