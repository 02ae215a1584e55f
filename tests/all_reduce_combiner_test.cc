// The all-reduce combiner (predictor/all_reduce_combiner.h) against a
// direct reading of its rule (XLA's CombineInstructionsByKey) on random
// all-reduces: in rounds over the all-reduces in post order (each right
// after the partial sum it reads, or right before its consumer when it
// reads none of its own), a round starts at the first one left and takes
// the following ones of its computation and axes until one reads a value
// computed from a reader of a member (checked by walking operands from
// what it reads) or passes the threshold; the rest wait for the next
// round. Many groups, long dependent runs and independent neighbours
// together exercise the combiner's bounded walk.
#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/synthetic_program.h"
#include "gtest/gtest.h"
#include "predictor/all_reduce_combiner.h"
#include "predictor/output_reassignment.h"

namespace memplan::test {
namespace {

using predictor::CollectiveKind;
using predictor::PredictedCollective;

// Per instruction: the schedule step it is first scheduled at (-1: none).
std::vector<ir::ScheduleStep> StepOf(const ir::Program& program) {
  std::vector<ir::ScheduleStep> step(program.module.instruction_count(), -1);
  for (size_t s = 0; s < program.schedule.instructions.size(); ++s) {
    const ir::InstructionId id = program.schedule.instructions[s];
    if (step[static_cast<size_t>(id.value())] < 0) {
      step[static_cast<size_t>(id.value())] = static_cast<ir::ScheduleStep>(s);
    }
  }
  return step;
}

// Per instruction: every instruction it reads, transitively, and itself.
std::vector<std::vector<bool>> Ancestors(const ir::Module& module) {
  const size_t n = module.instruction_count();
  std::vector<std::vector<bool>> up(n, std::vector<bool>(n, false));
  for (size_t i = 0; i < n; ++i) {
    std::vector<ir::InstructionId> stack = {ir::InstructionId(static_cast<int64_t>(i))};
    while (!stack.empty()) {
      const ir::InstructionId id = stack.back();
      stack.pop_back();
      if (up[i][static_cast<size_t>(id.value())]) continue;
      up[i][static_cast<size_t>(id.value())] = true;
      for (ir::InstructionId op : module.instruction(id).operands) stack.push_back(op);
    }
  }
  return up;
}

std::vector<predictor::CombinedAllReduce> Reference(
    const ir::Program& program, const std::vector<ir::ScheduleStep>& step,
    const std::vector<std::vector<bool>>& up, const std::vector<PredictedCollective>& list,
    int64_t threshold) {
  const ir::Module& module = program.module;
  std::vector<int64_t> position;
  predictor::InstructionPostOrder(module, position);
  auto key = [&](const PredictedCollective& pc) {
    return pc.source.valid() ? std::make_pair(position[static_cast<size_t>(pc.source.value())], 1)
                             : std::make_pair(position[static_cast<size_t>(pc.at.value())], 0);
  };
  std::vector<size_t> left;
  for (size_t c = 0; c < list.size(); ++c) {
    if (list[c].kind == CollectiveKind::kAllReduce) left.push_back(c);
  }
  std::stable_sort(left.begin(), left.end(), [&](size_t a, size_t b) { return key(list[a]) < key(list[b]); });
  // Whether `pc` reads a value computed from a reader of `m`'s result (the
  // users of m's partial sum, or m's consumer when it has none).
  auto depends = [&](const PredictedCollective& pc, const PredictedCollective& m) {
    std::vector<ir::InstructionId> reads;
    if (pc.source.valid()) reads.push_back(pc.source);
    else reads = module.instruction(pc.at).operands.ToVector();
    std::vector<ir::InstructionId> readers;
    if (m.source.valid()) {
      for (const ir::Instruction& inst : module.instructions()) {
        for (ir::InstructionId op : inst.operands) {
          if (op == m.source) readers.push_back(inst.id);
        }
      }
    } else {
      readers.push_back(m.at);
    }
    for (ir::InstructionId r : reads) {
      for (ir::InstructionId x : readers) {
        if (up[static_cast<size_t>(r.value())][static_cast<size_t>(x.value())]) return true;
      }
    }
    return false;
  };
  std::vector<predictor::CombinedAllReduce> groups;
  while (!left.empty()) {
    predictor::CombinedAllReduce g;
    std::vector<size_t> rest;
    bool closed = false;
    for (size_t c : left) {
      const PredictedCollective& pc = list[c];
      const ir::ComputationId comp = module.instruction(pc.at).computation;
      if (closed || (!g.members.empty() && (comp != g.computation || pc.axes != g.axes))) {
        rest.push_back(c);
        continue;
      }
      if (!g.members.empty()) {
        bool dependent = false;
        for (size_t m : g.members) dependent = dependent || depends(pc, list[m]);
        if (dependent || g.bytes + pc.result_bytes > threshold) {
          closed = true;
          rest.push_back(c);
          continue;
        }
      } else {
        g.computation = comp;
        g.axes = pc.axes;
      }
      g.bytes += pc.result_bytes;
      g.step = std::max(g.step, step[static_cast<size_t>(pc.at.value())]);
      g.members.push_back(c);
    }
    groups.push_back(std::move(g));
    left = std::move(rest);
  }
  return groups;
}

void ExpectCombinerMatches(const ir::Program& program, size_t reduces, uint32_t seed) {
  const ir::Module& module = program.module;
  const std::vector<ir::ScheduleStep> step = StepOf(program);
  const std::vector<std::vector<bool>> up = Ancestors(module);
  // Consumers: scheduled instructions with operands.
  std::vector<ir::InstructionId> consumers;
  for (ir::InstructionId id : program.schedule.instructions) {
    if (!module.instruction(id).operands.empty()) consumers.push_back(id);
  }
  ASSERT_FALSE(consumers.empty());
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<PredictedCollective> list;
    for (size_t k = 0; k < reduces; ++k) {
      PredictedCollective pc;
      pc.kind = rng() % 7 == 0 ? CollectiveKind::kAllGather : CollectiveKind::kAllReduce;
      pc.at = consumers[rng() % consumers.size()];
      const auto& operands = module.instruction(pc.at).operands;
      if (rng() % 2 == 0) pc.source = operands[rng() % operands.size()];
      pc.first_at = pc.at;
      pc.axes = trial == 0 ? 1 : 1 + rng() % 2;
      pc.result_bytes = pc.operand_bytes = 1 + static_cast<int64_t>(rng() % 100);
      list.push_back(pc);
    }
    // Trial 3: room for every one (only dependence keeps groups apart).
    const int64_t threshold = trial == 3 ? int64_t{1} << 40 : 300;
    const auto got = predictor::CombineAllReduces(program, step, list, threshold);
    const auto want = Reference(program, step, up, list, threshold);
    ASSERT_EQ(got.size(), want.size()) << "seed " << seed << " trial " << trial;
    for (size_t g = 0; g < got.size(); ++g) {
      EXPECT_EQ(got[g].members, want[g].members) << "group " << g << " trial " << trial;
      EXPECT_EQ(got[g].bytes, want[g].bytes) << "group " << g;
      EXPECT_EQ(got[g].step, want[g].step) << "group " << g;
      EXPECT_EQ(got[g].axes, want[g].axes) << "group " << g;
    }
  }
}

// A residual chain: all-reduces of later layers read earlier ones' results
// (long dependent runs, hundreds of groups) beside independent ones within
// a layer.
TEST(AllReduceCombiner, MatchesTheRuleOnARandomChain) {
  bench::Generated g = bench::GenerateResidualMlp(150, 8, 16);
  ExpectCombinerMatches(g.program, 500, 1);
}

// Independent branches folded one after another: many combine.
TEST(AllReduceCombiner, MatchesTheRuleOnARandomFanIn) {
  bench::Generated g = bench::GenerateFanIn(120, 8, 16);
  ExpectCombinerMatches(g.program, 400, 2);
}

// Random lists of 1 to 8 all-reduces (threshold 300, bytes 1 to 100);
// each is combined again under 8 other random byte counts. When the
// combiner says no choice read a byte count, every other byte count gives
// the same groups (what a structure's memo relies on, predictor/
// packing_memo.h). Returns how many lists read none and how many lists'
// groups changed with the bytes, for the tests to require both cases (a
// combiner that never reports reading bytes fails the check here).
std::pair<int, int> ExpectReadBytesTellsWhenBytesMatter(const ir::Program& program,
                                                        uint32_t seed) {
  const ir::Module& module = program.module;
  const std::vector<ir::ScheduleStep> step = StepOf(program);
  const predictor::CombinerSchedule schedule = predictor::CombinerSchedule::Of(program, step);
  std::vector<ir::InstructionId> consumers;
  for (ir::InstructionId id : program.schedule.instructions) {
    if (!module.instruction(id).operands.empty()) consumers.push_back(id);
  }
  std::mt19937 rng(seed);
  int read_none = 0, changed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<PredictedCollective> list(1 + rng() % 8);
    for (PredictedCollective& pc : list) {
      pc.kind = CollectiveKind::kAllReduce;
      pc.at = pc.first_at = consumers[rng() % consumers.size()];
      const auto& operands = module.instruction(pc.at).operands;
      if (rng() % 2 == 0) pc.source = operands[rng() % operands.size()];
      pc.axes = 1;
      pc.result_bytes = pc.operand_bytes = 1 + static_cast<int64_t>(rng() % 100);
    }
    bool read_bytes = true;
    const auto first = predictor::CombineAllReduces(program, step, schedule, list, 300, &read_bytes);
    read_none += !read_bytes;
    bool any_changed = false;
    for (int again = 0; again < 8; ++again) {
      for (PredictedCollective& pc : list) pc.result_bytes = 1 + static_cast<int64_t>(rng() % 100);
      const auto other = predictor::CombineAllReduces(program, step, schedule, list, 300);
      bool same = other.size() == first.size();
      for (size_t g = 0; same && g < first.size(); ++g) {
        same = other[g].members == first[g].members && other[g].step == first[g].step &&
               other[g].axes == first[g].axes && other[g].computation == first[g].computation;
      }
      any_changed |= !same;
      if (!read_bytes) {
        EXPECT_TRUE(same) << "trial " << trial << ": read no bytes, yet other bytes group otherwise";
      }
    }
    changed += any_changed;
  }
  return {read_none, changed};
}

// Dependent all-reduces: many lists read no byte count.
TEST(AllReduceCombiner, ReadBytesTellsWhetherOtherBytesGroupAlikeOnAChain) {
  const std::pair<int, int> counts =
      ExpectReadBytesTellsWhenBytesMatter(bench::GenerateResidualMlp(40, 8, 16).program, 3);
  EXPECT_GT(counts.first, 30) << "lists that read no byte count";
}

// Independent ones: the bytes decide how many fit a group.
TEST(AllReduceCombiner, ReadBytesTellsWhetherOtherBytesGroupAlikeOnAFanIn) {
  const std::pair<int, int> counts =
      ExpectReadBytesTellsWhenBytesMatter(bench::GenerateFanIn(40, 8, 16).program, 4);
  EXPECT_GT(counts.second, 30) << "lists grouped otherwise under other bytes";
}

}  // namespace
}  // namespace memplan::test
