// Alpa's stage table (seed 003): the parser, OpSharding bytes, and the
// peaks Alpa measured reproduced from the modules' jaxprs.
#include <string>

#include "analyzer/alpa_stage_memory.h"
#include "gtest/gtest.h"
#include "parsers/alpa_stage_profile_parser.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

absl::StatusOr<ir::AlpaStageDocument> Seed003() {
  const std::string path = test::SourcePath("samples/alpa/seed003_alpa_stage_profile_jaxpr.txt");
  auto source = parsers::SourceText::FromString(path, test::ReadFileOrDie(path));
  return parsers::ParseAlpaStageProfile(*source);
}

TEST(Alpa, OpShardingBytes) {
  // {devices=[2,1]0,1}
  absl::StatusOr<ir::OpShardingProto> tiled =
      parsers::DecodeOpSharding(std::string("\x08\x03\x1a\x02\x02\x01\x22\x02\x00\x01", 10));
  ASSERT_TRUE(tiled.ok()) << tiled.status();
  EXPECT_EQ(tiled->type, 3);
  EXPECT_EQ(tiled->tile_assignment_dimensions, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(tiled->tile_assignment_devices, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(tiled->ShardDims({128, 2048}), (std::vector<int64_t>{64, 2048}));
  absl::StatusOr<ir::OpShardingProto> tuple = parsers::DecodeOpSharding(std::string("\x08\x02\x2a\x00\x2a\x00", 6));
  ASSERT_TRUE(tuple.ok());
  EXPECT_EQ(tuple->tuple_shardings.size(), 2u);
  EXPECT_FALSE(parsers::DecodeOpSharding(std::string("\x1a\x05\x02", 3)).ok());
}

TEST(Alpa, ParsesSeed003) {
  absl::StatusOr<ir::AlpaStageDocument> doc = Seed003();
  ASSERT_TRUE(doc.ok()) << doc.status();
  ASSERT_EQ(doc->configs.size(), 2u);
  EXPECT_EQ(doc->configs[0].stage_index, (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(doc->configs[1].stage_index, (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(doc->configs[0].module_names.size(), 3u);
  ASSERT_EQ(doc->configs[0].module_donate_invars.size(), 3u);
  EXPECT_EQ(doc->configs[0].module_donate_invars[2].size(), 34u);
  ASSERT_EQ(doc->jaxprs.size(), 2u);
  EXPECT_EQ(doc->jaxprs[1].name, "stage_0_1_acc_grad_1");
  // Two named_call equations, each calling one nested jaxpr.
  const ir::JaxprModule& j0 = doc->jaxprs[0].jaxpr;
  EXPECT_EQ(j0.jaxpr(j0.top).invars.size(), 10u);
  EXPECT_EQ(j0.jaxpr(j0.top).eqns.size(), 2u);
  EXPECT_EQ(j0.eqn(j0.jaxpr(j0.top).eqns[0]).primitive, "named_call");
  ASSERT_EQ(doc->compiled.size(), 2u);
  ASSERT_EQ(doc->compiled[0].modules.size(), 2u);
  EXPECT_EQ(doc->compiled[0].modules[0].input_shardings.size(), 10u);
  // The output proto has a line break pasted into it; still 8 shardings.
  EXPECT_EQ(doc->compiled[0].modules[0].output_sharding.tuple_shardings.size(), 8u);
  ASSERT_EQ(doc->profiles.size(), 1u);
  EXPECT_EQ(doc->profiles[0].stage_index, (std::vector<int64_t>{0, 1, 1, 0}));
  ASSERT_EQ(doc->profiles[0].modules.size(), 2u);
  EXPECT_EQ(doc->profiles[0].modules[0].peak_memory, 276119952);
  EXPECT_EQ(doc->profiles[0].modules[1].temp_buffer_size, 268517920);
}

// Alpa's numbers: peak_memory 276,119,952 and 745,439,776 with temp 400 and
// 268,517,920. memplan computes argument, output and donated bytes from the
// jaxprs' binders and the compile output's shardings, byte for byte equal
// to Alpa's invar_sizes and outvar_sizes.
TEST(Alpa, ReproducesSeed003Peaks) {
  absl::StatusOr<ir::AlpaStageDocument> doc = Seed003();
  ASSERT_TRUE(doc.ok()) << doc.status();
  absl::StatusOr<analyzer::AlpaStageMemory> table = analyzer::AlpaStageMemoryTable(*doc, 0);
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->config, 0u);
  ASSERT_EQ(table->modules.size(), 2u);
  const analyzer::AlpaModuleMemory& fwd = table->modules[0];
  EXPECT_EQ(fwd.name, "stage_0_1_acc_grad_0");
  EXPECT_EQ(fwd.invar_mismatches, 0);
  EXPECT_EQ(fwd.outvar_mismatches, 0);
  EXPECT_EQ(fwd.argument_bytes, 269565952);
  EXPECT_EQ(fwd.output_bytes, 6553600);
  EXPECT_EQ(fwd.donated_bytes, 0);
  EXPECT_EQ(fwd.alpa_temp, 400);
  EXPECT_EQ(fwd.peak, 276119952);
  EXPECT_EQ(fwd.peak, fwd.alpa_peak);
  const analyzer::AlpaModuleMemory& bwd = table->modules[1];
  EXPECT_EQ(bwd.invar_mismatches, 0);
  EXPECT_EQ(bwd.outvar_mismatches, 0);
  EXPECT_EQ(bwd.argument_bytes, 476921856);
  EXPECT_EQ(bwd.output_bytes, 268517376);
  EXPECT_EQ(bwd.donated_bytes, 268517376);
  EXPECT_EQ(bwd.peak, 745439776);
  EXPECT_EQ(bwd.peak, bwd.alpa_peak);
}

// Temp predicted from the backward module's jaxpr, by hand: every output is
// a donated accumulator, so no output memory is free and the prediction is
// the temporaries' peak. It is at `cd = transpose cc` in
// stage_0_1_acc_grad_10: the weight gradients bu and cc and the transpose
// cd, whole on each device because the batch they contract is split
// (3 x 8192 x 2048 x 4 = 201,326,592); by (f32[128,8192] split in two:
// 2,097,152), read by the dot after; bs (f32[2048]: 8,192) and cb
// (f32[8192]: 32,768), read by the accumulating adds at the end: 203,464,704
// in all. Alpa measured 268,517,920: four gradients live at once (XLA
// reorders; our schedule keeps the jaxpr's order), so -24.2%.
TEST(Alpa, PredictsTempFromTheJaxpr) {
  absl::StatusOr<ir::AlpaStageDocument> doc = Seed003();
  ASSERT_TRUE(doc.ok()) << doc.status();
  absl::StatusOr<analyzer::AlpaStageMemory> table = analyzer::AlpaStageMemoryTable(*doc, 0);
  ASSERT_TRUE(table.ok()) << table.status();
  const analyzer::AlpaModuleMemory& bwd = table->modules[1];
  ASSERT_TRUE(bwd.predicted_temp.has_value());
  EXPECT_EQ(*bwd.predicted_temp, 3 * 67108864 + 2097152 + 8192 + 32768);
  EXPECT_EQ(bwd.temporaries_peak, *bwd.predicted_temp);
  ASSERT_TRUE(bwd.predicted_temp_equation.valid());
  EXPECT_EQ(doc->jaxprs[1].jaxpr.eqn(bwd.predicted_temp_equation).primitive, "transpose");
  EXPECT_EQ(bwd.predicted_peak, bwd.argument_bytes + bwd.output_bytes - bwd.donated_bytes + *bwd.predicted_temp);
  ASSERT_TRUE(table->modules[0].predicted_temp.has_value());
}

TEST(Alpa, ErrorsAreLocated) {
  auto source = parsers::SourceText::FromString(
      "a.txt", "x\nStageProfileResult(module_profile_results=[ModuleProfileResult(peak_memory=12x)])\n");
  absl::StatusOr<ir::AlpaStageDocument> doc = parsers::ParseAlpaStageProfile(*source);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("a.txt:2:"), std::string::npos) << doc.status();
  auto empty = parsers::SourceText::FromString("e.txt", "nothing here\n");
  EXPECT_FALSE(parsers::ParseAlpaStageProfile(*empty).ok());
}

// Found by alpa_stage_profile_fuzzer: a stage index of more digits than
// int64_t holds made std::stoll throw (std::terminate). Such an index is not
// one; the rest of the config still reads.
TEST(Alpa, StageIndexPastInt64IsNoIndexNotACrash) {
  auto source = parsers::SourceText::FromString(
      "big.txt",
      "(99999999999999999999, 1, 0, 0)\nStageConfig(n_modules=1, names=['a'])\n"
      "[0, 1, 1, 0]\nStageConfig(n_modules=1, names=['b'])\n");
  absl::StatusOr<ir::AlpaStageDocument> doc = parsers::ParseAlpaStageProfile(*source);
  ASSERT_TRUE(doc.ok()) << doc.status();
  ASSERT_EQ(doc->configs.size(), 2u);
  EXPECT_TRUE(doc->configs[0].stage_index.empty());
  EXPECT_EQ(doc->configs[1].stage_index, (std::vector<int64_t>{0, 1, 1, 0}));
}

}  // namespace
}  // namespace memplan
