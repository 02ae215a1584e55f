// simulator/candidate_cost.h and simulator/rank.h on the sharded corpus:
// factorisations, nodes, the collectives of a candidate priced by the
// formula of docs/cost-model.md and held against XLA's compile, routes by
// where a mesh axis falls in the device order, the per-device FLOPs of every
// corpus candidate against XLA's cost_analysis() of its 8-device compile,
// and the budget's edges.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "analyzer/plan_families.h"
#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "parsers/plan_parser.h"
#include "parsers/source_text.h"
#include "simulator/rank.h"
#include "tests/sharded_fixture.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using simulator::CandidateCost;
using simulator::CostModel;
using simulator::PricedCollective;

llvm::json::Value Json(const std::string& path) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(test::ReadFileOrDie(path));
  EXPECT_TRUE(static_cast<bool>(v));
  return v ? std::move(*v) : llvm::json::Value(nullptr);
}

TEST(Factorisations, OrderedWithFactorsOfTwoOrMore) {
  using V = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(simulator::OrderedFactorisations(8, 1), (V{{8}}));
  EXPECT_EQ(simulator::OrderedFactorisations(8, 2), (V{{2, 4}, {4, 2}}));
  EXPECT_EQ(simulator::OrderedFactorisations(8, 3), (V{{2, 2, 2}}));
  EXPECT_EQ(simulator::OrderedFactorisations(12, 2), (V{{2, 6}, {3, 4}, {4, 3}, {6, 2}}));
  EXPECT_EQ(simulator::OrderedFactorisations(7, 2), V{});
  EXPECT_EQ(simulator::OrderedFactorisations(1, 2), (V{{1, 1}}));
  EXPECT_EQ(simulator::OrderedFactorisations(8, 0), V{});
}

TEST(DevicesPerNode, FromNodesOrTheHardware) {
  const simulator::Hardware hw = test::H100();
  ASSERT_EQ(hw.gpus_per_node, 8);
  EXPECT_EQ(*simulator::DevicesPerNode(hw, 8, std::nullopt), 8);
  EXPECT_EQ(*simulator::DevicesPerNode(hw, 4, std::nullopt), 4);
  EXPECT_EQ(*simulator::DevicesPerNode(hw, 32, std::nullopt), 8);
  EXPECT_EQ(*simulator::DevicesPerNode(hw, 8, 2), 4);
  EXPECT_EQ(*simulator::DevicesPerNode(hw, 16, 2), 8);
  EXPECT_FALSE(simulator::DevicesPerNode(hw, 16, 3).ok());  // uneven
  EXPECT_FALSE(simulator::DevicesPerNode(hw, 16, 1).ok());  // 16 on an 8-GPU node
  EXPECT_FALSE(simulator::DevicesPerNode(hw, 16, 0).ok());
}

TEST(EnumerateFamilies, EveryFactorisationInFamilyOrder) {
  const test::ShardedProgram l = test::LoadShardedProgram("mlp_train_step");
  auto e = simulator::EnumerateFamilies(l.arguments, 8, {"dp", "fsdp+tp", "tp"}, l.inputs);
  ASSERT_TRUE(e.ok()) << e.status();
  std::vector<std::string> labels;
  for (const simulator::Candidate& c : e->candidates) labels.push_back(c.plan.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"dp8", "fsdp2_tp4", "fsdp4_tp2", "tp8"}));
  EXPECT_TRUE(e->skipped.empty());
  // A mesh the family rules cannot shard on: the batch (256) does not divide by 3.
  auto odd = simulator::EnumerateFamilies(l.arguments, 3, {"dp"}, l.inputs);
  ASSERT_TRUE(odd.ok());
  EXPECT_TRUE(odd->candidates.empty());
  ASSERT_EQ(odd->skipped.size(), 1u);
  EXPECT_EQ(odd->skipped[0].reason, simulator::SkipReason::kFamilyRule);
  EXPECT_FALSE(simulator::EnumerateFamilies(l.arguments, 8, {"xp"}, l.inputs).ok());
}

TEST(LowerSpecPlan, GivesThePlanFileShardings) {
  // The family plan lowered directly equals the corpus plan file resolved by
  // the plan parser (the same shardings JAX gave, tests/plan_corpus_test.cc).
  const test::ShardedProgram l = test::LoadShardedProgram("mlp_train_step");
  const ir::ResolvedPlan lowered = test::FamilyPlan(l, {{"dp", 2}, {"tp", 4}});
  auto source = parsers::SourceText::FromFile(
      test::SourcePath("samples/sharded/mlp_train_step/candidates/dp2_tp4.plan.yaml"));
  ASSERT_TRUE(source.ok());
  auto file = parsers::ParsePlan(*source);
  ASSERT_TRUE(file.ok()) << file.status();
  auto resolved = parsers::ResolvePlan(*file, l.arguments, ir::EntryOutputs(l.loaded.program.module));
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  ASSERT_EQ(lowered.arguments.size(), resolved->arguments.size());
  for (size_t i = 0; i < lowered.arguments.size(); ++i) {
    EXPECT_EQ(lowered.ArgumentSharding(i).ToString(), resolved->ArgumentSharding(i).ToString()) << i;
  }
}

// dp8 of the MLP: one all-reduce over dp of every gradient and the loss.
// Its bytes are what XLA's 8-device compile all-reduces (truth.json's
// collective_summary), its time the ring formula of docs/cost-model.md with
// the h100 preset's NVLink figures, computed here by hand. The pricing
// lists it by role (the gradients', which hide behind backward, and the
// loss's, which does not), each with its share of the one operation.
TEST(CandidateCost, DataParallelAllReduceIsXlasAndPricedByTheRingFormula) {
  const test::ShardedProgram l = test::LoadShardedProgram("mlp_train_step");
  const simulator::Hardware hw = test::H100();
  auto model = CostModel::Create(l.loaded.program, hw);
  ASSERT_TRUE(model.ok()) << model.status();
  auto cost = (*model)->Price(test::FamilyPlan(l, {{"dp", 8}}));
  ASSERT_TRUE(cost.ok()) << cost.status();
  ASSERT_EQ(cost->collectives.size(), 2u);
  PricedCollective ar = cost->collectives[0];
  double hideable = 0;
  ar.bytes = ar.operations = ar.seconds = ar.nvlink_bytes = ar.network_bytes = 0;
  for (const PricedCollective& p : cost->collectives) {
    EXPECT_EQ(p.kind, predictor::CollectiveKind::kAllReduce);
    EXPECT_EQ(p.ranks, 8);
    EXPECT_EQ(p.route, simulator::Route::kNvlink);
    ar.bytes += p.bytes;
    ar.operations += p.operations;
    ar.seconds += p.seconds;
    ar.nvlink_bytes += p.nvlink_bytes;
    ar.network_bytes += p.network_bytes;
    hideable += p.overlappable * p.seconds;
  }
  EXPECT_DOUBLE_EQ(ar.operations, 1.0);
  const llvm::json::Value truth =
      Json(test::SourcePath("samples/sharded/mlp_train_step/candidates/dp8.truth.json"));
  const llvm::json::Object* summary =
      (*truth.getAsObject()->getArray("collective_summary"))[0].getAsObject();
  EXPECT_EQ(summary->getString("kind"), llvm::StringRef("all-reduce"));
  EXPECT_DOUBLE_EQ(ar.bytes, static_cast<double>(*summary->getInteger("result_bytes_per_step")));
  const simulator::AlphaBeta p = hw.ParamsFor(simulator::Link::kNvlink, ir::CollectiveKind::kAllReduce);
  const double s = ar.bytes;
  const double expected = 2 * 7 * p.alpha + 2.0 * 7 / 8 * s / p.bandwidth;
  EXPECT_NEAR(ar.seconds, expected, 1e-12);
  EXPECT_NEAR(ar.nvlink_bytes, 2.0 * 7 / 8 * s, 1e-6);
  EXPECT_EQ(ar.network_bytes, 0);
  // Per-collective overlap: the gradients' part hides behind backward
  // compute, up to its time.
  const double backward = cost->phases.of(analyzer::StepPhase::kBackward).seconds;
  EXPECT_GT(hideable, 0);
  EXPECT_LT(hideable, ar.seconds);
  EXPECT_NEAR(cost->step.step_seconds,
              cost->compute_seconds + ar.seconds - std::min(hideable, backward), 1e-15);
}

// 16 devices on two 8-GPU nodes. Mesh dp=2,tp=8 puts tp on neighbouring
// devices: tp groups {0..7} {8..15} stay in a node (NVLink), dp groups
// {i, i+8} cross (network). Mesh tp=8,dp=2 swaps them: dp groups {2k, 2k+1}
// are in a node; tp groups {0,2,...,14} put 4 on each node (hierarchical).
TEST(CandidateCost, RouteFollowsWhereTheAxisFallsInTheDeviceOrder) {
  const test::ShardedProgram l = test::LoadShardedProgram("mlp_train_step");
  simulator::PricingOptions options;
  options.gpus_per_node = 8;
  auto model = CostModel::Create(l.loaded.program, test::H100(), options);
  ASSERT_TRUE(model.ok()) << model.status();
  auto routes = [&](std::vector<ir::MeshAxis> axes) {
    auto cost = (*model)->Price(test::FamilyPlan(l, axes));
    EXPECT_TRUE(cost.ok()) << cost.status();
    std::map<std::string, simulator::Route> out;
    for (const PricedCollective& c : cost->collectives) {
      std::string names;
      for (size_t k = 0; k < axes.size(); ++k) {
        if ((c.axes >> k) & 1u) names += axes[k].name;
      }
      out[names] = c.route;  // one route per axis set (the slowest kind's)
    }
    return out;
  };
  const auto dp_major = routes({{"dp", 2}, {"tp", 8}});
  ASSERT_TRUE(dp_major.count("dp") && dp_major.count("tp"));
  EXPECT_EQ(dp_major.at("dp"), simulator::Route::kNetwork);
  EXPECT_EQ(dp_major.at("tp"), simulator::Route::kNvlink);
  const auto tp_major = routes({{"tp", 8}, {"dp", 2}});
  ASSERT_TRUE(tp_major.count("dp") && tp_major.count("tp"));
  EXPECT_EQ(tp_major.at("dp"), simulator::Route::kNvlink);
  EXPECT_EQ(tp_major.at("tp"), simulator::Route::kHierarchical);
}

// The per-device FLOPs of each corpus candidate against XLA's
// cost_analysis() of its 8-device compile (loop bodies counted once, as XLA
// counts them). The rule (each instruction's work over the ways its result
// is split) holds within 1% wherever propagation gives the instruction the
// sharding XLA's partitioner gave it. The misses (docs/cost-model.md) are
// where it does not: transformer_fwd tp8 (+14.7%: work replicated that XLA
// splits) and moe_train_step dp2_ep4 (-24.9%). Since the backward pass
// (predictor/backward.cc) ep8 and fsdp8 are within 0.1% (they were +29%);
// dp2_ep4 went from -15.4% to -24.9%: its dispatch path is now split over
// (dp, ep) as in XLA's partitioned program (every entry shape checked
// against its dump), where XLA, unable to reshard the combine ("involuntary
// full rematerialization" in its log), all-gathers it and repeats work that
// memplan counts once.
TEST(CandidateCost, PerDeviceFlopsNearXlasOnTheCorpus) {
  const simulator::Hardware hw = test::H100();
  const std::map<std::string, double> misses = {{"transformer_fwd/tp8", 0.16},
                                                {"moe_train_step/dp2_ep4", 0.25}};
  int cases = 0;
  for (const char* program : {"mlp_train_step", "transformer_train_adam", "transformer_fwd",
                              "convnet_train_step", "moe_train_step", "scan_layers_train_step"}) {
    const test::ShardedProgram l = test::LoadShardedProgram(program);
    auto model = CostModel::Create(l.loaded.program, hw);
    ASSERT_TRUE(model.ok()) << model.status();
    const std::string dir = test::SourcePath(std::string("samples/sharded/") + program + "/candidates");
    std::vector<std::string> entries;
    for (const auto& e : std::filesystem::directory_iterator(dir)) entries.push_back(e.path().filename());
    std::sort(entries.begin(), entries.end());
    for (const std::string& entry : entries) {
      if (!entry.ends_with(".plan.yaml")) continue;
      const std::string stem = entry.substr(0, entry.size() - std::string(".plan.yaml").size());
      auto source = parsers::SourceText::FromFile(dir + "/" + entry);
      ASSERT_TRUE(source.ok());
      auto file = parsers::ParsePlan(*source);
      ASSERT_TRUE(file.ok()) << file.status();
      auto plan = parsers::ResolvePlan(*file, l.arguments, ir::EntryOutputs(l.loaded.program.module));
      ASSERT_TRUE(plan.ok()) << plan.status();
      auto cost = (*model)->Price(*plan);
      ASSERT_TRUE(cost.ok()) << program << " " << stem << ": " << cost.status();
      const llvm::json::Value truth = Json(dir + "/" + stem + ".truth.json");
      const double xla = *truth.getAsObject()->getObject("cost_analysis")->getNumber("flops");
      const double error = (cost->xla_flops - xla) / xla;
      const auto miss = misses.find(std::string(program) + "/" + stem);
      EXPECT_LE(std::abs(error), miss == misses.end() ? 0.01 : miss->second)
          << program << " " << stem << ": memplan " << cost->xla_flops << ", XLA " << xla;
      ++cases;
    }
  }
  EXPECT_EQ(cases, 38);
}

// Exactly at the budget fits (headroom 0); a byte less does not.
TEST(RankCandidates, BudgetEdges) {
  const test::ShardedProgram l = test::LoadShardedProgram("mlp_train_step");
  auto model = CostModel::Create(l.loaded.program, test::H100());
  ASSERT_TRUE(model.ok());
  auto e = simulator::EnumerateFamilies(l.arguments, 8, {"dp", "fsdp"}, l.inputs);
  ASSERT_TRUE(e.ok());
  auto loose = simulator::RankCandidates(**model, 8, int64_t{1} << 40, e->candidates);
  ASSERT_TRUE(loose.ok());
  ASSERT_EQ(loose->fitting.size(), 2u);
  const simulator::RankedCandidate* smallest = loose->Smallest();
  ASSERT_NE(smallest, nullptr);
  const int64_t f = smallest->footprint_bytes;
  auto exact = simulator::RankCandidates(**model, 8, f, e->candidates);
  ASSERT_TRUE(exact.ok());
  ASSERT_EQ(exact->fitting.size(), 1u);
  EXPECT_EQ(exact->fitting[0].label, smallest->label);
  EXPECT_EQ(exact->fitting[0].headroom_bytes, 0);
  EXPECT_EQ(exact->over_budget.size(), 1u);
  auto under = simulator::RankCandidates(**model, 8, f - 1, e->candidates);
  ASSERT_TRUE(under.ok());
  EXPECT_TRUE(under->fitting.empty());
  ASSERT_EQ(under->over_budget.size(), 2u);
  EXPECT_EQ(under->over_budget[0].label, smallest->label);  // smallest first
  EXPECT_EQ(under->over_budget[0].headroom_bytes, -1);
  EXPECT_EQ(under->Smallest()->footprint_bytes, f);
}

TEST(RankCandidates, PlanOfAnotherDeviceCountIsSkipped) {
  const test::ShardedProgram l = test::LoadShardedProgram("mlp_train_step");
  auto model = CostModel::Create(l.loaded.program, test::H100());
  ASSERT_TRUE(model.ok());
  std::vector<simulator::Candidate> candidates(1);
  candidates[0].plan = test::FamilyPlan(l, {{"dp", 4}});
  auto r = simulator::RankCandidates(**model, 8, int64_t{1} << 40, candidates);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->fitting.empty());
  ASSERT_EQ(r->skipped.size(), 1u);
  EXPECT_EQ(r->skipped[0].reason, simulator::SkipReason::kDeviceCount);
  EXPECT_EQ(r->skipped[0].mesh_devices, 4);
}

}  // namespace
}  // namespace memplan
