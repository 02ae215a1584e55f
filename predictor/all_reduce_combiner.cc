#include "predictor/all_reduce_combiner.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/types/span.h"

namespace memplan::predictor {
namespace {

// A set of groups: every group below 64 * full_ (whole words of ones, not
// stored), and the bits of words_ from word full_ on (words_[k] holds
// groups 64 * (full_ + k) to 64 * (full_ + k) + 63). Dependences accumulate
// along the schedule, so sets are mostly a prefix of the groups plus a few
// bits: a chain of n dependent all-reduces (n groups, each depending on
// every earlier one) keeps every set in a word or two, where whole bitsets
// cost O(n / 64) words per merge and per placement.
class GroupSet {
 public:
  void clear() {
    full_ = 0;
    words_.clear();
  }
  // Nothing was ever set since the last clear.
  bool empty() const { return full_ == 0 && words_.empty(); }
  // Word `a` of the set as a plain bitset.
  uint64_t Word(size_t a) const {
    if (a < full_) return ~uint64_t{0};
    return a - full_ < words_.size() ? words_[a - full_] : 0;
  }
  size_t full_words() const { return full_; }
  // One past the last word that may hold a group.
  size_t end_word() const { return full_ + words_.size(); }
  void Assign(const GroupSet& from) {
    full_ = from.full_;
    words_.assign(from.words_.begin(), from.words_.end());
  }
  void Set(size_t i) {
    const size_t a = i / 64;
    if (a < full_) return;
    if (words_.size() <= a - full_) words_.resize(a - full_ + 1, 0);
    words_[a - full_] |= uint64_t{1} << (i % 64);
    if (a == full_) DropFullWords();
  }
  // This set becomes the union of both.
  void Merge(const GroupSet& from) {
    if (from.full_ > full_) {
      const size_t drop = std::min(from.full_ - full_, words_.size());
      words_.erase(words_.begin(), words_.begin() + static_cast<std::ptrdiff_t>(drop));
      full_ = from.full_;
    }
    const size_t start = full_ - from.full_;  // from.words_[start] lines up with words_[0]
    if (from.words_.size() > start) {
      const size_t n = from.words_.size() - start;
      if (words_.size() < n) words_.resize(n, 0);
      for (size_t k = 0; k < n; ++k) words_[k] |= from.words_[start + k];
    }
    DropFullWords();
  }

 private:
  // Leading words of ones join the prefix.
  void DropFullWords() {
    size_t k = 0;
    while (k < words_.size() && words_[k] == ~uint64_t{0}) ++k;
    if (k == 0) return;
    words_.erase(words_.begin(), words_.begin() + static_cast<std::ptrdiff_t>(k));
    full_ += k;
  }

  size_t full_ = 0;
  std::vector<uint64_t> words_;
};

using Bits = GroupSet;

// Sets of groups by handle (-1: none), counted by their holders: a set
// dropped by its last holder goes back to a free list with its words'
// capacity (no atomic counts, no allocation per set once warm).
class SetPool {
 public:
  // A new set holding `bits`, held once.
  int32_t Make(const Bits& bits) {
    int32_t h;
    if (free_.empty()) {
      h = static_cast<int32_t>(sets_.size());
      sets_.emplace_back();
      holders_.push_back(0);
    } else {
      h = free_.back();
      free_.pop_back();
    }
    sets_[static_cast<size_t>(h)].Assign(bits);
    holders_[static_cast<size_t>(h)] = 1;
    return h;
  }
  const Bits& Get(int32_t h) const { return sets_[static_cast<size_t>(h)]; }
  Bits& Mutable(int32_t h) { return sets_[static_cast<size_t>(h)]; }
  void Hold(int32_t h) {
    if (h >= 0) ++holders_[static_cast<size_t>(h)];
  }
  void Drop(int32_t h) {
    if (h >= 0 && --holders_[static_cast<size_t>(h)] == 0) free_.push_back(h);
  }

 private:
  std::vector<Bits> sets_;
  std::vector<int32_t> holders_;
  std::vector<int32_t> free_;
};

// One walk over the schedule: at each instruction, first the all-reduces
// consumed there are placed (what they read was walked before), then the
// instruction's set of groups it depends on is its operands' sets plus the
// groups just placed at it. Sets are bitsets over groups (in a SetPool),
// shared between an instruction and its operand when equal, and dropped
// after their last reader, so a chain of n dependent all-reduces costs O(n^2 / 64) words of
// work and holds only the sets still to be read.
class Combiner {
 public:
  Combiner(const ir::Program& program, const std::vector<ir::ScheduleStep>& step_of,
           const CombinerSchedule& schedule,
           const std::vector<PredictedCollective>& collectives, int64_t threshold)
      : module_(program.module),
        schedule_(schedule),
        step_of_(step_of),
        collectives_(collectives),
        threshold_(threshold) {}

  std::vector<CombinedAllReduce> Run() {
    SortReduces();
    if (reduces_.empty()) return {};
    groups_.reserve(reduces_.size());  // at most one group each
    CountReaders();
    Place(-1);  // consumers outside the schedule: nothing walked yet
    for (size_t s = 0; s < schedule_.instruction.size(); ++s) {
      const ir::InstructionId id = schedule_.instruction[s];
      if (!id.valid()) continue;
      if (schedule_.own_step[s]) {
        Place(static_cast<ir::ScheduleStep>(s));
      } else {
        placed_here_.clear();
      }
      Walk(id, s);
    }
    // Consumers the walk did not reach (a step past the schedule's end).
    while (next_ < reduces_.size()) Place(StepOf(collectives_[reduces_[next_]].at));
    return std::move(groups_);
  }

  // Whether a choice of Run read a group's bytes.
  bool read_bytes() const { return read_bytes_; }

 private:
  ir::ScheduleStep StepOf(ir::InstructionId id) const {
    if (!id.valid() || id.value() >= static_cast<int64_t>(step_of_.size())) return -1;
    return step_of_[static_cast<size_t>(id.value())];
  }

  // The all-reduces, by their consumer's step (then index); propagation
  // records them mostly in schedule order, so the (step, index) pairs are
  // sorted only when they are not already.
  void SortReduces() {
    std::vector<std::pair<ir::ScheduleStep, size_t>> keyed;
    for (size_t c = 0; c < collectives_.size(); ++c) {
      if (collectives_[c].kind == CollectiveKind::kAllReduce) {
        keyed.emplace_back(StepOf(collectives_[c].at), c);
      }
    }
    if (!std::is_sorted(keyed.begin(), keyed.end())) std::sort(keyed.begin(), keyed.end());
    reduces_.reserve(keyed.size());
    for (const auto& k : keyed) reduces_.push_back(k.second);
  }

  // What an all-reduce reads: its source, else its consumer's operands.
  absl::Span<const ir::InstructionId> NeedsOf(const PredictedCollective& pc) const {
    if (pc.source.valid()) return absl::Span<const ir::InstructionId>(&pc.source, 1);
    return module_.instruction(pc.at).operands;
  }

  // Readers still to come per instruction: scheduled users, all-reduces.
  void CountReaders() {
    const size_t n = module_.instruction_count();
    deps_.assign(n, -1);
    readers_.assign(schedule_.readers.begin(), schedule_.readers.end());
    for (size_t c : reduces_) {
      for (ir::InstructionId id : NeedsOf(collectives_[c])) ++readers_[static_cast<size_t>(id.value())];
    }
  }

  // One reader of `id` done: its set goes after the last.
  void Read(ir::InstructionId id) {
    const size_t i = static_cast<size_t>(id.value());
    if (--readers_[i] <= 0) Release(i);
  }

  void Release(size_t i) {
    sets_.Drop(deps_[i]);
    deps_[i] = -1;
  }

  // The group all-reduce `c` joins (a new one when none has room and is
  // independent of it).
  size_t TargetFor(const PredictedCollective& pc, const Bits& needs, Bits& of_key) {
    // Words below needs' prefix hold no group it is independent of.
    for (size_t w = needs.full_words(); w < of_key.end_word(); ++w) {
      uint64_t free = of_key.Word(w) & ~needs.Word(w);
      for (; free != 0; free &= free - 1) {
        const size_t g = 64 * w + static_cast<size_t>(__builtin_ctzll(free));
        read_bytes_ = true;
        if (groups_[g].bytes + pc.result_bytes <= threshold_) return g;
      }
    }
    const ir::ComputationId comp = module_.instruction(pc.at).computation;
    groups_.push_back(CombinedAllReduce{comp, pc.axes, 0, 0, {}});
    of_key.Set(groups_.size() - 1);
    return groups_.size() - 1;
  }

  // Places every all-reduce consumed at step `step`; their groups in
  // placed_here_ (a list: a group's bit set alone in an empty GroupSet
  // would cost a word per 64 groups before it).
  void Place(ir::ScheduleStep step) {
    placed_here_.clear();
    for (; next_ < reduces_.size() && StepOf(collectives_[reduces_[next_]].at) == step; ++next_) {
      const size_t c = reduces_[next_];
      const PredictedCollective& pc = collectives_[c];
      Bits& needs = needs_;
      needs.clear();
      for (ir::InstructionId id : NeedsOf(pc)) {
        const int32_t d = deps_[static_cast<size_t>(id.value())];
        if (d >= 0) needs.Merge(sets_.Get(d));
        Read(id);
      }
      const ir::ComputationId comp = module_.instruction(pc.at).computation;
      const size_t target = TargetFor(pc, needs, by_key_[{comp.value(), pc.axes}]);
      CombinedAllReduce& g = groups_[target];
      g.bytes += pc.result_bytes;
      g.step = std::max(g.step, StepOf(pc.at));
      g.members.push_back(c);
      placed_here_.push_back(target);
    }
  }

  // Instruction `id`'s set: the union of its operands' sets and the groups
  // placed here, shared with the one operand that holds it all when nothing
  // is added.
  void Walk(ir::InstructionId id, size_t step) {
    const size_t i = static_cast<size_t>(id.value());
    const absl::Span<const ir::InstructionId> operands(
        schedule_.operands.data() + schedule_.operands_start[step],
        schedule_.operands_start[step + 1] - schedule_.operands_start[step]);
    int32_t only = deps_[i];
    bool single = placed_here_.empty();
    for (ir::InstructionId op : operands) {
      const int32_t d = deps_[static_cast<size_t>(op.value())];
      if (d < 0 || d == only) continue;
      if (only < 0) only = d;
      else single = false;
    }
    if (single) {
      sets_.Hold(only);
      sets_.Drop(deps_[i]);
      deps_[i] = only;
    } else {
      // The operands' sets first: the groups placed here are the newest,
      // mostly just past their prefix.
      const int32_t made = sets_.Make(empty_);
      Bits& bits = sets_.Mutable(made);
      if (deps_[i] >= 0) bits.Merge(sets_.Get(deps_[i]));
      for (ir::InstructionId op : operands) {
        const int32_t d = deps_[static_cast<size_t>(op.value())];
        if (d >= 0) bits.Merge(sets_.Get(d));
      }
      for (size_t g : placed_here_) bits.Set(g);
      sets_.Drop(deps_[i]);
      deps_[i] = made;
    }
    for (ir::InstructionId op : operands) Read(op);
    if (readers_[i] <= 0) Release(i);
  }

  const ir::Module& module_;
  const CombinerSchedule& schedule_;
  const std::vector<ir::ScheduleStep>& step_of_;
  const std::vector<PredictedCollective>& collectives_;
  const int64_t threshold_;
  std::vector<size_t> reduces_;  // all-reduces by consumer step
  size_t next_ = 0;              // into reduces_: the next to place
  SetPool sets_;
  std::vector<int32_t> deps_;    // per instruction: its set in sets_ (-1: none)
  std::vector<int32_t> readers_;  // per instruction: readers still to come
  std::vector<CombinedAllReduce> groups_;
  // Per (computation, axes): the groups of that key, as a bitset.
  std::map<std::pair<int64_t, AxisMask>, Bits> by_key_;
  std::vector<size_t> placed_here_;  // groups placed at the step being walked
  const Bits empty_;
  Bits needs_;  // scratch: what the all-reduce being placed depends on
  bool read_bytes_ = false;
};

}  // namespace

CombinerSchedule CombinerSchedule::Of(const ir::Program& program,
                                      const std::vector<ir::ScheduleStep>& step_of) {
  const ir::Module& module = program.module;
  const std::vector<ir::InstructionId>& steps = program.schedule.instructions;
  CombinerSchedule out;
  out.instruction.resize(steps.size());
  out.own_step.assign(steps.size(), 0);
  out.operands_start.reserve(steps.size() + 1);
  out.readers.assign(module.instruction_count(), 0);
  for (size_t s = 0; s < steps.size(); ++s) {
    out.operands_start.push_back(static_cast<uint32_t>(out.operands.size()));
    const ir::InstructionId id = steps[s];
    if (!module.contains(id)) continue;
    out.instruction[s] = id;
    const size_t i = static_cast<size_t>(id.value());
    out.own_step[s] = i < step_of.size() && step_of[i] == static_cast<ir::ScheduleStep>(s);
    for (ir::InstructionId op : module.instruction(id).operands) {
      out.operands.push_back(op);
      ++out.readers[static_cast<size_t>(op.value())];
    }
  }
  out.operands_start.push_back(static_cast<uint32_t>(out.operands.size()));
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
