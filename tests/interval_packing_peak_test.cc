// analyzer::LiveGroupBytesPeak (the bound that lets the packer skip its
// second order) against a count at every tick, on random call streams
// with sharing: ticks dense (its ends counted by tick) and spread or
// negative (its ends sorted).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "analyzer/interval_packing.h"
#include "gtest/gtest.h"

namespace memplan::test {
namespace {

using analyzer::PackingInterval;

uint64_t Next(uint64_t& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return state >> 33;
}

// One tick per Alloc, Share and Free, as the packer's callers write them.
std::vector<PackingInterval> RandomStream(uint64_t& state, int n) {
  std::vector<PackingInterval> iv;
  std::vector<size_t> live;
  int64_t tick = 0;
  for (int id = 0; id < n; ++id) {
    while (!live.empty() && Next(state) % 3 == 0) {
      const size_t k = Next(state) % live.size();
      iv[live[k]].end = tick++;
      live.erase(live.begin() + static_cast<long>(k));
    }
    PackingInterval p{id, 1 + static_cast<int64_t>(Next(state) % 100), tick++, -1,
                      static_cast<int32_t>(iv.size())};
    if (!live.empty() && Next(state) % 4 == 0) p.group = iv[live[Next(state) % live.size()]].group;
    live.push_back(iv.size());
    iv.push_back(p);
  }
  for (size_t i : live) iv[i].end = tick++;
  return iv;
}

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
    std::vector<PackingInterval> iv = RandomStream(state, 5 + static_cast<int>(Next(state) % 150));
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
