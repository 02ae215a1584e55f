// The analyzer on a small inline program whose numbers are worked out by
// hand below: CompiledMemoryStats categories, the timeline, the live peak,
// what is live there, and the comparison with a stated peak list.
#include <numeric>

#include "analyzer/analysis.h"
#include "analyzer/liveness.h"
#include "analyzer/memory_stats.h"
#include "analyzer/value_category.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace memplan::analyzer {
namespace {

// Allocations (sum 3868 = "Total bytes used"):
//   0  1024  parameter 0                      argument
//   1   512  parameter 1, maybe-live-out      argument, output, alias (donated)
//   2    16  output tuple, maybe-live-out     output
//   3   256  maybe-live-out                   output
//   4  2048  preallocated-temp                temp
//   5     8  constant                         constant
//   6     4  thread-local                     thread-local
// argument 1536, output 784, alias 512, temp 2048, footprint 1536+784-512+2048.
//
// Live ranges (inclusive), bytes live per step:
//   p0 0-8 (1024)  p1 0-5 (512)  c 2-4 (8)  t1 3-4 (1024)  t2 4-6 (1024)
//   upd 5-8 (512)  res 6-8 (256)  out 7-8 (16)   [acc: no live range]
//   step: 0    1    2    3    4    5    6    7    8
//   live: 1536 1536 1544 2568 3592 3072 2816 1808 1808
constexpr std::string_view kProgram = R"(BufferAssignment:
allocation 0: size 1024, parameter 0, shape |f32[256]| at ShapeIndex {}:
 value: <0 p0 @0> (size=1024,offset=0): f32[256]{0}
allocation 1: size 512, parameter 1, shape |f32[128]| at ShapeIndex {}, maybe-live-out:
 value: <1 p1 @0> (size=512,offset=0): f32[128]{0}
 value: <5 upd @0> (size=512,offset=0): f32[128]{0}
allocation 2: size 16, output shape is |(f32[128], f32[64])|, maybe-live-out:
 value: <7 out{} @0> (size=16,offset=0): (f32[128]{0}, f32[64]{0})
allocation 3: size 256, maybe-live-out:
 value: <6 res @0> (size=256,offset=0): f32[64]{0}
allocation 4: size 2048, preallocated-temp:
 value: <3 t1 @0> (size=1024,offset=0): f32[256]{0}
 value: <4 t2 @0> (size=1024,offset=1024): f32[256]{0}
allocation 5: size 8, constant:
 value: <2 c @0> (size=8,offset=0): f32[2]{0}
allocation 6: size 4, thread-local:
 value: <8 acc @0> (size=4,offset=0): f32[]

Total bytes used: 3868 (3.8KiB)
HloLiveRange (max 8):
  InstructionSequence:
    0:p0
    1:p1
    2:c
    3:t1
    4:t2
    5:upd
    6:res
    7:out
  BufferLiveRange:
    p0{}:0-8
    p1{}:0-5
    c{}:2-4
    t1{}:3-4
    t2{}:4-6
    upd{}:5-8
    res{}:6-8
    out{}:7-8
)";

ir::Program Load(std::string_view text) {
  absl::StatusOr<ir::Program> p = test::ParseText(text);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : ir::Program();
}

int64_t Sum(const BytesByCategory& b) { return std::accumulate(b.begin(), b.end(), int64_t{0}); }

int64_t Bytes(const BytesByCategory& b, ValueCategory c) { return b[static_cast<int>(c)]; }

TEST(MemoryStats, CategoriesAsCompiledMemoryStats) {
  const ir::Program p = Load(kProgram);
  const MemoryStats s = ComputeMemoryStats(p);
  EXPECT_EQ(s.argument_bytes, 1536);
  EXPECT_EQ(s.output_bytes, 784);
  EXPECT_EQ(s.alias_bytes, 512);
  EXPECT_EQ(s.temp_bytes, 2048);
  EXPECT_EQ(s.constant_bytes, 8);
  EXPECT_EQ(s.thread_local_bytes, 4);
  EXPECT_EQ(s.total_allocation_bytes, 3868);
  EXPECT_EQ(s.device_footprint_bytes, 1536 + 784 - 512 + 2048);
  EXPECT_EQ(s.stated_total_bytes, 3868);
  EXPECT_TRUE(s.TotalMatchesStated());
}

TEST(MemoryStats, AStatedTotalThatDiffersIsReported) {
  std::string text(kProgram);
  text.replace(text.find("Total bytes used: 3868"), 22, "Total bytes used: 4000");
  const MemoryStats s = ComputeMemoryStats(Load(text));
  EXPECT_EQ(s.total_allocation_bytes, 3868);
  EXPECT_EQ(s.stated_total_bytes, 4000);
  EXPECT_FALSE(s.TotalMatchesStated());
}

TEST(ValueCategory, FromTheAllocationsAttributes) {
  const ir::Program p = Load(kProgram);
  auto category = [&](int64_t id) { return CategoryOf(*p.FindAllocation(ir::AllocationId(id))); };
  EXPECT_EQ(category(0), ValueCategory::kParameter);
  EXPECT_EQ(category(1), ValueCategory::kParameter);  // donated: still a parameter
  EXPECT_EQ(category(2), ValueCategory::kOutput);
  EXPECT_EQ(category(3), ValueCategory::kOutput);
  EXPECT_EQ(category(4), ValueCategory::kTemporary);
  EXPECT_EQ(category(5), ValueCategory::kConstant);
  EXPECT_EQ(category(6), ValueCategory::kThreadLocal);
  EXPECT_EQ(CategoryName(ValueCategory::kThreadLocal), "thread-local");
  EXPECT_EQ(CategoryName(ValueCategory::kTemporary), "temporary");
}

TEST(Timeline, BytesLiveAtEveryStep) {
  const ir::Program p = Load(kProgram);
  const Timeline t = ComputeTimeline(p);
  EXPECT_EQ(t.last_step, 8);
  const int64_t expected[] = {1536, 1536, 1544, 2568, 3592, 3072, 2816, 1808, 1808};
  for (int step = 0; step <= 8; ++step) EXPECT_EQ(Sum(t.At(step)), expected[step]) << step;
  EXPECT_EQ(Sum(t.At(-1)), 0);
  EXPECT_EQ(Sum(t.At(9)), 0);  // everything has ended
  for (size_t i = 1; i < t.points.size(); ++i) EXPECT_LT(t.points[i - 1].step, t.points[i].step);
}

TEST(LivePeak, MostBytesAndWhatIsLiveThere) {
  const ir::Program p = Load(kProgram);
  const Timeline t = ComputeTimeline(p);
  const std::optional<LivePeak> peak = ComputeLivePeak(p, t);
  ASSERT_TRUE(peak.has_value());
  EXPECT_EQ(peak->bytes, 3592);
  EXPECT_EQ(peak->step, 4);
  EXPECT_EQ(test::NameOf(p, peak->instruction), "t2");
  EXPECT_EQ(Bytes(peak->bytes_by_category, ValueCategory::kParameter), 1536);
  EXPECT_EQ(Bytes(peak->bytes_by_category, ValueCategory::kTemporary), 2048);
  EXPECT_EQ(Bytes(peak->bytes_by_category, ValueCategory::kConstant), 8);
  EXPECT_EQ(Bytes(peak->bytes_by_category, ValueCategory::kOutput), 0);
  // Largest first, then by name: p0, t1, t2 (1024), p1 (512), c (8).
  std::vector<int64_t> ids;
  for (ir::ValueId id : peak->values) ids.push_back(id.value());
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 3, 4, 1, 2}));
}

TEST(LivePeak, NoneWithoutLiveRanges) {
  std::string text(kProgram);
  text.erase(text.find("HloLiveRange"));
  const ir::Program p = Load(text);
  EXPECT_FALSE(ComputeLivePeak(p, ComputeTimeline(p)).has_value());
  EXPECT_FALSE(XlaPeakMoment(p).has_value());
  const Analysis a = Analysis::Run(p, {});
  EXPECT_FALSE(a.peak.has_value());
  EXPECT_FALSE(a.stated_peak.has_value());
}

TEST(LivePeak, TheFirstStepWinsATie) {
  const ir::Program p = Load(R"(allocation 0: size 8:
 value: <0 a @0> (size=8,offset=0): f32[2]{0}
 value: <1 b @0> (size=8,offset=0): f32[2]{0}
HloLiveRange (max 4):
  BufferLiveRange:
    a{}:1-1
    b{}:3-3
)");
  const std::optional<LivePeak> peak = ComputeLivePeak(p, ComputeTimeline(p));
  ASSERT_TRUE(peak.has_value());
  EXPECT_EQ(peak->step, 1);
  EXPECT_EQ(peak->bytes, 8);
}

// XLA's rule, as documented in liveness.h: at one time it adds the values
// that start before removing those that ended the step before, so a value
// ending at 1 and one starting at 2 are counted together at 2.
TEST(XlaPeakMoment, AddsStartsBeforeRemovingEnds) {
  const ir::Program p = Load(R"(allocation 0: size 100:
 value: <0 a @0> (size=100,offset=0): f32[25]{0}
 value: <1 b @0> (size=100,offset=0): f32[25]{0}
HloLiveRange (max 3):
  BufferLiveRange:
    a{}:0-1
    b{}:2-3
)");
  EXPECT_EQ(XlaPeakMoment(p), 2);
  const std::optional<LivePeak> peak = ComputeLivePeak(p, ComputeTimeline(p));
  ASSERT_TRUE(peak.has_value());
  EXPECT_EQ(peak->step, 0);  // the true maximum (100 bytes) is reached first at 0
}

TEST(XlaPeakMoment, SizesATupleElementAsItsInstructionsPointerTable) {
  // cc{1} holds 1000 bytes but XLA's rule counts it as cc{}'s 16.
  const ir::Program p = Load(R"(allocation 0: size 2000:
 value: <0 cc{} @0> (size=16,offset=0): (f32[4]{0}, s8[1000]{0})
 value: <1 cc{1} @0> (size=1000,offset=16): s8[1000]{0}
 value: <2 big @0> (size=500,offset=1016): f32[125]{0}
HloLiveRange (max 4):
  BufferLiveRange:
    cc{}:0-1
    cc{1}:0-1
    big{}:3-4
)");
  EXPECT_EQ(XlaPeakMoment(p), 3);
  EXPECT_EQ(ComputeLivePeak(p, ComputeTimeline(p))->step, 0);
}

std::string WithStatedPeak(std::string_view list) {
  return std::string(kProgram) + "  Live ranges at 4 (peak):\n" + std::string(list);
}

TEST(CompareWithStatedPeak, ReproducesAListThatMatches) {
  const ir::Program p = Load(WithStatedPeak(
      "    p0{}: 1024 bytes (cumulative: 1024 bytes)\n"
      "    t1{}: 1024 bytes (cumulative: 2048 bytes)\n"
      "    t2{}: 1024 bytes (cumulative: 3072 bytes)\n"
      "    p1{}: 512 bytes (cumulative: 3584 bytes)\n"
      "    c{}: 8 bytes (cumulative: 3592 bytes)\n"));
  const Analysis a = Analysis::Run(p, {});
  ASSERT_TRUE(a.stated_peak.has_value());
  EXPECT_EQ(a.stated_peak->stated_step, 4);
  EXPECT_EQ(a.stated_peak->stated_bytes, 3592);
  EXPECT_EQ(a.stated_peak->stated_values, 5);
  EXPECT_EQ(a.stated_peak->bytes_at_stated_step, 3592);
  EXPECT_EQ(a.stated_peak->values_at_stated_step, 5);
  EXPECT_TRUE(a.stated_peak->list_reproduced);
  EXPECT_TRUE(a.stated_peak->matches);
  EXPECT_EQ(a.stated_peak->mismatch, analyzer::StatedPeakMismatch::kNone);
}

TEST(CompareWithStatedPeak, SaysWhyAListDoesNotMatch) {
  // t2 is missing from the list.
  const ir::Program p = Load(WithStatedPeak(
      "    p0{}: 1024 bytes (cumulative: 1024 bytes)\n"
      "    t1{}: 1024 bytes (cumulative: 2048 bytes)\n"
      "    p1{}: 512 bytes (cumulative: 2560 bytes)\n"
      "    c{}: 8 bytes (cumulative: 2568 bytes)\n"));
  const Analysis a = Analysis::Run(p, {});
  ASSERT_TRUE(a.stated_peak.has_value());
  EXPECT_FALSE(a.stated_peak->list_reproduced);
  EXPECT_FALSE(a.stated_peak->matches);
  EXPECT_EQ(a.stated_peak->stated_bytes, 2568);
  EXPECT_EQ(a.stated_peak->mismatch, analyzer::StatedPeakMismatch::kListNotReproduced);
  EXPECT_EQ(a.stated_peak->stated_values, 4);
  EXPECT_EQ(a.stated_peak->stated_bytes, 2568);
  EXPECT_EQ(a.stated_peak->stated_step, 4);
}

TEST(Analysis, TopListsAreLargestFirstThenById) {
  const ir::Program p = Load(kProgram);
  Analysis::Options options;
  options.top_n = 3;
  const Analysis a = Analysis::Run(p, options);
  std::vector<int64_t> allocations;
  for (ir::AllocationId id : a.top_allocations) allocations.push_back(id.value());
  EXPECT_EQ(allocations, (std::vector<int64_t>{4, 0, 1}));
  std::vector<int64_t> values;
  for (ir::ValueId id : a.top_values) values.push_back(id.value());
  EXPECT_EQ(values, (std::vector<int64_t>{0, 3, 4}));  // 1024-byte values by id

  options.top_n = 0;  // all
  EXPECT_EQ(Analysis::Run(p, options).top_values.size(), p.values.size());
}

}  // namespace
}  // namespace memplan::analyzer
