// Random interval lists shaped like the packer's callers write them, for
// the interval-packing tests: one tick per Alloc, Share and Free (dense
// ticks), some buffers sharing a group with a live one.
#ifndef MEMPLAN_TESTS_PACKING_STREAM_H_
#define MEMPLAN_TESTS_PACKING_STREAM_H_

#include <cstdint>
#include <vector>

#include "analyzer/interval_packing.h"

namespace memplan::test {

// A 64-bit LCG's high 31 bits.
inline uint64_t NextRandom(uint64_t& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return state >> 33;
}

struct StreamShape {
  uint64_t free_one_in = 2;   // before each allocation, free a live one while 1 in this
  uint64_t max_size = 1000;   // sizes 1..max_size
  uint64_t share_one_in = 5;  // 1 in this joins a live buffer's group
};

// `n` intervals; what is live at the end ends then, one tick each.
inline std::vector<analyzer::PackingInterval> RandomStream(uint64_t& state, int n, StreamShape shape) {
  std::vector<analyzer::PackingInterval> iv;
  std::vector<size_t> live;
  int64_t tick = 0;
  for (int id = 0; id < n; ++id) {
    while (!live.empty() && NextRandom(state) % shape.free_one_in == 0) {
      const size_t k = NextRandom(state) % live.size();
      iv[live[k]].end = tick++;
      live.erase(live.begin() + static_cast<long>(k));
    }
    analyzer::PackingInterval p{id, 1 + static_cast<int64_t>(NextRandom(state) % shape.max_size), tick++, -1,
                                static_cast<int32_t>(iv.size())};
    if (!live.empty() && NextRandom(state) % shape.share_one_in == 0) {
      p.group = iv[live[NextRandom(state) % live.size()]].group;
    }
    live.push_back(iv.size());
    iv.push_back(p);
  }
  for (size_t i : live) iv[i].end = tick++;
  return iv;
}

}  // namespace memplan::test

#endif  // MEMPLAN_TESTS_PACKING_STREAM_H_
