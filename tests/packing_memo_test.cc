// PackingMemo::Keep rewrites the kept list's storage in place when no
// reader holds it (predictor/packing_memo.cc): what it answers afterwards
// depends only on the last list kept, never on an earlier, longer one.
#include <cstdint>
#include <vector>

#include "analyzer/interval_packing.h"
#include "analyzer/interval_packing_forms.h"
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

// The packing intervals of List-like lists: one per buffer, started at its
// own tick (2 per step), ended after every start at its end step.
std::vector<analyzer::PackingInterval> Intervals(const std::vector<TempBuffer>& temp) {
  std::vector<analyzer::PackingInterval> iv;
  for (size_t i = 0; i < temp.size(); ++i) {
    analyzer::PackingInterval p;
    p.id = static_cast<int64_t>(i);
    p.size = temp[i].size;
    p.start = 2 * temp[i].start;
    p.end = 2 * temp[i].end + 1;
    p.group = static_cast<int32_t>(i);
    iv.push_back(p);
  }
  return iv;
}

// Buffers of size `small` and `large` in a fixed pattern over List's lifetimes.
std::vector<TempBuffer> TwoSizes(size_t n, int64_t small, int64_t large) {
  std::vector<TempBuffer> list = List(n, 1);
  for (size_t i = 0; i < n; ++i) list[i].size = i % 4 == 1 ? large : small;
  return list;
}

void KeepRecorded(PackingMemo& memo, const std::vector<TempBuffer>& temp) {
  std::optional<analyzer::PackingForms> forms = analyzer::PackingForms::Record(Intervals(temp), 64);
  ASSERT_TRUE(forms.has_value());
  memo.KeepForms(temp, 64, *std::move(forms));
}

TEST(PackingMemo, FormsAnswerBuffersOfOneClassSizedAlike) {
  PackingMemo memo;
  KeepRecorded(memo, TwoSizes(40, 64, 640));
  const std::vector<TempBuffer> other = TwoSizes(40, 128, 2048);
  std::optional<int64_t> heap = memo.FromForms(other, 64);
  ASSERT_TRUE(heap.has_value());
  EXPECT_EQ(*heap, analyzer::BestFitHeapSize(Intervals(other), 64));
  // One buffer of the small class sized otherwise: no class size for it.
  std::vector<TempBuffer> mixed = other;
  mixed[2].size = 192;
  EXPECT_EQ(memo.FromForms(mixed, 64), std::nullopt);
  // Other lifetimes, another alignment.
  std::vector<TempBuffer> later = other;
  later[5].end += 1;
  EXPECT_EQ(memo.FromForms(later, 64), std::nullopt);
  EXPECT_EQ(memo.FromForms(other, 32), std::nullopt);
}

TEST(PackingMemo, FormsKeepTheLastRecordingsOfOneLifetimeList) {
  PackingMemo memo;
  // Large buffers 2 to 10 times the small ones: each probe below finds the
  // recording of its own ratio, whatever the others answer.
  for (int64_t ratio = 2; ratio <= 10; ++ratio) KeepRecorded(memo, TwoSizes(40, 64, 64 * ratio));
  for (int64_t ratio = 2; ratio <= 10; ++ratio) {
    const std::vector<TempBuffer> probe = TwoSizes(40, 128, 128 * ratio);
    const std::optional<int64_t> heap = memo.FromForms(probe, 64);
    if (ratio - 2 < static_cast<int64_t>(9 - PackingMemo::kMaxForms)) continue;  // maybe dropped
    ASSERT_TRUE(heap.has_value()) << "ratio " << ratio;
    EXPECT_EQ(*heap, analyzer::BestFitHeapSize(Intervals(probe), 64)) << "ratio " << ratio;
  }
  // Another lifetime list drops every earlier recording.
  KeepRecorded(memo, TwoSizes(30, 64, 640));
  EXPECT_EQ(memo.FromForms(TwoSizes(40, 128, 1280), 64), std::nullopt);
  EXPECT_TRUE(memo.FromForms(TwoSizes(30, 128, 1280), 64).has_value());
}

}  // namespace
}  // namespace memplan::predictor
