// analyzer::PackingScratch: one scratch reused across interval lists of
// every shape (dense ticks large and small, spread ticks, ticks past int32)
// gives each list the answer of a fresh BestFitHeapSize call. A reused
// array that is read before it is rewritten (a stale tick index, a stale
// placed end) changes some answer.
#include <cstdint>
#include <vector>

#include "analyzer/interval_packing.h"
#include "gtest/gtest.h"
#include "tests/packing_stream.h"

namespace memplan::test {
namespace {

using analyzer::PackingInterval;

// Lifetimes short and long, sizes 1..1000, some sharing.
constexpr StreamShape kStream{2, 1000, 5};

// The same stream with every tick scaled and shifted (spread or wide ticks).
std::vector<PackingInterval> Moved(std::vector<PackingInterval> iv, int64_t scale,
                                   int64_t shift) {
  for (PackingInterval& p : iv) {
    p.start = p.start * scale + shift;
    p.end = p.end * scale + shift;
  }
  return iv;
}

TEST(PackingScratch, ReusedScratchGivesEachListTheFreshAnswer) {
  uint64_t state = 7;
  analyzer::PackingScratch scratch;
  int checked = 0;
  for (int round = 0; round < 40; ++round) {
    const int n = round % 3 == 0 ? 3000 : 1 + static_cast<int>(NextRandom(state) % 400);
    const std::vector<PackingInterval> dense = RandomStream(state, n, kStream);
    std::vector<std::vector<PackingInterval>> lists = {dense};
    switch (round % 4) {
      case 1: lists.push_back(Moved(dense, 1000, 0)); break;                // spread
      case 2: lists.push_back(Moved(dense, 1, int64_t{3} << 31)); break;    // past int32
      case 3: lists.push_back(Moved(dense, 7, -5000)); break;               // negative
      default: break;
    }
    for (const std::vector<PackingInterval>& iv : lists) {
      for (int64_t alignment : {1, 64}) {
        EXPECT_EQ(analyzer::BestFitHeapSize(iv, alignment, scratch),
                  analyzer::BestFitHeapSize(iv, alignment))
            << "round " << round << ", " << iv.size() << " intervals";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 80);
}

}  // namespace
}  // namespace memplan::test
