// Plan files written by hand: every notation (block, flow, JSON; lists,
// PartitionSpec reprs, HloSharding text), keys by name, glob and number,
// outputs and donation, and the located errors docs/plan-format.md lists.
// Expected HloShardings are the table in docs/plan-format.md (recorded from
// JAX in the sharded corpus).
#include <memory>
#include <string>
#include <vector>

#include "analyzer/plan_families.h"
#include "gtest/gtest.h"
#include "ir/entry_arguments.h"
#include "parsers/family_inputs_parser.h"
#include "parsers/plan_parser.h"
#include "parsers/plan_writer.h"

namespace memplan {
namespace {

using parsers::SourceText;

ir::Shape F32(std::vector<int64_t> dims) {
  ir::Shape shape;
  shape.dtype = ir::DType::kF32;
  shape.dims = std::move(dims);
  return shape;
}

// A small train step: params[0] [512,2048], params[1] [2048], x [256,512],
// opt_state['mu']['w_q'] [512,512], y [256,512], a scalar count.
std::vector<ir::EntryArgument> Arguments() {
  return {
      {0, "params['w_q']", F32({512, 2048}), true},
      {1, "params['b_q']", F32({2048}), true},
      {2, "opt_state['mu']['w_q']", F32({512, 2048}), true},
      {3, "opt_state['count']", F32({}), false},
      {4, "x", F32({256, 512}), false},
      {5, "y", F32({256, 512}), false},
  };
}

absl::StatusOr<ir::ResolvedPlan> Resolve(std::string_view text) {
  absl::StatusOr<parsers::PlanFile> plan = parsers::ParsePlan(SourceText::FromString("p.yaml", text));
  if (!plan.ok()) return plan.status();
  return parsers::ResolvePlan(*plan, Arguments(), {F32({512, 2048}), F32({})});
}

std::string ErrorOf(std::string_view text) {
  absl::StatusOr<ir::ResolvedPlan> plan = Resolve(text);
  if (plan.ok()) return "ok";
  const std::string message(plan.status().message());
  return message.substr(0, message.find('\n'));  // without the quoted line
}

std::string ShardingOf(const ir::ResolvedPlan& plan, int64_t parameter) {
  return plan.ArgumentSharding(static_cast<size_t>(parameter)).ToString();
}

TEST(PlanParser, BlockStyleWithNamesGlobsAndNumbers) {
  absl::StatusOr<ir::ResolvedPlan> plan = Resolve(R"yaml(# a plan
mesh: {dp: 4, tp: 2}
arguments:
  "*['w_q']": [dp, tp]   # params and opt_state
  1: [tp]
  x: [dp, null]
outputs: {}
donate: ["params*"]
)yaml");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(ShardingOf(*plan, 0), "{devices=[4,2]<=[8]}");
  EXPECT_EQ(ShardingOf(*plan, 2), "{devices=[4,2]<=[8]}");
  EXPECT_EQ(ShardingOf(*plan, 1), "{devices=[2,4]<=[4,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(ShardingOf(*plan, 4), "{devices=[4,1,2]<=[8] last_tile_dim_replicate}");
  EXPECT_EQ(ShardingOf(*plan, 3), "{replicated}");
  EXPECT_EQ(plan->ArgumentKey(0), "*['w_q']");
  EXPECT_EQ(plan->arguments[3].source, ir::PlanSource::kDefault);
  EXPECT_EQ(plan->unmatched_arguments, 2);  // count and y
  EXPECT_TRUE(plan->arguments[0].donated && plan->arguments[1].donated);
  EXPECT_FALSE(plan->arguments[2].donated);
  EXPECT_EQ(plan->label, "p");
}

TEST(PlanParser, JsonAndFlowStyleReadTheSame) {
  const std::string json =
      R"({"mesh":{"fsdp":4,"tp":2},"arguments":{"params['w_q']":["tp","fsdp"],"x":[["fsdp","tp"],null]}})";
  const std::string flow =
      "{mesh: {fsdp: 4, tp: 2}, arguments: {\"params['w_q']\": [tp, fsdp], x: [[fsdp, tp], null]}}";
  for (const std::string& text : {json, flow}) {
    absl::StatusOr<ir::ResolvedPlan> plan = Resolve(text);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(ShardingOf(*plan, 0), "{devices=[2,4]<=[4,2]T(1,0)}");
    EXPECT_EQ(ShardingOf(*plan, 4), "{devices=[8,1]<=[8]}");
  }
}

TEST(PlanParser, PartitionSpecReprsAndHloShardingText) {
  absl::StatusOr<ir::ResolvedPlan> plan = Resolve(R"yaml(mesh: {dp: 2, ep: 4}
arguments:
  x: PartitionSpec(('dp', 'ep'), None)
  "y": "P('ep')"
  "params['w_q']": "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"
  2: "sharding={devices=[8,1]<=[8]}"
  3: []
)yaml");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(ShardingOf(*plan, 4), "{devices=[8,1]<=[8]}");
  EXPECT_EQ(ShardingOf(*plan, 5), "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(ShardingOf(*plan, 0), "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(ShardingOf(*plan, 2), "{devices=[8,1]<=[8]}");
}

TEST(PlanParser, DevicesAndOutputs) {
  absl::StatusOr<ir::ResolvedPlan> plan = Resolve(R"yaml(mesh: {dp: 2}
devices: [1, 0]
arguments: {}
outputs: {1: [], 0: [dp, null]}
)yaml");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->mesh.DeviceIds(), (std::vector<int64_t>{1, 0}));
  ASSERT_EQ(plan->outputs.size(), 2u);
  EXPECT_EQ(plan->outputs[0]->ToString(), "{devices=[2,1]<=[2]}");
  EXPECT_EQ(plan->outputs[1]->ToString(), "{replicated}");
  EXPECT_EQ(plan->unmatched_arguments, 6);
}

TEST(PlanParser, LocatedErrors) {
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments: {}\nextra: 1\n"),
            "p.yaml:3:1: error: unknown key 'extra' in the plan; expected one of mesh, devices, "
            "arguments, outputs, donate");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments:\n  x: [tp, null]\n"),
            "p.yaml:3:7: error: axis 'tp' is not in the mesh; expected one of dp or null");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments:\n  x: \"P(None, 'tp')\"\n"),
            "p.yaml:3:15: error: axis 'tp' is not in the mesh; expected one of dp or null");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments:\n  x: [dp]\n"),
            "p.yaml:3:6: error: the spec has 1 entries; expected 2 (the rank of argument 4 (x, "
            "f32[256,512]))");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments:\n  \"z*\": [dp]\n"),
            "p.yaml:3:3: error: 'z*' selects no argument; expected params['w_q'], params['b_q'], "
            "opt_state['mu']['w_q'], opt_state['count'], x, y or a parameter number below 6");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments:\n  x: [dp, null]\n  x: [null, dp]\n"),
            "p.yaml:4:3: error: duplicate key 'x' in arguments");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments:\n  x: [dp, null]\n  4: [null, dp]\n"),
            "p.yaml:4:3: error: argument 4 (x, f32[256,512]) is also selected by 'x' at p.yaml:3:3; "
            "expected each argument selected once");
  EXPECT_EQ(ErrorOf("mesh: {dp: 0}\narguments: {}\n"),
            "p.yaml:1:12: error: expected a positive integer axis size");
  EXPECT_EQ(ErrorOf("mesh: {\"d-p\": 2}\narguments: {}\n"),
            "p.yaml:1:8: error: expected a mesh axis name (an identifier), found 'd-p'");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2, dp: 2}\narguments: {}\n"),
            "p.yaml:1:15: error: duplicate key 'dp' in mesh");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\ndevices: [0, 0]\narguments: {}\n"),
            "p.yaml:2:10: error: expected `devices` to list each of 0..1 exactly once (the mesh dp=2 "
            "has 2 devices)");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments:\n  x: [[dp, dp], null]\n"),
            "p.yaml:3:12: error: axis 'dp' is used twice; expected each mesh axis at most once per spec");
  EXPECT_EQ(ErrorOf("mesh: {dp: 3}\narguments:\n  x: [dp, null]\n"),
            "p.yaml:3:7: error: dimension 0 of argument 4 (x, f32[256,512]) has size 256, which does "
            "not divide by 3; expected a dimension that divides (JAX refuses uneven argument shards)");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments:\n  x: \"{devices=[2,1,1]<=[2]}\"\n"),
            "p.yaml:3:6: error: the HloSharding tiles 3 dimensions; expected 2 for argument 4 (x, "
            "f32[256,512])");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments:\n  x: \"{devices=[4,1]<=[4]}\"\n"),
            "p.yaml:3:6: error: expected an HloSharding over the mesh's 2 devices, found 4");
  EXPECT_EQ(ErrorOf("arguments: {}\n"), "p.yaml:1:1: error: expected a `mesh` key in the plan");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments: {}\noutputs: {5: []}\n"),
            "p.yaml:3:11: error: output 5 does not exist; expected an index below 2");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments: {}\ndonate: [w]\n"),
            "p.yaml:3:10: error: 'w' selects no argument; expected params['w_q'], params['b_q'], "
            "opt_state['mu']['w_q'], opt_state['count'], x, y or a parameter number below 6");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2}\narguments:\n  9: []\n"),
            "p.yaml:3:3: error: parameter 9 does not exist; expected a number below 6");
  EXPECT_EQ(ErrorOf("mesh: {dp: 2\narguments: {}\n").substr(0, 41), "p.yaml:2:10: error: expected YAML or JSON");
  EXPECT_EQ(ErrorOf(""), "p.yaml:1:1: error: expected a plan (a mapping with `mesh` and `arguments`)");
}

TEST(PlanParser, NestingIsBounded) {
  const std::string deep = "mesh: {dp: 2}\narguments:\n  x: " + std::string(100, '[') + std::string(100, ']') + "\n";
  EXPECT_EQ(ErrorOf(deep), "p.yaml:3:36: error: expected at most 32 levels of nesting");
  std::string block = "mesh: {dp: 2}\narguments:\n";
  for (int i = 0; i < 40; ++i) block += std::string(2 * i + 2, ' ') + "- a:\n";
  EXPECT_NE(ErrorOf(block).find("expected at most 32 levels of nesting"), std::string::npos);
}

TEST(PlanWriter, QuotesWhatYamlWouldMisread) {
  EXPECT_EQ(parsers::PlanYamlKey("x"), "x");
  EXPECT_EQ(parsers::PlanYamlKey("y"), "\"y\"");
  EXPECT_EQ(parsers::PlanYamlKey("Off"), "\"Off\"");
  EXPECT_EQ(parsers::PlanYamlKey("params['w']"), "\"params['w']\"");
  EXPECT_EQ(parsers::PlanYamlKey("a\"b\\"), "\"a\\\"b\\\\\"");
}

TEST(PlanFamilies, RulesOnASmallProgram) {
  ir::FamilyInputs inputs;
  inputs.data = {"x", "y"};
  inputs.tp = {{"*['w_q']", ir::TpStyle::kColwise}, {"*['b_q']", ir::TpStyle::kColwise}};
  ir::Mesh mesh;
  mesh.axes = {{"fsdp", 4}, {"tp", 2}};
  absl::StatusOr<ir::SpecPlan> plan = analyzer::BuildFamilyPlan(Arguments(), mesh, inputs);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->label, "fsdp4_tp2");
  EXPECT_EQ(plan->arguments[0].spec.ToString(), "P('fsdp', 'tp')");  // 2^20 elements: fsdp too
  EXPECT_EQ(plan->arguments[1].spec.ToString(), "P('tp',)");         // 2048 < 2^18
  EXPECT_EQ(plan->arguments[4].spec.ToString(), "P('fsdp', None)");
  // Below the threshold nothing is fsdp-sharded; at it, the largest dim is.
  inputs.min_fsdp_elements = (int64_t{1} << 20) + 1;
  plan = analyzer::BuildFamilyPlan(Arguments(), mesh, inputs);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->arguments[0].spec.ToString(), "P(None, 'tp')");
  // rowwise on a vector is an error; two matching globs are an error.
  inputs.tp = {{"*['b_q']", ir::TpStyle::kRowwise}};
  EXPECT_FALSE(analyzer::BuildFamilyPlan(Arguments(), mesh, inputs).ok());
  inputs.tp = {{"*w_q*", ir::TpStyle::kColwise}, {"params*", ir::TpStyle::kColwise}};
  EXPECT_FALSE(analyzer::BuildFamilyPlan(Arguments(), mesh, inputs).ok());
  // sequence: a data argument's dimension 1 over tp.
  inputs.tp = {{"x", ir::TpStyle::kSequence}};
  plan = analyzer::BuildFamilyPlan(Arguments(), mesh, inputs);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->arguments[4].spec.ToString(), "P('fsdp', 'tp')");
  EXPECT_FALSE(analyzer::FamilyAxes("dp+dp").ok());
  EXPECT_FALSE(analyzer::FamilyAxes("zero").ok());
  EXPECT_FALSE(analyzer::CheckFamilyMesh({"dp", "tp"}, mesh).ok());
}

TEST(FamilyInputs, ParsesAndLocatesErrors) {
  absl::StatusOr<ir::FamilyInputs> inputs = parsers::ParseFamilyInputs(SourceText::FromString(
      "f.yaml", "data: [x]\nmin_fsdp_elements: 10\ntp: {\"*q\": ColwiseParallel(), \"*o\": rowwise}\nep: []\n"));
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(inputs->min_fsdp_elements, 10);
  ASSERT_EQ(inputs->tp.size(), 2u);
  EXPECT_EQ(inputs->tp[0].style, ir::TpStyle::kColwise);
  EXPECT_EQ(inputs->tp[1].style, ir::TpStyle::kRowwise);
  absl::StatusOr<std::vector<ir::TpRule>> bad =
      parsers::ParseTpPlan(SourceText::FromString("t.yaml", "\"*q\": diagonal\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()).substr(0, 46), "t.yaml:1:7: error: unknown tp style 'diagonal'");
}

}  // namespace
}  // namespace memplan
