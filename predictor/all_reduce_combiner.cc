#include "predictor/all_reduce_combiner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
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
        threshold_(threshold_bytes), stamp_(module_.instruction_count(), 0) {}

  // XLA's rounds, per key: a round takes the first all-reduce left and the
  // following ones of its key until one depends on a member or passes the
  // threshold; other keys' all-reduces do not change which ones it takes.
  // So each key's list is cut in one pass, and the groups are made in the
  // order of their first member (each round starts at the first one left).
  std::vector<CombinedAllReduce> Run() {
    const std::vector<size_t> order = InPostOrder();
    std::map<std::pair<int64_t, AxisMask>, std::vector<size_t>> by_key;  // places in `order`
    for (size_t k = 0; k < order.size(); ++k) {
      const PredictedCollective& pc = collectives_[order[k]];
      by_key[{module_.instruction(pc.at).computation.value(), pc.axes}].push_back(k);
    }
    std::vector<std::pair<size_t, CombinedAllReduce>> made;  // (first member's place, group)
    for (const auto& [key, places] : by_key) {
      CombinedAllReduce g;
      size_t first = 0;
      for (size_t k : places) {
        const size_t c = order[k];
        const PredictedCollective& pc = collectives_[c];
        if (!g.members.empty()) {
          bool apart = DependsOnGroup(pc);
          if (!apart) {
            read_bytes_ = true;
            apart = g.bytes + pc.result_bytes > threshold_;
          }
          if (apart) made.push_back({first, std::exchange(g, CombinedAllReduce{})});
        }
        if (g.members.empty()) {
          ++round_;
          frontier_ = {};
          first = k;
          g.computation = module_.instruction(pc.at).computation;
          g.axes = pc.axes;
        }
        Join(pc);
        g.members.push_back(c);
        g.bytes += pc.result_bytes;
        g.step = std::max(g.step, StepOf(pc.at));
      }
      if (!g.members.empty()) made.push_back({first, std::move(g)});
    }
    std::sort(made.begin(), made.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<CombinedAllReduce> groups;
    groups.reserve(made.size());
    for (auto& m : made) groups.push_back(std::move(m.second));
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
  // consumer when the partial has no buffer; each a root of this round's
  // walk down users.
  void Join(const PredictedCollective& pc) {
    if (!pc.source.valid()) {
      Push(pc.at);
      return;
    }
    const size_t s = static_cast<size_t>(pc.source.value());
    for (uint32_t u = schedule_.users_start[s]; u < schedule_.users_start[s + 1]; ++u) Push(schedule_.users[u]);
  }
  void Push(ir::InstructionId id) { frontier_.push({Position(id), id.value()}); }

  // Whether what `pc` reads is computed from a reader of a group member.
  // The walk down users from the readers advances in post order, only as
  // far as the latest value `pc` reads (a user comes after its operands,
  // so every path from a reader to it stays below it): over a round it
  // visits each instruction once.
  bool DependsOnGroup(const PredictedCollective& pc) {
    reads_.clear();
    if (pc.source.valid() && pc.excluded_accumulator.valid()) {
      // A scatter-add into a whole accumulator: computed apart from it.
      for (ir::InstructionId op : module_.instruction(pc.source).operands) {
        if (op != pc.excluded_accumulator) reads_.push_back(op);
      }
    } else if (pc.source.valid()) {
      reads_.push_back(pc.source);
    } else {
      for (ir::InstructionId op : module_.instruction(pc.at).operands) reads_.push_back(op);
    }
    int64_t last = -1;
    for (ir::InstructionId r : reads_) last = std::max(last, Position(r));
    while (!frontier_.empty() && frontier_.top().first <= last) {
      const size_t i = static_cast<size_t>(frontier_.top().second);
      frontier_.pop();
      if (stamp_[i] == round_) continue;
      stamp_[i] = round_;
      for (uint32_t u = schedule_.users_start[i]; u < schedule_.users_start[i + 1]; ++u) Push(schedule_.users[u]);
    }
    for (ir::InstructionId r : reads_) {
      if (stamp_[static_cast<size_t>(r.value())] == round_) return true;
    }
    return false;
  }

  const ir::Module& module_;
  const std::vector<ir::ScheduleStep>& step_of_;
  const CombinerSchedule& schedule_;
  const std::vector<PredictedCollective>& collectives_;
  const int64_t threshold_;
  std::vector<int64_t> stamp_;  // per instruction: the round whose walk reached it
  // The walk's next instructions, earliest in post order first.
  using Entry = std::pair<int64_t, int64_t>;  // (position, instruction id)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> frontier_;
  std::vector<ir::InstructionId> reads_;
  int64_t round_ = 0;  // the group being made (stamps of earlier ones are stale)
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
