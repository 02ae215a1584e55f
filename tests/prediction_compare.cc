#include "tests/prediction_compare.h"

#include "gtest/gtest.h"
#include "viz/predict_report.h"

namespace memplan::test {

void ExpectSamePrediction(const ir::Program& program, const predictor::Prediction& fast,
                          const predictor::Prediction& reference, const std::string& what) {
  ASSERT_EQ(fast.devices.size(), reference.devices.size()) << what;
  for (size_t d = 0; d < fast.devices.size(); ++d) {
    const predictor::DeviceMemory& a = fast.devices[d];
    const predictor::DeviceMemory& b = reference.devices[d];
    EXPECT_EQ(a.temp_bytes, b.temp_bytes) << what;
    EXPECT_EQ(a.device_footprint_bytes, b.device_footprint_bytes) << what;
    EXPECT_EQ(a.live_peak_bytes, b.live_peak_bytes) << what;
    EXPECT_EQ(a.live_peak_step, b.live_peak_step) << what;
  }
  const std::string name = program.module_name;
  EXPECT_EQ(viz::RenderPredictJson({program.module, name, fast}),
            viz::RenderPredictJson({program.module, name, reference}))
      << what;
}

// Everything a prediction holds, field by field.
void ExpectSameDetail(const ir::Program& program, const predictor::Prediction& a,
                      const predictor::Prediction& b, const std::string& what) {
  ExpectSamePrediction(program, a, b, what);
  EXPECT_EQ(a.label, b.label) << what;
  EXPECT_EQ(a.max_device_footprint_bytes, b.max_device_footprint_bytes) << what;
  for (size_t d = 0; d < a.devices.size() && d < b.devices.size(); ++d) {
    EXPECT_EQ(a.devices[d].device, b.devices[d].device) << what;
    EXPECT_EQ(a.devices[d].argument_bytes, b.devices[d].argument_bytes) << what;
    EXPECT_EQ(a.devices[d].output_bytes, b.devices[d].output_bytes) << what;
    EXPECT_EQ(a.devices[d].alias_bytes, b.devices[d].alias_bytes) << what;
  }
  EXPECT_EQ(a.argument_shardings, b.argument_shardings) << what;
  EXPECT_EQ(a.output_shardings, b.output_shardings) << what;
  EXPECT_EQ(a.combined_all_reduces, b.combined_all_reduces) << what;
  ASSERT_TRUE(a.instruction_shardings && b.instruction_shardings) << what;
  EXPECT_EQ(*a.instruction_shardings, *b.instruction_shardings) << what;
  ASSERT_EQ(a.collective_list.size(), b.collective_list.size()) << what;
  for (size_t k = 0; k < a.collective_list.size(); ++k) {
    const predictor::PredictedCollective& x = a.collective_list[k];
    const predictor::PredictedCollective& y = b.collective_list[k];
    EXPECT_TRUE(x.kind == y.kind && x.at == y.at && x.source == y.source &&
                x.source_leaf == y.source_leaf && x.axes == y.axes &&
                x.operand_bytes == y.operand_bytes && x.result_bytes == y.result_bytes)
        << what << " collective " << k;
  }
  ASSERT_EQ(a.collectives.size(), b.collectives.size()) << what;
  for (size_t k = 0; k < a.collectives.size(); ++k) {
    const predictor::CollectiveGroup& x = a.collectives[k];
    const predictor::CollectiveGroup& y = b.collectives[k];
    EXPECT_TRUE(x.kind == y.kind && x.axes == y.axes && x.count == y.count &&
                x.combined == y.combined && x.result_bytes == y.result_bytes)
        << what << " group " << k;
  }
  ASSERT_TRUE(a.live_at_peak && b.live_at_peak) << what;
  EXPECT_EQ(*a.live_at_peak, *b.live_at_peak) << what;
  ASSERT_EQ(a.unknown.size(), b.unknown.size()) << what;
  for (size_t k = 0; k < a.unknown.size(); ++k) {
    EXPECT_EQ(a.unknown[k].instruction, b.unknown[k].instruction) << what;
    EXPECT_EQ(a.unknown[k].had_sharded_operand, b.unknown[k].had_sharded_operand) << what;
  }
}

predictor::PredictOptions Unshared() {
  predictor::PredictOptions options;
  options.share_between_candidates = false;
  return options;
}

}  // namespace memplan::test
