// analyzer::LiveGroupBytesPeak (the bound that lets the packer skip its
// second order) against a count at every tick, on random call streams
// with sharing: ticks dense (its ends counted by tick) and spread or
// negative (its ends sorted).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "analyzer/interval_packing.h"
#include "gtest/gtest.h"
#include "tests/packing_stream.h"

namespace memplan::test {
namespace {

using analyzer::PackingInterval;

// Frees one in three, sizes 1..100, one in four shares a group.
constexpr StreamShape kStream{3, 100, 4};

// Per tick: the chunk of every group with a member live then (as large as
// its largest member), summed; the most of those.
int64_t CountedPeak(const std::vector<PackingInterval>& iv) {
  std::vector<int64_t> chunk(iv.size(), 0);
  for (const PackingInterval& p : iv) {
    chunk[static_cast<size_t>(p.group)] = std::max(chunk[static_cast<size_t>(p.group)], p.size);
  }
  int64_t last = 0, peak = 0;
  for (const PackingInterval& p : iv) last = std::max(last, p.end);
  for (int64_t t = 0; t <= last; ++t) {
    std::vector<bool> live(iv.size(), false);
    int64_t bytes = 0;
    for (const PackingInterval& p : iv) {
      const size_t g = static_cast<size_t>(p.group);
      if (p.start <= t && t <= p.end && !live[g]) {
        live[g] = true;
        bytes += chunk[g];
      }
    }
    peak = std::max(peak, bytes);
  }
  return peak;
}

TEST(LiveGroupBytesPeak, EqualsACountAtEveryTick) {
  uint64_t state = 2024;
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<PackingInterval> iv = RandomStream(state, 5 + static_cast<int>(NextRandom(state) % 150), kStream);
    const int64_t expected = CountedPeak(iv);
    EXPECT_EQ(analyzer::LiveGroupBytesPeak(iv), expected) << "trial " << trial;
    for (PackingInterval& p : iv) {  // past the table: ends sorted
      p.start = p.start * 10000 - 5000;
      p.end = p.end * 10000 - 5000;
    }
    EXPECT_EQ(analyzer::LiveGroupBytesPeak(iv), expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace memplan::test
