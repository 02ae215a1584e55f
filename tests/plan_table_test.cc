// Plans keep each distinct sharding once (ir::ShardingTable, ir/plan.h):
// what an argument reads back is what was set for it, the table holds no
// two equal entries, and prediction still tells apart two plans that differ
// in one argument among 25,000 (while two that say the same in other
// notation share their work).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/synthetic_program.h"
#include "gtest/gtest.h"
#include "ir/plan.h"
#include "parsers/hlo_sharding_parser.h"
#include "predictor/predict.h"
#include "viz/predict_report.h"

namespace memplan::test {
namespace {

ir::HloSharding Parse(const std::string& text) {
  size_t consumed = 0;
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloSharding(text, &consumed);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return s.ok() ? *s : ir::HloSharding();
}

TEST(ShardingTable, EveryArgumentReadsBackItsSharding) {
  // Shardings alike in most fields: the same devices as an iota and as a
  // list, metadata only, shard groups only, tuples, the named form.
  const std::vector<std::string> texts = {
      "{replicated}",
      "{devices=[8,1]<=[8]}",
      "{devices=[8,1]0,1,2,3,4,5,6,7}",
      "{devices=[1,8]<=[8]}",
      "{devices=[2,4]<=[4,2]T(1,0)}",
      "{devices=[2,4]<=[8]}",
      "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
      "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}",
      "{maximal device=3}",
      "{maximal device=4}",
      "{manual}",
      "{replicated metadata={op_name=\"a\"}}",
      "{replicated metadata={op_name=\"b\"}}",
      "{replicated shard_as 1}",
      "{replicated shard_like 1}",
      "{{replicated}, {devices=[2]0,1}}",
      "{{replicated}, {devices=[2]1,0}}",
      "{mesh['x'=2,'y'=4], [{'x'}, {}]}",
      "{mesh['x'=2,'y'=4], [{'y'}, {}]}",
  };
  std::vector<ir::HloSharding> distinct;
  for (const std::string& t : texts) distinct.push_back(Parse(t));
  ir::ResolvedPlan plan;
  std::vector<size_t> chosen;
  uint64_t state = 7;
  const size_t n = 25000;
  plan.arguments.resize(n);
  for (size_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    // Runs of one sharding, as plans have, and changes anywhere.
    const size_t pick = (state >> 40) % 7 == 0 ? (state >> 20) % distinct.size()
                                               : (i == 0 ? 0 : chosen.back());
    chosen.push_back(pick);
    plan.arguments[i].parameter = static_cast<int64_t>(i);
    plan.SetArgumentSharding(i, distinct[pick]);  // a copy each time
  }
  const ir::ResolvedPlan copy = plan;
  for (size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(plan.ValidShardingIndex(i)) << i;
    ASSERT_EQ(plan.ArgumentSharding(i), distinct[chosen[i]]) << i << ": " << texts[chosen[i]];
    ASSERT_EQ(copy.ArgumentSharding(i).ToString(true), distinct[chosen[i]].ToString(true)) << i;
  }
  // Each used sharding once: the table's size is the number of distinct
  // ones used, and no two entries are equal.
  std::vector<bool> used(distinct.size(), false);
  for (size_t c : chosen) used[c] = true;
  size_t used_count = 0;
  for (bool u : used) used_count += u ? 1 : 0;
  EXPECT_GE(used_count, distinct.size() - 2);  // the draw reaches nearly all
  EXPECT_EQ(plan.shardings.size(), used_count);
  for (size_t a = 0; a < plan.shardings.size(); ++a) {
    for (size_t b = a + 1; b < plan.shardings.size(); ++b) {
      EXPECT_FALSE(plan.shardings[static_cast<int32_t>(a)] == plan.shardings[static_cast<int32_t>(b)])
          << a << " " << b;
    }
  }
  // Interning an equal sharding again names the entry it already has.
  for (size_t i = 0; i < n; i += 997) {
    EXPECT_EQ(plan.shardings.Intern(distinct[chosen[i]]), plan.arguments[i].sharding_index) << i;
  }
  EXPECT_EQ(plan.shardings.size(), used_count);
  // An argument never set reads as replicated.
  ir::ResolvedPlan fresh;
  fresh.arguments.resize(1);
  EXPECT_EQ(fresh.ArgumentSharding(0), ir::HloSharding::Replicated());
}

// The prediction's JSON (every device's bytes, the collectives, the places
// replicated by default) and its per-argument and per-instruction shardings.
struct Seen {
  std::string json;
  std::vector<predictor::AxesSharding> arguments;
  std::vector<std::vector<predictor::AxesSharding>> instructions;
};

Seen See(const ir::Program& program, const predictor::Prediction& p) {
  Seen s;
  s.json = viz::RenderPredictJson({program.module, program.module_name, p});
  s.arguments = p.argument_shardings.items();
  if (p.instruction_shardings) s.instructions = *p.instruction_shardings;
  return s;
}

TEST(SharedPrediction, OneArgumentDifferentAmongTwentyFiveThousandIsNotShared) {
  bench::Generated g = bench::GenerateResidualMlp(25000, 256, 512);
  ASSERT_EQ(g.parameters, 25001);
  predictor::PredictOptions unshared;
  unshared.share_between_candidates = false;
  auto alone = predictor::Predictor::Create(g.program, unshared);
  ASSERT_TRUE(alone.ok());
  const ir::ResolvedPlan base = bench::RotationCandidate(1, g.parameters);  // tp8 column
  // One weight in the middle split on its rows instead of its columns.
  const size_t odd = 12345;
  ir::ResolvedPlan changed = base;
  changed.SetArgumentSharding(odd, ir::HloSharding::Tiled(ir::TileAssignment::Iota({8, 1})));
  ASSERT_EQ(changed.shardings.size(), base.shardings.size() + 1);
  // The same plan with that weight's column split written as a device list:
  // another table entry, the same sharding.
  ir::ResolvedPlan respelled = base;
  respelled.SetArgumentSharding(
      odd, ir::HloSharding::Tiled(ir::TileAssignment::Explicit({1, 8}, {0, 1, 2, 3, 4, 5, 6, 7})));
  ASSERT_EQ(respelled.shardings.size(), base.shardings.size() + 1);

  auto base_alone = (*alone)->Predict(base);
  auto changed_alone = (*alone)->Predict(changed);
  ASSERT_TRUE(base_alone.ok() && changed_alone.ok());
  const Seen want_base = See(g.program, *base_alone);
  const Seen want_changed = See(g.program, *changed_alone);
  // The change matters to the prediction (else the test shows nothing).
  ASSERT_NE(want_base.arguments[odd], want_changed.arguments[odd]);
  ASSERT_NE(want_base.json, want_changed.json);
  ASSERT_NE(want_base.instructions, want_changed.instructions);

  // In either order, with work shared, each gets its own answer; the
  // respelled plan gets the base's.
  for (int order = 0; order < 2; ++order) {
    auto shared = predictor::Predictor::Create(g.program);
    ASSERT_TRUE(shared.ok());
    const ir::ResolvedPlan* sequence[] = {&base, &changed, &respelled, &changed, &base};
    if (order == 1) std::swap(sequence[0], sequence[1]);
    for (const ir::ResolvedPlan* plan : sequence) {
      auto got = (*shared)->Predict(*plan);
      ASSERT_TRUE(got.ok()) << got.status();
      const Seen seen = See(g.program, *got);
      const Seen& want = plan == &changed ? want_changed : want_base;
      EXPECT_EQ(seen.json, want.json) << order;
      EXPECT_EQ(seen.arguments, want.arguments) << order;
      EXPECT_EQ(seen.instructions, want.instructions) << order;
    }
  }
}

TEST(SharedPrediction, AShardingIndexOutsideThePlansTableIsAnError) {
  bench::Generated g = bench::GenerateResidualMlp(4, 8, 16);
  auto predictor = predictor::Predictor::Create(g.program);
  ASSERT_TRUE(predictor.ok());
  ir::ResolvedPlan plan = bench::RotationCandidate(1, g.parameters);
  plan.arguments[3].sharding_index = static_cast<int32_t>(plan.shardings.size());
  auto got = (*predictor)->Predict(plan);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(std::string(got.status().message()).find("argument 3"), std::string::npos)
      << got.status();
  plan.arguments[3].sharding_index = -2;
  EXPECT_FALSE((*predictor)->Predict(plan).ok());
}

}  // namespace
}  // namespace memplan::test
