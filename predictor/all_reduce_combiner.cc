#include "predictor/all_reduce_combiner.h"

#include <algorithm>
#include <utility>

#include "predictor/output_reassignment.h"

namespace memplan::predictor {
namespace {

class Combiner {
 public:
  Combiner(const ir::Program& program, const std::vector<ir::ScheduleStep>& step_of,
           const CombinerSchedule& schedule, const std::vector<PredictedCollective>& collectives,
           int64_t threshold_bytes)
      : module_(program.module), step_of_(step_of), schedule_(schedule), collectives_(collectives),
        threshold_(threshold_bytes), stamp_(module_.instruction_count(), 0),
        seen_(module_.instruction_count(), 0) {}

  std::vector<CombinedAllReduce> Run() {
    std::vector<size_t> left = InPostOrder();
    std::vector<CombinedAllReduce> groups;
    std::vector<size_t> rest;
    while (!left.empty()) {
      ++round_;
      CombinedAllReduce g;
      rest.clear();
      bool closed = false;
      for (size_t c : left) {
        const PredictedCollective& pc = collectives_[c];
        const ir::ComputationId comp = module_.instruction(pc.at).computation;
        const bool other_key = !g.members.empty() && (comp != g.computation || pc.axes != g.axes);
        if (closed || other_key) {
          rest.push_back(c);
          continue;
        }
        if (!g.members.empty()) {
          if (DependsOnGroup(pc)) {
            closed = true;
          } else {
            read_bytes_ = true;
            closed = g.bytes + pc.result_bytes > threshold_;
          }
          if (closed) {
            rest.push_back(c);
            continue;
          }
        } else {
          g.computation = comp;
          g.axes = pc.axes;
        }
        Join(pc);
        g.members.push_back(c);
        g.bytes += pc.result_bytes;
        g.step = std::max(g.step, StepOf(pc.at));
      }
      groups.push_back(std::move(g));
      std::swap(left, rest);
    }
    return groups;
  }

  bool read_bytes() const { return read_bytes_; }

 private:
  ir::ScheduleStep StepOf(ir::InstructionId id) const {
    if (!id.valid() || id.value() >= static_cast<int64_t>(step_of_.size())) return -1;
    return step_of_[static_cast<size_t>(id.value())];
  }
  int64_t Position(ir::InstructionId id) const {
    if (!id.valid() || id.value() >= static_cast<int64_t>(schedule_.position.size())) return -1;
    return schedule_.position[static_cast<size_t>(id.value())];
  }

  // The all-reduces in the post order of the partitioned program: each
  // right after the partial sum it reads (its only reader there), or, with
  // no buffer of its own (a fused partial), right before its consumer.
  std::vector<size_t> InPostOrder() const {
    std::vector<std::pair<std::pair<int64_t, int>, size_t>> keyed;
    for (size_t c = 0; c < collectives_.size(); ++c) {
      const PredictedCollective& pc = collectives_[c];
      if (pc.kind != CollectiveKind::kAllReduce) continue;
      keyed.push_back({pc.source.valid() ? std::make_pair(Position(pc.source), 1) : std::make_pair(Position(pc.at), 0), c});
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<size_t> order;
    order.reserve(keyed.size());
    for (const auto& k : keyed) order.push_back(k.second);
    return order;
  }

  // What reads the all-reduce's result: the partial sum's users, or its
  // consumer when the partial has no buffer; marked for this round.
  void Join(const PredictedCollective& pc) {
    auto mark = [&](ir::InstructionId id) {
      stamp_[static_cast<size_t>(id.value())] = round_;
      low_ = std::min(low_, Position(id));
    };
    if (stamp_round_ != round_) {
      stamp_round_ = round_;
      low_ = INT64_MAX;
    }
    if (!pc.source.valid()) {
      mark(pc.at);
      return;
    }
    const size_t s = static_cast<size_t>(pc.source.value());
    for (uint32_t u = schedule_.users_start[s]; u < schedule_.users_start[s + 1]; ++u) mark(schedule_.users[u]);
  }

  // Whether what `pc` reads is computed from a reader of a group member:
  // a walk up operands, through instructions no earlier in post order
  // than the earliest such reader.
  bool DependsOnGroup(const PredictedCollective& pc) {
    ++walk_;
    std::vector<ir::InstructionId>& stack = stack_;
    stack.clear();
    if (pc.source.valid()) {
      stack.push_back(pc.source);
    } else {
      for (ir::InstructionId op : module_.instruction(pc.at).operands) stack.push_back(op);
    }
    while (!stack.empty()) {
      const ir::InstructionId id = stack.back();
      stack.pop_back();
      const size_t i = static_cast<size_t>(id.value());
      if (seen_[i] == walk_) continue;
      seen_[i] = walk_;
      if (stamp_[i] == round_) return true;
      if (Position(id) < low_) continue;
      for (ir::InstructionId op : module_.instruction(id).operands) stack.push_back(op);
    }
    return false;
  }

  const ir::Module& module_;
  const std::vector<ir::ScheduleStep>& step_of_;
  const CombinerSchedule& schedule_;
  const std::vector<PredictedCollective>& collectives_;
  const int64_t threshold_;
  std::vector<int64_t> stamp_;  // per instruction: the round it reads a member in
  std::vector<int64_t> seen_;   // per instruction: the walk that visited it
  std::vector<ir::InstructionId> stack_;
  int64_t round_ = 0, stamp_round_ = 0, walk_ = 0;
  int64_t low_ = INT64_MAX;  // earliest position of a marked reader this round
  bool read_bytes_ = false;
};

}  // namespace

CombinerSchedule CombinerSchedule::Of(const ir::Program& program, const std::vector<ir::ScheduleStep>&) {
  const ir::Module& module = program.module;
  CombinerSchedule out;
  InstructionPostOrder(module, out.position);
  const size_t n = module.instruction_count();
  out.users_start.assign(n + 1, 0);
  for (const ir::Instruction& inst : module.instructions()) {
    for (ir::InstructionId op : inst.operands) ++out.users_start[static_cast<size_t>(op.value()) + 1];
  }
  for (size_t i = 0; i < n; ++i) out.users_start[i + 1] += out.users_start[i];
  out.users.resize(out.users_start[n]);
  std::vector<uint32_t> next(out.users_start.begin(), out.users_start.end() - 1);
  for (const ir::Instruction& inst : module.instructions()) {
    for (ir::InstructionId op : inst.operands) out.users[next[static_cast<size_t>(op.value())]++] = inst.id;
  }
  return out;
}

std::vector<CombinedAllReduce> CombineAllReduces(const ir::Program& program,
                                                 const std::vector<ir::ScheduleStep>& step_of,
                                                 const std::vector<PredictedCollective>& collectives,
                                                 int64_t threshold_bytes) {
  return CombineAllReduces(program, step_of, CombinerSchedule::Of(program, step_of), collectives,
                           threshold_bytes);
}

std::vector<CombinedAllReduce> CombineAllReduces(const ir::Program& program,
                                                 const std::vector<ir::ScheduleStep>& step_of,
                                                 const CombinerSchedule& schedule,
                                                 const std::vector<PredictedCollective>& collectives,
                                                 int64_t threshold_bytes, bool* read_bytes) {
  Combiner combiner(program, step_of, schedule, collectives, threshold_bytes);
  std::vector<CombinedAllReduce> groups = combiner.Run();
  if (read_bytes != nullptr) *read_bytes = combiner.read_bytes();
  return groups;
}

}  // namespace memplan::predictor
