#include "executor/plan_check.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "ir/strings.h"

namespace memplan::executor {
namespace {

int64_t ElementBytes(ir::DType dtype) { return ir::DTypeStorageBytes(dtype); }

std::string GroupString(const std::vector<int>& group) {
  std::string out = "[";
  for (size_t i = 0; i < group.size(); ++i) StrAppend(&out, i ? "," : "", group[i]);
  return out + "]";
}

std::string Ordinal(int64_t n) {
  const int64_t mod100 = n % 100;
  const char* suffix = "th";
  if (mod100 < 11 || mod100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return StrCat(n, suffix);
}

std::string Describe(const CollectiveOp& c) {
  return StrCat(CollectiveName(c.kind), " of ", c.bytes, " bytes of ", ir::DTypeName(c.dtype));
}

PlanProblem OpProblem(int rank, int64_t op, std::string field, std::string message) {
  return {PlanProblem::Where::kOp, rank, op, std::move(field), std::move(message)};
}

// A buffer reference of op `op_index`: exists, live at the op's step, holds
// `needed` bytes.
std::optional<PlanProblem> CheckReference(const RankPlan& rank, int rank_index, int64_t op_index,
                                          const PlanOp& op, const char* field, int64_t id,
                                          int64_t needed) {
  const PlanBuffer* buffer = FindBuffer(rank, id);
  if (buffer == nullptr) {
    return OpProblem(rank_index, op_index, field,
                     StrCat("expected the id of one of rank ", rank.rank, "'s buffers; there is no buffer ", id));
  }
  if (op.step < buffer->start || op.step > buffer->end) {
    return OpProblem(rank_index, op_index, field,
                     StrCat("expected a buffer live at step ", op.step, "; buffer ", id, " lives from step ",
                            buffer->start, " to ", buffer->end));
  }
  if (buffer->bytes < needed) {
    return OpProblem(rank_index, op_index, field,
                     StrCat("expected a buffer of at least ", needed, " bytes; buffer ", id, " has ",
                            buffer->bytes));
  }
  return std::nullopt;
}

std::optional<PlanProblem> CheckRankBuffers(const RankPlan& rank, int rank_index) {
  for (size_t i = 0; i < rank.buffers.size(); ++i) {
    const PlanBuffer& b = rank.buffers[i];
    auto problem = [&](const char* field, std::string message) {
      return PlanProblem{PlanProblem::Where::kBuffer, rank_index, static_cast<int64_t>(i), field,
                         std::move(message)};
    };
    if (i > 0 && rank.buffers[i - 1].id == b.id) {
      return problem("id", StrCat("expected a buffer id not used before in rank ", rank.rank,
                                  "; ", b.id, " is taken"));
    }
    if (b.end < b.start) {
      return problem("end", StrCat("expected an end step at or after the start step ", b.start));
    }
    if (b.offset && rank.arena_bytes && *b.offset > *rank.arena_bytes - b.bytes) {
      return problem("offset", StrCat("expected the buffer to lie inside the arena of ", *rank.arena_bytes,
                                      " bytes; it ends at ", *b.offset + b.bytes));
    }
  }
  return std::nullopt;
}

std::optional<PlanProblem> CheckCollective(const ExecutorPlan& plan, const RankPlan& rank,
                                           int rank_index, int64_t op_index, const PlanOp& op) {
  const CollectiveOp& c = op.collective;
  const int n = static_cast<int>(c.group.size());
  if (n == 0) return OpProblem(rank_index, op_index, "group", "expected a non-empty group of ranks");
  std::set<int> seen;
  for (int member : c.group) {
    if (member < 0 || member >= static_cast<int>(plan.ranks.size())) {
      return OpProblem(rank_index, op_index, "group",
                       StrCat("expected ranks of the plan (0 to ", plan.ranks.size() - 1, "); ", member,
                              " is not one"));
    }
    if (!seen.insert(member).second) {
      return OpProblem(rank_index, op_index, "group",
                       StrCat("expected each rank once in a group; ", member, " repeats"));
    }
  }
  if (!seen.count(rank.rank)) {
    return OpProblem(rank_index, op_index, "group",
                     StrCat("expected a group holding rank ", rank.rank, ", whose op this is"));
  }
  const int64_t element = ElementBytes(c.dtype);
  const bool split = c.kind == CollectiveKind::kAllGather || c.kind == CollectiveKind::kReduceScatter ||
                     c.kind == CollectiveKind::kAllToAll;
  const int64_t unit = split ? element * n : element;
  if (c.bytes % unit != 0) {
    return OpProblem(rank_index, op_index, "bytes",
                     split ? StrCat("expected a multiple of ", n, " ranks x ", element, "-byte ",
                                    ir::DTypeName(c.dtype), " = ", unit, " bytes for ",
                                    CollectiveName(c.kind), "; got ", c.bytes)
                           : StrCat("expected a multiple of the ", element, "-byte ",
                                    ir::DTypeName(c.dtype), "; got ", c.bytes));
  }
  if (c.input) {
    if (auto p = CheckReference(rank, rank_index, op_index, op, "input", *c.input, CollectiveInputBytes(c))) {
      return p;
    }
  }
  if (c.output) {
    if (auto p = CheckReference(rank, rank_index, op_index, op, "output", *c.output,
                                CollectiveOutputBytes(c))) {
      return p;
    }
  }
  return std::nullopt;
}

std::optional<PlanProblem> CheckRankOps(const ExecutorPlan& plan, const RankPlan& rank, int rank_index) {
  for (size_t i = 0; i < rank.ops.size(); ++i) {
    const PlanOp& op = rank.ops[i];
    const int64_t index = static_cast<int64_t>(i);
    if (i > 0 && op.step < rank.ops[i - 1].step) {
      return OpProblem(rank_index, index, "step",
                       StrCat("expected ops in schedule order: step ", op.step, " comes after step ",
                              rank.ops[i - 1].step));
    }
    if (op.kind == PlanOp::Kind::kCollective) {
      if (auto p = CheckCollective(plan, rank, rank_index, index, op)) return p;
      continue;
    }
    const GemmOp& g = op.gemm;
    const struct {
      const char* field;
      std::optional<int64_t> id;
      char operand;
    } refs[] = {{"a", g.a, 'a'}, {"b", g.b, 'b'}, {"c", g.c, 'c'}};
    for (const auto& ref : refs) {
      if (!ref.id) continue;
      if (auto p = CheckReference(rank, rank_index, index, op, ref.field, *ref.id,
                                  GemmOperandBytes(g, ref.operand))) {
        return p;
      }
    }
  }
  return std::nullopt;
}

// Collectives of one group in the order each member issues them.
using GroupKey = std::vector<int>;

std::optional<PlanProblem> CheckMatchingCollectives(const ExecutorPlan& plan) {
  // For each group: the first member's sequence, as (rank index, op index).
  std::map<GroupKey, std::vector<std::pair<int, int64_t>>> reference;
  std::map<GroupKey, int> reference_rank;
  // First pass: each group's sequence on its lowest member.
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    for (size_t i = 0; i < plan.ranks[r].ops.size(); ++i) {
      const PlanOp& op = plan.ranks[r].ops[i];
      if (op.kind != PlanOp::Kind::kCollective) continue;
      const GroupKey& key = op.collective.group;
      auto [it, inserted] = reference_rank.emplace(key, static_cast<int>(r));
      if (it->second == static_cast<int>(r)) reference[key].emplace_back(static_cast<int>(r), i);
    }
  }
  // Second pass: every other member issues the same sequence.
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    std::map<GroupKey, size_t> issued;
    for (size_t i = 0; i < plan.ranks[r].ops.size(); ++i) {
      const PlanOp& op = plan.ranks[r].ops[i];
      if (op.kind != PlanOp::Kind::kCollective) continue;
      const GroupKey& key = op.collective.group;
      const size_t nth = issued[key]++;
      const auto& sequence = reference[key];
      const int ref_rank = reference_rank[key];
      if (ref_rank == static_cast<int>(r)) continue;
      if (nth >= sequence.size()) {
        return OpProblem(static_cast<int>(r), static_cast<int64_t>(i), "",
                         StrCat("expected at most ", sequence.size(), " collectives on group ",
                                GroupString(key), " as rank ", ref_rank, " has; this is rank ", r,
                                "'s ", Ordinal(nth + 1)));
      }
      const CollectiveOp& theirs = plan.ranks[ref_rank].ops[sequence[nth].second].collective;
      const CollectiveOp& mine = op.collective;
      if (theirs.kind != mine.kind || theirs.bytes != mine.bytes || theirs.dtype != mine.dtype) {
        return OpProblem(static_cast<int>(r), static_cast<int64_t>(i), "",
                         StrCat("expected the ", Ordinal(nth + 1), " collective on group ",
                                GroupString(key), " to match rank ", ref_rank, "'s ", Describe(theirs),
                                " (its op ", sequence[nth].second, "); rank ", r, " has ", Describe(mine)));
      }
    }
    for (const auto& [key, sequence] : reference) {
      if (std::find(key.begin(), key.end(), static_cast<int>(r)) == key.end()) continue;
      if (reference_rank[key] == static_cast<int>(r)) continue;
      const size_t count = issued.count(key) ? issued[key] : 0;
      if (count < sequence.size()) {
        return PlanProblem{PlanProblem::Where::kRank, static_cast<int>(r), 0, "ops",
                           StrCat("expected ", sequence.size(), " collectives on group ",
                                  GroupString(key), " as rank ", reference_rank[key], " has; rank ", r,
                                  " has ", count)};
      }
    }
  }
  return std::nullopt;
}

// Runs every rank's ops in order, a collective completing once all of its
// group has reached it. Reports the ranks left waiting when none can move.
std::optional<PlanProblem> CheckNoDeadlock(const ExecutorPlan& plan) {
  const size_t num_ranks = plan.ranks.size();
  std::vector<size_t> next(num_ranks, 0);
  std::vector<std::map<GroupKey, size_t>> issued(num_ranks);
  // (group, nth) -> ranks arrived.
  std::map<std::pair<GroupKey, size_t>, std::vector<int>> waiting;
  std::deque<int> ready;
  for (size_t r = 0; r < num_ranks; ++r) ready.push_back(static_cast<int>(r));
  while (!ready.empty()) {
    const int r = ready.front();
    ready.pop_front();
    const RankPlan& rank = plan.ranks[r];
    while (next[r] < rank.ops.size() && rank.ops[next[r]].kind == PlanOp::Kind::kGemm) ++next[r];
    if (next[r] == rank.ops.size()) continue;
    const GroupKey& key = rank.ops[next[r]].collective.group;
    const size_t nth = issued[r][key]++;
    std::vector<int>& arrived = waiting[{key, nth}];
    arrived.push_back(r);
    if (arrived.size() < key.size()) continue;
    for (int member : arrived) {
      ++next[member];
      ready.push_back(member);
    }
    waiting.erase({key, nth});
  }
  for (size_t r = 0; r < num_ranks; ++r) {
    if (next[r] == plan.ranks[r].ops.size()) continue;
    const PlanOp& op = plan.ranks[r].ops[next[r]];
    std::string missing;
    for (int member : op.collective.group) {
      const size_t m = static_cast<size_t>(member);
      if (next[m] < plan.ranks[m].ops.size() && plan.ranks[m].ops[next[m]].collective.group != op.collective.group) {
        StrAppend(&missing, missing.empty() ? "" : "; ", "rank ", member, " waits in its op ", next[m], " (",
                  Describe(plan.ranks[m].ops[next[m]].collective), " on group ",
                  GroupString(plan.ranks[m].ops[next[m]].collective.group), ")");
      }
    }
    return OpProblem(static_cast<int>(r), static_cast<int64_t>(next[r]), "",
                     StrCat("expected an order of collectives every group can complete; rank ", r,
                            " would wait here forever in ", Describe(op.collective), " on group ",
                            GroupString(op.collective.group),
                            missing.empty() ? std::string() : StrCat(" while ", missing)));
  }
  return std::nullopt;
}

}  // namespace

std::optional<PlanProblem> CheckPlan(const ExecutorPlan& plan) {
  if (plan.ranks.empty()) {
    return PlanProblem{PlanProblem::Where::kPlan, 0, 0, "ranks", "expected at least one rank"};
  }
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    if (auto p = CheckRankBuffers(plan.ranks[r], static_cast<int>(r))) return p;
    if (auto p = CheckRankOps(plan, plan.ranks[r], static_cast<int>(r))) return p;
  }
  if (auto p = CheckMatchingCollectives(plan)) return p;
  return CheckNoDeadlock(plan);
}

}  // namespace memplan::executor
