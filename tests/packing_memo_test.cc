// PackingMemo::Keep rewrites the kept list's storage in place when no
// reader holds it (predictor/packing_memo.cc): what it answers afterwards
// depends only on the last list kept, never on an earlier, longer one.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "predictor/packing_memo.h"

namespace memplan::predictor {
namespace {

std::vector<TempBuffer> List(size_t n, int64_t unit) {
  std::vector<TempBuffer> list;
  for (size_t i = 0; i < n; ++i) {
    const auto s = static_cast<ir::ScheduleStep>(i);
    list.push_back({unit * static_cast<int64_t>(1 + i % 3), s, s + 2, -1});
  }
  return list;
}

TEST(PackingMemo, KeepingAShorterListForgetsTheLongerOne) {
  PackingMemo memo;
  memo.Keep(List(50, 64), 64, 1000 * 64);
  ASSERT_EQ(memo.Scaled(List(50, 128), 64), 2000 * 64);
  memo.Keep(List(7, 64), 64, 300 * 64);
  EXPECT_EQ(memo.Scaled(List(7, 192), 64), 900 * 64);
  EXPECT_EQ(memo.Scaled(List(50, 128), 64), std::nullopt);
  // Another length after a reader let go of the kept list: again only the last.
  memo.Keep(List(20, 64), 32, 500 * 64);
  EXPECT_EQ(memo.Scaled(List(7, 192), 64), std::nullopt);
  EXPECT_EQ(memo.Scaled(List(20, 64), 64), std::nullopt);  // kept under 32
  EXPECT_EQ(memo.Scaled(List(20, 128), 32), 1000 * 64);
}

TEST(PackingMemo, KeepingAgainAnswersFromTheNewHeap) {
  PackingMemo memo;
  memo.Keep(List(10, 64), 64, 100 * 64);
  const std::vector<TempBuffer> probe = List(10, 128);
  EXPECT_EQ(memo.Scaled(probe, 64), 200 * 64);
  memo.Keep(List(10, 64), 64, 150 * 64);  // same lifetimes, another heap
  EXPECT_EQ(memo.Scaled(probe, 64), 300 * 64);
}

}  // namespace
}  // namespace memplan::predictor
