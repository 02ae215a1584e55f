// The memory model's live peak summed in one pass over a table of the
// program's steps (predictor/memory_model.h, LivePeakInSteps) against the
// general path over any steps (LivePeakOfBuffers: a bounded table, or
// sorted deltas when the steps are spread): the same bytes and the same
// first step, temp and resident buffers both counted, buffers reusing
// another's memory adding nothing; and no answer when a step falls
// outside the table.
#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "predictor/memory_model.h"

namespace memplan::test {
namespace {

using predictor::BuffersPeak;
using predictor::LivePeakInSteps;
using predictor::LivePeakOfBuffers;
using predictor::TempBuffer;

// `count` buffers over steps [0, steps], sizes from a few values (ties
// between steps), about one in five reusing an earlier buffer's memory.
std::vector<TempBuffer> RandomBuffers(std::mt19937& rng, size_t count, int64_t steps) {
  std::uniform_int_distribution<int64_t> step(0, steps);
  std::uniform_int_distribution<int64_t> size(0, 4);
  std::uniform_int_distribution<int> share(0, 4);
  std::vector<TempBuffer> list;
  for (size_t i = 0; i < count; ++i) {
    TempBuffer b;
    const int64_t x = step(rng), y = step(rng);
    b.start = std::min(x, y);
    b.end = std::max(x, y);
    b.size = 64 * size(rng);
    if (i > 0 && share(rng) == 0) b.share_with = static_cast<int64_t>(i / 2);
    list.push_back(b);
  }
  return list;
}

BuffersPeak General(const std::vector<TempBuffer>& temp, const std::vector<TempBuffer>& resident) {
  std::vector<int64_t> per_step;
  std::vector<std::pair<ir::ScheduleStep, int64_t>> deltas;
  return LivePeakOfBuffers(temp, resident, per_step, deltas);
}

TEST(LivePeakInSteps, EqualsTheGeneralPathOnRandomLists) {
  std::mt19937 rng(20261128);
  std::vector<int64_t> per_step;
  for (int round = 0; round < 300; ++round) {
    // Dense steps (the general path's table) and spread ones (its sort).
    const int64_t steps = round % 3 == 0 ? 200000 : 40;
    const std::vector<TempBuffer> temp = RandomBuffers(rng, 1 + round % 17, steps);
    const std::vector<TempBuffer> resident = RandomBuffers(rng, round % 5, steps);
    const BuffersPeak want = General(temp, resident);
    const std::optional<BuffersPeak> got =
        LivePeakInSteps(temp, resident, static_cast<size_t>(steps) + 2, per_step);
    ASSERT_TRUE(got.has_value()) << "round " << round;
    EXPECT_EQ(got->bytes, want.bytes) << "round " << round;
    EXPECT_EQ(got->step, want.step) << "round " << round;
  }
}

// Every buffer counts over its own steps, one that reuses another's memory
// in place too (HloLiveRange's rule: the sizes of the values live at a
// step, added). Before, a sharer counted nothing: gpt_lm_train_step's
// scatter-add into its zeros (16 MiB, live to step 196 after the zeros
// died at 107) was missing from its one-device live peak, 9.2% under XLA's.
TEST(LivePeakInSteps, CountsResidentBuffersAndSharersOverTheirOwnSteps) {
  // Temp 128 B over 0-2 and 64 B reusing it in place over 2-4; resident
  // 192 B over 2-3: 128 live at 0 and 1, 384 at 2, 256 at 3, 64 at 4.
  const std::vector<TempBuffer> temp = {{128, 0, 2, -1, 0, {}}, {64, 2, 4, 0, 0, {}}};
  const std::vector<TempBuffer> resident = {{192, 2, 3, -1, 0, {}}};
  std::vector<int64_t> per_step;
  const std::optional<BuffersPeak> got = LivePeakInSteps(temp, resident, 8, per_step);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->bytes, 128 + 64 + 192);
  EXPECT_EQ(got->step, 2);
  EXPECT_EQ(got->bytes, General(temp, resident).bytes);
  // Past the first buffer's end the sharer alone is live with the resident.
  const std::vector<TempBuffer> later = {{128, 0, 1, -1, 0, {}}, {256, 2, 4, 0, 0, {}}};
  const std::optional<BuffersPeak> sharer = LivePeakInSteps(later, resident, 8, per_step);
  ASSERT_TRUE(sharer.has_value());
  EXPECT_EQ(sharer->bytes, 256 + 192);
  EXPECT_EQ(sharer->step, 2);
  EXPECT_EQ(sharer->bytes, General(later, resident).bytes);
}

TEST(LivePeakInSteps, NoAnswerOutsideItsSteps) {
  std::vector<int64_t> per_step;
  // end + 1 must be a step of the table too.
  EXPECT_FALSE(LivePeakInSteps({{64, 0, 7, -1, 0, {}}}, {}, 8, per_step).has_value());
  EXPECT_TRUE(LivePeakInSteps({{64, 0, 6, -1, 0, {}}}, {}, 8, per_step).has_value());
  EXPECT_FALSE(LivePeakInSteps({}, {{64, -1, 3, -1, 0, {}}}, 8, per_step).has_value());
  // A collective buffer's end before its start (end + 1 == -1 + 1 == 0) is
  // inside.
  EXPECT_TRUE(LivePeakInSteps({{64, 2, -1, -1, 0, {}}}, {}, 8, per_step).has_value());
}

}  // namespace
}  // namespace memplan::test
