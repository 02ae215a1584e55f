// The fast paths of prediction give the same answer as the reference ones:
// analyzer::BestFitHeapSize against the event-driven heap simulator on
// random call streams (with sharing), and Predictor::Predict with the fast
// heap against PredictOptions::reference_heap byte-for-byte (the JSON
// report and every device field) on every corpus candidate
// (samples/sharded) and on the benchmarks' 100,001-value synthetic program;
// predictions and prices that share work between candidates against the
// unshared ones on the same; and the all-reduce combiner past 64 members.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/heap_simulator.h"
#include "analyzer/interval_packing.h"
#include "bench/synthetic_program.h"
#include "gtest/gtest.h"
#include "parsers/load_program.h"
#include "predictor/predict.h"
#include "simulator/candidate_cost.h"
#include "simulator/hardware_loader.h"
#include "tests/predict_corpus.h"
#include "tests/prediction_compare.h"
#include "tests/test_util.h"
#include "viz/predict_report.h"

namespace memplan::test {
namespace {

using analyzer::PackingInterval;

// Feeds a heap algorithm and records the same calls as intervals (one tick
// per call, as the simulator counts them).
class Recorder {
 public:
  explicit Recorder(analyzer::HeapAlgorithm& heap) : heap_(heap) {}
  void Alloc(int64_t id, int64_t size) {
    heap_.Alloc(ir::ValueId(id), size);
    index_.resize(std::max<size_t>(index_.size(), static_cast<size_t>(id) + 1), -1);
    index_[static_cast<size_t>(id)] = static_cast<int32_t>(iv_.size());
    iv_.push_back({id, size, tick_++, -1, static_cast<int32_t>(iv_.size())});
  }
  void Share(int64_t id, int64_t canonical, int64_t size) {
    heap_.ShareWith(ir::ValueId(id), ir::ValueId(canonical), size);
    index_.resize(std::max<size_t>(index_.size(), static_cast<size_t>(id) + 1), -1);
    const int32_t group = iv_[static_cast<size_t>(index_[static_cast<size_t>(canonical)])].group;
    index_[static_cast<size_t>(id)] = static_cast<int32_t>(iv_.size());
    iv_.push_back({id, size, tick_++, -1, group});
  }
  void Free(int64_t id) {
    heap_.Free(ir::ValueId(id));
    iv_[static_cast<size_t>(index_[static_cast<size_t>(id)])].end = tick_++;
  }
  const std::vector<PackingInterval>& intervals() const { return iv_; }

 private:
  analyzer::HeapAlgorithm& heap_;
  std::vector<PackingInterval> iv_;
  std::vector<int32_t> index_;
  int64_t tick_ = 0;
};

// A 64-bit linear congruential generator: the same streams on every machine.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint64_t operator()() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return state_ >> 33;
  }

 private:
  uint64_t state_;
};

TEST(BestFitHeapSize, EqualsTheHeapSimulatorOnRandomStreams) {
  Lcg next(12345);
  int spatial_bound_reached = 0, temporal_needed = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t alignment = trial % 3 == 0 ? 1 : trial % 3 == 1 ? 8 : 64;
    auto heap = analyzer::MakeDecreasingSizeBestFitHeap(alignment);
    auto spatial = analyzer::MakeDecreasingSizeBestFitHeap(alignment, analyzer::PackingOrder::kSpatial);
    Recorder rec(*heap);
    Recorder spatial_rec(*spatial);
    std::vector<int64_t> live;
    const int n = 5 + static_cast<int>(next() % 120);
    const int64_t max_size = trial % 2 ? 1000 : 4;  // few sizes: many ties
    for (int64_t id = 0; id < n; ++id) {
      while (!live.empty() && next() % 3 == 0) {
        const size_t k = next() % live.size();
        rec.Free(live[k]);
        spatial_rec.Free(live[k]);
        live.erase(live.begin() + static_cast<long>(k));
      }
      const int64_t size = 1 + static_cast<int64_t>(next() % static_cast<uint64_t>(max_size)) *
                                   (trial % 5 == 0 ? 64 : 1);
      if (!live.empty() && next() % 4 == 0) {
        const int64_t canonical = live[next() % live.size()];
        rec.Share(id, canonical, size);
        spatial_rec.Share(id, canonical, size);
      } else {
        rec.Alloc(id, size);
        spatial_rec.Alloc(id, size);
      }
      live.push_back(id);
    }
    for (int64_t id : live) {
      rec.Free(id);
      spatial_rec.Free(id);
    }
    const int64_t expected = heap->Finish().heap_size;
    ASSERT_EQ(analyzer::BestFitHeapSize(rec.intervals(), alignment), expected) << "trial " << trial;
    const int64_t s = spatial->Finish().heap_size;
    const int64_t bound = analyzer::LiveGroupBytesPeak(rec.intervals());
    EXPECT_GE(expected, bound);  // the bound the skip rule relies on
    if (s == bound) ++spatial_bound_reached;
    if (expected < s) ++temporal_needed;
  }
  // Both branches of the skip rule are exercised.
  EXPECT_GT(spatial_bound_reached, 0);
  EXPECT_GT(temporal_needed, 0);
}

// Only the order of ticks matters: ticks spread far apart (past the span the
// packer indexes by a table, so it searches instead), and past 32 bits
// (negative too), give the heap simulator's size too.
TEST(BestFitHeapSize, SpreadTicksGiveTheSameSize) {
  Lcg next(4242);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t alignment = trial % 2 ? 8 : 1;
    auto heap = analyzer::MakeDecreasingSizeBestFitHeap(alignment);
    Recorder rec(*heap);
    std::vector<int64_t> live;
    const int n = 5 + static_cast<int>(next() % 200);
    for (int64_t id = 0; id < n; ++id) {
      while (!live.empty() && next() % 3 == 0) {
        const size_t k = next() % live.size();
        rec.Free(live[k]);
        live.erase(live.begin() + static_cast<long>(k));
      }
      const int64_t size = 1 + static_cast<int64_t>(next() % 500);
      if (!live.empty() && next() % 5 == 0) {
        rec.Share(id, live[next() % live.size()], size);
      } else {
        rec.Alloc(id, size);
      }
      live.push_back(id);
    }
    for (int64_t id : live) rec.Free(id);
    const int64_t expected = heap->Finish().heap_size;
    std::vector<PackingInterval> spread = rec.intervals();
    const int64_t factor = 1000 + static_cast<int64_t>(next() % 1000);
    for (PackingInterval& p : spread) {
      p.start = p.start * factor + 7;
      p.end = p.end * factor + 7;
    }
    ASSERT_EQ(analyzer::BestFitHeapSize(spread, alignment), expected) << "trial " << trial;
    // Past 32 bits: the packer's 64-bit tree.
    for (PackingInterval& p : spread) {
      p.start = p.start * (int64_t{1} << 20) - (int64_t{1} << 40);
      p.end = p.end * (int64_t{1} << 20) - (int64_t{1} << 40);
    }
    ASSERT_EQ(analyzer::BestFitHeapSize(spread, alignment), expected) << "trial " << trial;
    ASSERT_EQ(analyzer::BestFitHeapSize(rec.intervals(), alignment), expected) << "trial " << trial;
    if (alignment == 1) {  // sizes past 32 bits: every choice compares alike, bytes scale
      for (PackingInterval& p : spread) p.size *= int64_t{1} << 33;
      ASSERT_EQ(analyzer::BestFitHeapSize(spread, alignment), expected * (int64_t{1} << 33))
          << "trial " << trial;
    }
  }
}

// Thousands of short lifetimes (the packer scans their placed ends) under
// long ones that span hundreds of them (the packer walks trees of the long
// and of the short ones), ids shuffled (its radix sort of the order keys):
// the same size as the heap simulator.
TEST(BestFitHeapSize, EqualsTheHeapSimulatorWithShortAndLongLifetimes) {
  Lcg next(991);
  for (int trial = 0; trial < 8; ++trial) {
    const int64_t alignment = trial % 2 ? 64 : 1;
    auto heap = analyzer::MakeDecreasingSizeBestFitHeap(alignment);
    Recorder rec(*heap);
    // Ids in no relation to the call order (ties between equal sizes and
    // lifetimes go to the smaller id).
    std::vector<int64_t> name(3000);
    for (size_t i = 0; i < name.size(); ++i) name[i] = static_cast<int64_t>(i);
    for (size_t i = name.size(); i > 1; --i) std::swap(name[i - 1], name[next() % i]);
    std::vector<int64_t> recent, lasting;
    for (int64_t n = 0; n < 3000; ++n) {
      const int64_t id = name[static_cast<size_t>(n)];
      // Short: freed within a few calls; every 97th lasts ~600 to ~1,800 calls.
      while (recent.size() > 3 || (!recent.empty() && next() % 2 == 0)) {
        const size_t k = next() % recent.size();
        rec.Free(recent[k]);
        recent.erase(recent.begin() + static_cast<long>(k));
      }
      if (!lasting.empty() && next() % 400 == 0) {
        rec.Free(lasting.front());
        lasting.erase(lasting.begin());
      }
      const int64_t size = 8 * (1 + static_cast<int64_t>(next() % (trial < 4 ? 4 : 300)));
      if (!recent.empty() && next() % 7 == 0) {
        rec.Share(id, recent[next() % recent.size()], size);
      } else {
        rec.Alloc(id, size);
      }
      (n % 97 == 0 ? lasting : recent).push_back(id);
    }
    for (int64_t id : recent) rec.Free(id);
    for (int64_t id : lasting) rec.Free(id);
    ASSERT_EQ(analyzer::BestFitHeapSize(rec.intervals(), alignment), heap->Finish().heap_size)
        << "trial " << trial;
  }
}

// Hundreds of buffers live at once: the radix sort of many busy chunks and
// the whole-subtree copies of placed intervals.
TEST(BestFitHeapSize, EqualsTheHeapSimulatorWithManyLiveBuffers) {
  Lcg next(777);
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t alignment = trial % 2 ? 64 : 1;
    auto heap = analyzer::MakeDecreasingSizeBestFitHeap(alignment);
    Recorder rec(*heap);
    std::vector<int64_t> live;
    for (int64_t id = 0; id < 900; ++id) {
      while (live.size() > 150 && next() % 8 == 0) {
        const size_t k = next() % live.size();
        rec.Free(live[k]);
        live.erase(live.begin() + static_cast<long>(k));
      }
      const int64_t size = 64 * (1 + static_cast<int64_t>(next() % (trial < 6 ? 3 : 500)));
      if (!live.empty() && next() % 10 == 0) {
        rec.Share(id, live[next() % live.size()], size);
      } else {
        rec.Alloc(id, size);
      }
      live.push_back(id);
    }
    for (int64_t id : live) rec.Free(id);
    ASSERT_EQ(analyzer::BestFitHeapSize(rec.intervals(), alignment), heap->Finish().heap_size)
        << "trial " << trial;
  }
}

TEST(BestFitHeapSize, EmptyIsZero) { EXPECT_EQ(analyzer::BestFitHeapSize({}, 64), 0); }

TEST(FastPrediction, EqualsTheReferenceOnEveryCorpusCandidate) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  size_t cases = 0;
  for (const CorpusProgram& p : *corpus) {
    auto loaded = parsers::LoadProgram(p.dir, {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    predictor::PredictOptions reference_options;
    reference_options.reference_heap = true;
    auto fast = predictor::Predictor::Create(loaded->program);
    auto reference = predictor::Predictor::Create(loaded->program, reference_options);
    ASSERT_TRUE(fast.ok() && reference.ok());
    for (const CorpusCase& c : p.cases) {
      auto a = (*fast)->Predict(c.plan);
      auto b = (*reference)->Predict(c.plan);
      ASSERT_TRUE(a.ok() && b.ok()) << p.name << " " << c.candidate;
      ExpectSamePrediction(loaded->program, *a, *b, p.name + " " + c.candidate);
      ++cases;
    }
  }
  EXPECT_EQ(cases, 38u);  // samples/sharded/README.md: 6 programs, 38 candidates
}

TEST(FastPrediction, EqualsTheReferenceOnTheSyntheticProgram) {
  bench::Generated g = bench::GenerateResidualMlp(25000, 256, 512);
  ASSERT_EQ(g.program.values.size(), 100001u);
  predictor::PredictOptions reference_options;
  reference_options.reference_heap = true;
  auto fast = predictor::Predictor::Create(g.program);
  auto reference = predictor::Predictor::Create(g.program, reference_options);
  ASSERT_TRUE(fast.ok() && reference.ok());
  for (int k = 0; k < 6; ++k) {
    const ir::ResolvedPlan plan = bench::RotationCandidate(k, g.parameters);
    auto a = (*fast)->Predict(plan);
    auto b = (*reference)->Predict(plan);
    ASSERT_TRUE(a.ok() && b.ok()) << plan.label;
    ExpectSamePrediction(g.program, *a, *b, plan.label);
  }
}

// The plan with another label, its mesh axes renamed, and its first output
// replicated: the same shared key, a different candidate.
ir::ResolvedPlan Variant(const ir::ResolvedPlan& plan) {
  ir::ResolvedPlan v = plan;
  v.label += "_again";
  for (ir::MeshAxis& axis : v.mesh.axes) axis.name += "_renamed";
  if (v.outputs.empty()) v.outputs.resize(1);
  v.outputs[0] = ir::HloSharding::Replicated();
  return v;
}

// Candidates that share work (every corpus candidate twice, and a variant
// of each) get what the unshared predictor computes for them alone.
TEST(SharedPrediction, EqualsUnsharedOnEveryCorpusCandidate) {
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  size_t cases = 0;
  for (const CorpusProgram& p : *corpus) {
    auto loaded = parsers::LoadProgram(p.dir, {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    auto shared = predictor::Predictor::Create(loaded->program);
    auto alone = predictor::Predictor::Create(loaded->program, Unshared());
    ASSERT_TRUE(shared.ok() && alone.ok());
    for (int pass = 0; pass < 3; ++pass) {
      for (const CorpusCase& c : p.cases) {
        const ir::ResolvedPlan plan = pass == 2 ? Variant(c.plan) : c.plan;
        auto a = (*shared)->Predict(plan);
        auto b = (*alone)->Predict(plan);
        ASSERT_TRUE(a.ok() && b.ok()) << p.name << " " << c.candidate;
        ExpectSameDetail(loaded->program, *a, *b, p.name + " " + c.candidate);
        if (pass == 0) ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 38u);
}

TEST(SharedPrediction, EqualsUnsharedOnTheSyntheticProgram) {
  bench::Generated g = bench::GenerateResidualMlp(25000, 256, 512);
  auto alone = predictor::Predictor::Create(g.program, Unshared());
  predictor::PredictOptions small;
  small.shared_capacity = 2;  // entries dropped and made again
  auto shared = predictor::Predictor::Create(g.program);
  auto evicting = predictor::Predictor::Create(g.program, small);
  ASSERT_TRUE(alone.ok() && shared.ok() && evicting.ok());
  std::vector<predictor::Prediction> reference;
  for (int k = 0; k < 6; ++k) {
    auto b = (*alone)->Predict(bench::RotationCandidate(k, g.parameters));
    ASSERT_TRUE(b.ok());
    reference.push_back(*std::move(b));
  }
  for (int k = 0; k < 18; ++k) {
    const ir::ResolvedPlan plan = bench::RotationCandidate(k, g.parameters);
    auto a = (*shared)->Predict(plan);
    auto e = (*evicting)->Predict(plan);
    ASSERT_TRUE(a.ok() && e.ok()) << plan.label;
    ExpectSameDetail(g.program, *a, reference[static_cast<size_t>(k % 6)], plan.label);
    ExpectSameDetail(g.program, *e, reference[static_cast<size_t>(k % 6)], plan.label);
  }
}

void ExpectSameCost(const simulator::CandidateCost& a, const simulator::CandidateCost& b,
                    const std::string& what) {
  EXPECT_EQ(a.prediction.max_device_footprint_bytes, b.prediction.max_device_footprint_bytes)
      << what;
  EXPECT_EQ(a.prediction.label, b.prediction.label) << what;
  EXPECT_EQ(a.flops, b.flops) << what;
  EXPECT_EQ(a.xla_flops, b.xla_flops) << what;
  EXPECT_EQ(a.bytes_accessed, b.bytes_accessed) << what;
  EXPECT_EQ(a.compute_seconds, b.compute_seconds) << what;
  EXPECT_EQ(a.bytes_moved, b.bytes_moved) << what;
  EXPECT_EQ(a.network_bytes, b.network_bytes) << what;
  EXPECT_EQ(a.step.step_seconds, b.step.step_seconds) << what;
  EXPECT_EQ(a.step.exposed_seconds, b.step.exposed_seconds) << what;
  EXPECT_EQ(a.step.collective_seconds, b.step.collective_seconds) << what;
  EXPECT_EQ(a.step.hidden_seconds, b.step.hidden_seconds) << what;
  ASSERT_EQ(a.collectives.size(), b.collectives.size()) << what;
  for (size_t k = 0; k < a.collectives.size(); ++k) {
    const simulator::PricedCollective& x = a.collectives[k];
    const simulator::PricedCollective& y = b.collectives[k];
    EXPECT_TRUE(x.kind == y.kind && x.axes == y.axes && x.role == y.role &&
                x.window == y.window && x.ranks == y.ranks && x.members == y.members &&
                x.operations == y.operations && x.bytes == y.bytes && x.route == y.route &&
                x.seconds == y.seconds && x.nvlink_bytes == y.nvlink_bytes &&
                x.network_bytes == y.network_bytes && x.overlappable == y.overlappable)
        << what << " collective " << k;
  }
  for (analyzer::StepPhase ph : analyzer::kStepPhases) {
    EXPECT_EQ(a.phases.of(ph).seconds, b.phases.of(ph).seconds) << what;
    EXPECT_EQ(a.phases.of(ph).flops, b.phases.of(ph).flops) << what;
  }
}

// The cost model's shared prices equal the unshared ones.
TEST(SharedPrice, EqualsUnsharedOnEveryCorpusCandidate) {
  auto hw = simulator::LoadHardware("h100");
  ASSERT_TRUE(hw.ok()) << hw.status();
  auto corpus = LoadCorpus(SourcePath("samples/sharded"));
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  for (const CorpusProgram& p : *corpus) {
    auto loaded = parsers::LoadProgram(p.dir, {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    simulator::PricingOptions unshared;
    unshared.predict = Unshared();
    auto shared = simulator::CostModel::Create(loaded->program, *hw);
    auto alone = simulator::CostModel::Create(loaded->program, *hw, unshared);
    ASSERT_TRUE(shared.ok() && alone.ok());
    for (int pass = 0; pass < 3; ++pass) {
      for (const CorpusCase& c : p.cases) {
        const ir::ResolvedPlan plan = pass == 2 ? Variant(c.plan) : c.plan;
        auto a = (*shared)->Price(plan);
        auto b = (*alone)->Price(plan);
        ASSERT_TRUE(a.ok() && b.ok()) << p.name << " " << c.candidate;
        ExpectSameCost(*a, *b, p.name + " " + c.candidate);
      }
    }
  }
}

// Whether instruction `from` is `to` or an operand of it, transitively.
bool Reaches(const ir::Module& module, ir::InstructionId from, ir::InstructionId to) {
  std::vector<ir::InstructionId> stack = {to};
  std::vector<bool> seen(module.instruction_count(), false);
  while (!stack.empty()) {
    const ir::InstructionId id = stack.back();
    stack.pop_back();
    if (id == from) return true;
    if (seen[static_cast<size_t>(id.value())]) continue;
    seen[static_cast<size_t>(id.value())] = true;
    for (ir::InstructionId op : module.instruction(id).operands) stack.push_back(op);
  }
  return false;
}

// No combined all-reduce holds two members one of which reads what the
// other's consumer computes (checked by walking operands, not by the
// combiner's own sets); returns the all-reduces.
size_t ExpectCombinedIndependent(const ir::Module& module, const predictor::Prediction& p) {
  size_t reduces = 0;
  for (const auto& c : p.collective_list) reduces += c.kind == predictor::CollectiveKind::kAllReduce;
  size_t members = 0;
  for (const std::vector<size_t>& group : p.combined_all_reduces) {
    members += group.size();
    for (size_t x : group) {
      for (size_t y : group) {
        if (x == y) continue;
        const auto& later = p.collective_list[y];
        std::vector<ir::InstructionId> reads;
        if (later.source.valid()) reads.push_back(later.source);
        else reads = module.instruction(later.at).operands.ToVector();
        for (ir::InstructionId r : reads) {
          EXPECT_FALSE(Reaches(module, p.collective_list[x].at, r))
              << "all-reduce " << y << " reads all-reduce " << x << "'s result";
        }
      }
    }
  }
  EXPECT_EQ(members, reduces);
  return reduces;
}

// tp8 row on a residual chain: every layer's partial sum is reduced where
// the residual add reads it, and the next layer reads that add, so no two
// all-reduces are independent: none combine, however many there are (the
// combiner once tracked only the first 64 and combined the rest).
TEST(CombinedAllReduces, DependentOnesStayApartPastSixtyFour) {
  bench::Generated g = bench::GenerateResidualMlp(100, 256, 512);
  auto predictor = predictor::Predictor::Create(g.program);
  ASSERT_TRUE(predictor.ok());
  auto p = (*predictor)->Predict(bench::RotationCandidate(2, g.parameters));
  ASSERT_TRUE(p.ok()) << p.status();
  const size_t reduces = ExpectCombinedIndependent(g.program.module, *p);
  EXPECT_GE(reduces, 100u);
  EXPECT_EQ(p->combined_all_reduces.size(), reduces);
}

// 100 independent partial sums (tp row weights on a fan-in): all combine
// into one operation, past 64 as before it.
TEST(CombinedAllReduces, IndependentOnesCombinePastSixtyFour) {
  bench::Generated g = bench::GenerateFanIn(100, 256, 512);
  auto predictor = predictor::Predictor::Create(g.program);
  ASSERT_TRUE(predictor.ok());
  auto p = (*predictor)->Predict(bench::RotationCandidate(2, g.parameters));
  ASSERT_TRUE(p.ok()) << p.status();
  const size_t reduces = ExpectCombinedIndependent(g.program.module, *p);
  EXPECT_EQ(reduces, 100u);
  EXPECT_EQ(p->combined_all_reduces.size(), 1u);  // 100 x 512 KiB per device, under 256 MiB
}

}  // namespace
}  // namespace memplan::test
