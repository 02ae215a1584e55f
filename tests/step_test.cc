// The training step's parts and what rank hands to the executor, on the
// sharded corpus:
// - forward, backward and optimizer (analyzer/step_phases.h) against JAX's
//   op_names and against matmul FLOPs computed here from the programs'
//   layer sizes (truth.json's config);
// - the overlap of collectives by what they do (simulator/overlap.h,
//   step_time.h), not by mesh axis names;
// - the executor plan of a priced candidate (executor/candidate_plan.h)
//   read back by the executor's own parser, its totals the prediction's.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analyzer/plan_families.h"
#include "analyzer/step_phases.h"
#include "executor/candidate_plan.h"
#include "executor/plan_json.h"
#include "gtest/gtest.h"
#include "ir/hlo_attributes.h"
#include "llvm/Support/JSON.h"
#include "parsers/source_text.h"
#include "simulator/rank.h"
#include "tests/sharded_fixture.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using analyzer::StepPhase;
using simulator::CollectiveRole;
using simulator::CostModel;
using simulator::PricedCollective;

// truth.json's "config" of a corpus program (what the generator built).
std::map<std::string, int64_t> Config(const std::string& program) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(
      test::ReadFileOrDie(test::SourcePath("samples/sharded/" + program + "/truth.json")));
  EXPECT_TRUE(static_cast<bool>(v));
  std::map<std::string, int64_t> out;
  if (!v) return out;
  for (const auto& [key, value] : *v->getAsObject()->getObject("config")) {
    if (auto n = value.getAsInteger()) out[key.str()] = *n;
  }
  return out;
}

// FLOPs of every dot of the module (fused ones too) by phase, from its
// shapes and dimension numbers: 2 * output elements * contracted size.
std::map<StepPhase, double> DotFlops(const ir::Module& m) {
  const analyzer::StepPhases phases = analyzer::ClassifyStepPhases(m);
  std::map<StepPhase, double> out;
  for (const ir::Instruction& i : m.instructions()) {
    if (i.opcode != ir::Opcode::kDot) continue;
    const std::optional<ir::DotDimensionNumbers>& dims = m.attributes(i).dot;
    EXPECT_TRUE(dims.has_value()) << i.name;
    if (!dims) continue;
    double flops = 2;
    for (int64_t n : i.shape->dims) flops *= static_cast<double>(n);
    const ir::Shape& lhs = m.instruction(i.operands[0]).shape;
    for (int64_t k : dims->lhs_contracting) flops *= static_cast<double>(lhs.dims[static_cast<size_t>(k)]);
    out[phases.at(i.id)] += flops;
  }
  return out;
}

// JAX's op_names say forward and backward; the SGD update (op_name
// ".../sub" and ".../mul" outside jvp) is the optimizer.
TEST(StepPhases, MlpFollowsJaxOpNames) {
  const test::ShardedProgram l = test::LoadShardedProgram("mlp_train_step");
  const ir::Module& m = l.module();
  const analyzer::StepPhases phases = analyzer::ClassifyStepPhases(m);
  ASSERT_TRUE(phases.training);
  std::map<StepPhase, int> count;
  for (ir::InstructionId id : m.entry_computation()->instructions) {
    const ir::Instruction& i = m.instruction(id);
    const std::string op_name(i.metadata->op_name);
    const StepPhase p = phases.at(id);
    ++count[p];
    if (op_name.find("transpose(jvp") != std::string::npos) {
      EXPECT_EQ(p, StepPhase::kBackward) << i.name;
    } else if (op_name.find("jvp(") != std::string::npos) {
      EXPECT_EQ(p, StepPhase::kForward) << i.name;
    } else if (op_name == "jit(mlp_train_step)/sub" || op_name == "jit(mlp_train_step)/mul") {
      EXPECT_EQ(p, StepPhase::kOptimizer) << i.name;
    }
  }
  EXPECT_EQ(phases.at(m.entry_computation()->root), StepPhase::kOptimizer);  // the output tuple
  // 8 parameter updates, one fusion each.
  EXPECT_GE(count[StepPhase::kOptimizer], 8);
}

// Four layers x -> 2048 -> 512 -> 2048 -> 512: each dot of the forward pass
// costs 2*batch*d_model*d_ff. The backward pass computes every weight's
// gradient (4 dots) and the gradient of every layer's input but the first
// (x is not differentiated: 3 dots). SGD multiplies and subtracts once per
// parameter element and has no dot.
TEST(StepPhases, MlpMatmulFlopsFromTheLayerSizes) {
  const test::ShardedProgram l = test::LoadShardedProgram("mlp_train_step");
  std::map<std::string, int64_t> c = Config("mlp_train_step");
  const double layer = 2.0 * c["batch"] * c["d_model"] * c["d_ff"];
  const double parameters =
      c["blocks"] * static_cast<double>(c["d_model"] * c["d_ff"] + c["d_ff"] + c["d_ff"] * c["d_model"] +
                                        c["d_model"]);
  const simulator::ComputeCost cost = simulator::AnalyzeCompute(l.module(), test::H100());
  ASSERT_TRUE(cost.phases.training);
  const std::map<StepPhase, double> matmul = DotFlops(l.module());
  EXPECT_EQ(matmul.at(StepPhase::kForward), 4 * layer);
  EXPECT_EQ(matmul.at(StepPhase::kBackward), 7 * layer);
  EXPECT_EQ(matmul.count(StepPhase::kOptimizer), 0u);
  EXPECT_EQ(cost.phases.of(StepPhase::kOptimizer).flops, 2 * parameters);
  double seconds = 0, flops = 0;
  for (StepPhase p : analyzer::kStepPhases) {
    seconds += cost.phases.of(p).seconds;
    flops += cost.phases.of(p).flops;
  }
  EXPECT_NEAR(seconds, cost.seconds, 1e-12 * cost.seconds);
  EXPECT_EQ(flops, cost.executed_flops);
}

// One pre-LN block with Adam, params and optimizer state donated: the
// outputs aliased to them come from the optimizer, the loss from the
// forward pass. Matmuls: the six weights (q, k, v, o: d x d; fc1, fc2:
// d x d_ff) cost W = 2*B*S*(4d^2 + 2*d*d_ff) forward, and the two attention
// products (scores, weighted values) A = 2 * 2*B*S*S*d. Backward: every
// weight's gradient (W), the input gradients of o, fc1 and fc2 (the input
// of q, k and v is LayerNorm(x), which no parameter feeds), and both
// operands of both attention products (2A).
TEST(StepPhases, AdamTransformerFromTheBlockSizes) {
  const test::ShardedProgram l = test::LoadShardedProgram("transformer_train_adam");
  const ir::Module& m = l.module();
  std::map<std::string, int64_t> c = Config("transformer_train_adam");
  const double B = c["batch"], S = c["seq"], d = c["d_model"], f = c["d_ff"];
  const double w = 2 * B * S * (4 * d * d + 2 * d * f);
  const double a = 2 * (2 * B * S * S * d);
  const simulator::ComputeCost cost = simulator::AnalyzeCompute(m, test::H100());
  ASSERT_TRUE(cost.phases.training);
  const std::map<StepPhase, double> matmul = DotFlops(m);
  EXPECT_EQ(matmul.at(StepPhase::kForward), w + a);
  EXPECT_EQ(matmul.at(StepPhase::kBackward), w + 2 * B * S * (d * d + 2 * d * f) + 2 * a);
  EXPECT_EQ(matmul.count(StepPhase::kOptimizer), 0u);

  const analyzer::StepPhases phases = analyzer::ClassifyStepPhases(m);
  const ir::Instruction& root = m.instruction(m.entry_computation()->root);
  ASSERT_FALSE(m.header.input_output_aliases.empty());
  for (const ir::InputOutputAlias& alias : m.header.input_output_aliases) {
    ASSERT_EQ(alias.output_index.size(), 1u);
    const ir::InstructionId out = root.operands[static_cast<size_t>(alias.output_index[0])];
    EXPECT_EQ(phases.at(out), StepPhase::kOptimizer) << m.instruction(out).name;
  }
  EXPECT_EQ(phases.at(root.operands.back()), StepPhase::kForward);  // the loss
}

TEST(StepPhases, ForwardOnlyProgramIsNoTrainingStep) {
  const test::ShardedProgram l = test::LoadShardedProgram("transformer_fwd");
  EXPECT_FALSE(analyzer::ClassifyStepPhases(l.module()).training);
  const simulator::ComputeCost cost = simulator::AnalyzeCompute(l.module(), test::H100());
  EXPECT_FALSE(cost.phases.training);
  EXPECT_EQ(cost.phases.of(StepPhase::kForward).seconds, cost.seconds);
}

// Windows by hand: forward 2 s, backward 3 s, optimizer 1 s of compute.
TEST(StepTime, CollectivesHideBehindTheirWindowOnly) {
  using simulator::PhaseBit;
  const std::array<double, 3> compute = {2, 3, 1};
  const std::vector<simulator::TimedCollective> c = {
      {4, 1, PhaseBit(StepPhase::kBackward)},  // gradients: 3 of 4 s hide
      {1, 1, PhaseBit(StepPhase::kForward)},   // a prefetch read in forward
      {2, 0, 0}};                              // critical
  const simulator::StepTime per = simulator::CombineStepTime(compute, c, simulator::OverlapModel::kPerCollective);
  EXPECT_EQ(per.compute_seconds, 6);
  EXPECT_EQ(per.collective_seconds, 7);
  EXPECT_EQ(per.exposed_seconds, 7 - 3 - 1);
  EXPECT_EQ(per.step_seconds, 9);
  EXPECT_EQ(per.hidden_seconds[0], 1);
  EXPECT_EQ(per.hidden_seconds[1], 3);
  EXPECT_EQ(per.hidden_seconds[2], 0);
  EXPECT_EQ(simulator::CombineStepTime(compute, c, simulator::OverlapModel::kFull).step_seconds, 7);
  EXPECT_EQ(simulator::CombineStepTime(compute, c, simulator::OverlapModel::kNone).step_seconds, 13);
  // A prefetch read in backward may use forward's time that the narrower
  // gradient window cannot: 2 s of gradients and 3 s of prefetch over
  // forward+backward, 1 s and 3 s of compute, hide 4 s.
  const std::vector<simulator::TimedCollective> d = {
      {3, 1, static_cast<simulator::PhaseMask>(PhaseBit(StepPhase::kForward) | PhaseBit(StepPhase::kBackward))},
      {2, 1, PhaseBit(StepPhase::kBackward)}};
  EXPECT_EQ(simulator::CombineStepTime({1, 3, 0}, d, simulator::OverlapModel::kPerCollective).exposed_seconds, 1);
}

std::map<CollectiveRole, std::vector<const PricedCollective*>> ByRole(const simulator::CandidateCost& cost) {
  std::map<CollectiveRole, std::vector<const PricedCollective*>> out;
  for (const PricedCollective& p : cost.collectives) out[p.role].push_back(&p);
  return out;
}

// dp8: the gradients' all-reduce hides behind backward; the loss's
// all-reduce (XLA combines it with the gradients') is critical. Step =
// compute + collectives - the gradient time backward covers.
TEST(Overlap, DataParallelGradientsHideBehindBackward) {
  const test::ShardedProgram l = test::LoadShardedProgram("mlp_train_step");
  auto model = CostModel::Create(l.loaded.program, test::H100());
  ASSERT_TRUE(model.ok()) << model.status();
  auto cost = (*model)->Price(test::FamilyPlan(l, {{"dp", 8}}));
  ASSERT_TRUE(cost.ok()) << cost.status();
  auto roles = ByRole(*cost);
  ASSERT_EQ(roles[CollectiveRole::kGradient].size(), 1u);
  const PricedCollective& g = *roles[CollectiveRole::kGradient][0];
  EXPECT_EQ(g.kind, predictor::CollectiveKind::kAllReduce);
  EXPECT_EQ(g.window, simulator::PhaseBit(StepPhase::kBackward));
  EXPECT_EQ(g.members, 8);  // one per parameter
  EXPECT_EQ(roles[CollectiveRole::kPrefetch].size(), 0u);
  double all = 0;
  for (const PricedCollective& p : cost->collectives) all += p.seconds;
  const double backward = cost->phases.of(StepPhase::kBackward).seconds;
  EXPECT_NEAR(cost->step.step_seconds,
              cost->compute_seconds + all - std::min(g.seconds, backward), 1e-15);
}

// fsdp8 of the Adam block: every collective reading an entry parameter
// (weights and the batch, gathered where they are used) is a prefetch
// whose window ends at its reader's phase; one reading a dot's result is
// not. Gradient reductions hide behind backward only.
TEST(Overlap, GathersOfArgumentsArePrefetches) {
  const test::ShardedProgram l = test::LoadShardedProgram("transformer_train_adam");
  const ir::Module& m = l.module();
  auto model = CostModel::Create(l.loaded.program, test::H100());
  ASSERT_TRUE(model.ok()) << model.status();
  auto cost = (*model)->Price(test::FamilyPlan(l, {{"fsdp", 8}}));
  ASSERT_TRUE(cost.ok()) << cost.status();
  const simulator::OverlapFacts& facts = (*model)->overlap_facts();
  int prefetches = 0;
  for (const predictor::PredictedCollective& c : cost->prediction.collective_list) {
    const simulator::CollectiveOverlap o = simulator::OverlapOf(facts, c);
    const bool parameter = c.source.valid() && m.instruction(c.source).opcode == ir::Opcode::kParameter;
    if (parameter) {
      ++prefetches;
      EXPECT_EQ(o.role, CollectiveRole::kPrefetch) << m.instruction(c.at).name;
      const StepPhase reader = facts.phases.at(c.at);
      EXPECT_NE(o.window & simulator::PhaseBit(reader), 0);
      if (reader == StepPhase::kForward) {
        EXPECT_EQ(o.window, simulator::PhaseBit(StepPhase::kForward));
      }
    }
    if (c.source.valid() && m.instruction(c.source).opcode == ir::Opcode::kDot) {
      EXPECT_NE(o.role, CollectiveRole::kPrefetch) << m.instruction(c.at).name;
    }
    if (o.role == CollectiveRole::kGradient) {
      EXPECT_EQ(o.window, simulator::PhaseBit(StepPhase::kBackward));
      EXPECT_EQ(facts.phases.at(c.at), StepPhase::kOptimizer);
    }
  }
  EXPECT_GT(prefetches, 0);
}

// dp2_tp4: tensor-parallel collectives of activations are critical; the
// same plan with its axes renamed prices the same (overlap does not go by
// the names dp and tp).
TEST(Overlap, DecidedByWhatTheCollectiveDoesNotTheAxisName) {
  const test::ShardedProgram l = test::LoadShardedProgram("mlp_train_step");
  auto model = CostModel::Create(l.loaded.program, test::H100());
  ASSERT_TRUE(model.ok()) << model.status();
  const ir::ResolvedPlan plan = test::FamilyPlan(l, {{"dp", 2}, {"tp", 4}});
  auto cost = (*model)->Price(plan);
  ASSERT_TRUE(cost.ok()) << cost.status();
  bool tp_critical = false;
  for (const PricedCollective& p : cost->collectives) {
    if (p.axes == 0b10 && p.role == CollectiveRole::kCritical) tp_critical = true;
  }
  EXPECT_TRUE(tp_critical);
  ir::ResolvedPlan renamed = plan;
  renamed.mesh.axes[0].name = "replica";
  renamed.mesh.axes[1].name = "model";
  auto other = (*model)->Price(renamed);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->step.step_seconds, cost->step.step_seconds);
  EXPECT_LT(cost->step.exposed_seconds, cost->step.collective_seconds);  // gradients hid
}

// nccl-tests' size S of a predicted collective (docs/executor-plan.md).
double NcclSize(const predictor::PredictedCollective& c) {
  return c.kind == predictor::CollectiveKind::kReduceScatter || c.kind == predictor::CollectiveKind::kAllToAll
             ? c.operand_bytes
             : c.result_bytes;
}

// The executor plan of a candidate, rendered and read back by the
// executor's parser (which checks groups, sizes and deadlock freedom): one
// rank per device, its arena the predicted footprint, its argument buffers
// the predicted argument bytes, and its collectives the prediction's
// (all-reduces combined as predicted).
void RoundTrip(const std::string& program, std::vector<ir::MeshAxis> axes) {
  SCOPED_TRACE(program);
  const test::ShardedProgram l = test::LoadShardedProgram(program);
  auto model = CostModel::Create(l.loaded.program, test::H100());
  ASSERT_TRUE(model.ok()) << model.status();
  auto cost = (*model)->Price(test::FamilyPlan(l, axes));
  ASSERT_TRUE(cost.ok()) << cost.status();
  auto plan = executor::PlanFromCandidate(**model, *cost, {"candidate", "step_test"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string json = executor::RenderPlanJson(*plan);
  auto parsed = executor::ParsePlanJson(*parsers::SourceText::FromString("plan.json", json));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const predictor::Prediction& p = cost->prediction;
  const predictor::DeviceMemory& d = p.devices.front();
  ASSERT_EQ(parsed->ranks.size(), p.devices.size());
  const size_t parameters = l.module().entry_computation()->parameters.size();
  std::map<predictor::CollectiveKind, double> expected_bytes;
  for (const predictor::PredictedCollective& c : p.collective_list) expected_bytes[c.kind] += NcclSize(c);
  int64_t expected_all_reduces = 0;
  for (const predictor::CollectiveGroup& g : p.collectives) {
    if (g.kind == predictor::CollectiveKind::kAllReduce) expected_all_reduces += g.count;
  }
  for (const executor::RankPlan& r : parsed->ranks) {
    EXPECT_EQ(executor::ArenaBytes(r), d.device_footprint_bytes);
    EXPECT_EQ(executor::PlannedPeakBytes(r, executor::AllocationMode::kArena), d.device_footprint_bytes);
    int64_t arguments = 0;
    for (size_t b = 0; b < parameters && b < r.buffers.size(); ++b) arguments += r.buffers[b].bytes;
    EXPECT_EQ(arguments, d.argument_bytes);
    std::map<predictor::CollectiveKind, double> bytes;
    int64_t all_reduces = 0;
    double seconds = 0;
    for (const executor::PlanOp& op : r.ops) {
      ASSERT_EQ(op.kind, executor::PlanOp::Kind::kCollective);
      const executor::CollectiveOp& c = op.collective;
      const predictor::CollectiveKind kind =
          c.kind == executor::CollectiveKind::kAllGather       ? predictor::CollectiveKind::kAllGather
          : c.kind == executor::CollectiveKind::kReduceScatter ? predictor::CollectiveKind::kReduceScatter
          : c.kind == executor::CollectiveKind::kAllToAll      ? predictor::CollectiveKind::kAllToAll
                                                               : predictor::CollectiveKind::kAllReduce;
      bytes[kind] += static_cast<double>(c.bytes);
      all_reduces += kind == predictor::CollectiveKind::kAllReduce ? 1 : 0;
      seconds += op.predicted_seconds.value_or(0);
    }
    EXPECT_EQ(bytes, expected_bytes);
    EXPECT_EQ(all_reduces, expected_all_reduces);
    EXPECT_NEAR(r.predicted_step_seconds.value_or(-1), seconds, 1e-15);
  }
}

TEST(CandidatePlan, RoundTripsWithThePredictionsTotals) {
  RoundTrip("mlp_train_step", {{"dp", 8}});
  RoundTrip("mlp_train_step", {{"fsdp", 8}});
  RoundTrip("mlp_train_step", {{"dp", 2}, {"tp", 4}});
  RoundTrip("transformer_train_adam", {{"fsdp", 8}});
}

test::CommandResult Memplan(std::vector<std::string> args) {
  args.insert(args.begin(), MEMPLAN_BINARY);
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

TEST(StepCli, CostAndRankPrintTheSplit) {
  const test::CommandResult cost = Memplan({"cost", "samples/sharded/mlp_train_step", "--format=json"});
  ASSERT_EQ(cost.exit_code, 0) << cost.err;
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(cost.out);
  ASSERT_TRUE(static_cast<bool>(v));
  const llvm::json::Object* phases = v->getAsObject()->getObject("phases");
  ASSERT_NE(phases, nullptr);
  double seconds = 0;
  for (const char* p : {"forward", "backward", "optimizer"}) {
    ASSERT_NE(phases->getObject(p), nullptr) << p;
    seconds += *phases->getObject(p)->getNumber("seconds");
  }
  EXPECT_NEAR(seconds, *v->getAsObject()->getNumber("compute_seconds"), 1e-12);
  const test::CommandResult text = Memplan({"cost", "samples/sharded/mlp_train_step"});
  EXPECT_NE(text.out.find("Training step"), std::string::npos) << text.out;
  const test::CommandResult fwd = Memplan({"cost", "samples/sharded/transformer_fwd", "--format=json"});
  EXPECT_NE(fwd.out.find("\"phases\": null"), std::string::npos);

  const std::string out = testing::TempDir() + "/step_cli_executor_plan.json";
  const test::CommandResult rank =
      Memplan({"rank", "samples/sharded/mlp_train_step", "--devices", "8", "--family-inputs",
               "samples/sharded/mlp_train_step/families.yaml", "--emit-executor-plan", out});
  ASSERT_EQ(rank.exit_code, 0) << rank.err;
  EXPECT_NE(rank.out.find("Its training step:"), std::string::npos) << rank.out;
  auto source = parsers::SourceText::FromFile(out);
  ASSERT_TRUE(source.ok()) << source.status();
  auto plan = executor::ParsePlanJson(**source);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->ranks.size(), 8u);
}

}  // namespace
}  // namespace memplan
