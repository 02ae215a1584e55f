// The heap algorithms on small hand-made lifetimes whose best packing is
// known by construction.
#include "analyzer/heap_simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace memplan::analyzer {
namespace {

ir::ValueId Id(int64_t n) { return ir::ValueId(n); }

TEST(NoFragmentationHeap, IsTheMostBytesLiveAtOnce) {
  auto heap = MakeNoFragmentationHeap();
  heap->Alloc(Id(1), 100);
  heap->Alloc(Id(2), 50);
  heap->Free(Id(1));
  heap->Alloc(Id(3), 70);  // 50 + 70 = 120 < 150
  heap->Free(Id(2));
  heap->Free(Id(3));
  EXPECT_EQ(heap->Finish().heap_size, 150);
}

TEST(NoFragmentationHeap, SharersOwnNoBytes) {
  auto heap = MakeNoFragmentationHeap();
  heap->Alloc(Id(1), 100);
  heap->ShareWith(Id(2), Id(1), 100);
  heap->Free(Id(1));
  heap->Free(Id(2));
  EXPECT_EQ(heap->Finish().heap_size, 100);
}

TEST(DecreasingSizeBestFit, ReusesMemoryOfDeadBuffers) {
  auto heap = MakeDecreasingSizeBestFitHeap(1);
  heap->Alloc(Id(1), 100);
  heap->Free(Id(1));
  heap->Alloc(Id(2), 100);  // disjoint lifetime: same memory
  heap->Free(Id(2));
  const HeapResult result = heap->Finish();
  EXPECT_EQ(result.heap_size, 100);
  EXPECT_EQ(result.chunks.at(Id(1)).offset, result.chunks.at(Id(2)).offset);
}

TEST(DecreasingSizeBestFit, OverlappingBuffersNeverShareBytes) {
  auto heap = MakeDecreasingSizeBestFitHeap(1);
  heap->Alloc(Id(1), 30);
  heap->Alloc(Id(2), 50);
  heap->Alloc(Id(3), 20);
  heap->Free(Id(1));
  heap->Free(Id(2));
  heap->Free(Id(3));
  const HeapResult result = heap->Finish();
  EXPECT_EQ(result.heap_size, 100);
  // Largest first at offset 0, then 30, then 20 above them.
  EXPECT_EQ(result.chunks.at(Id(2)).offset, 0);
  EXPECT_EQ(result.chunks.at(Id(1)).offset, 50);
  EXPECT_EQ(result.chunks.at(Id(3)).offset, 80);
}

TEST(DecreasingSizeBestFit, PicksTheSmallestGapThatFits) {
  // A (60) and C (40) live across the whole run with a 30-byte hole left by
  // B; D (30) and E (10) come later: best fit puts E in the small gap.
  auto heap = MakeDecreasingSizeBestFitHeap(1);
  heap->Alloc(Id(1), 60);
  heap->Alloc(Id(2), 40);
  heap->Alloc(Id(3), 10);
  heap->Free(Id(3));
  heap->Alloc(Id(4), 10);
  heap->Free(Id(4));
  heap->Free(Id(1));
  heap->Free(Id(2));
  const HeapResult result = heap->Finish();
  EXPECT_EQ(result.heap_size, 110);
  EXPECT_EQ(result.chunks.at(Id(3)).offset, result.chunks.at(Id(4)).offset);
}

// XLA aligns where a gap starts (the end of the chunk below, rounded up),
// not the sizes: two 10-byte buffers at alignment 64 sit at 0 and 64, and
// the heap ends at 74 (GlobalDecreasingSizeBestFitHeap's free chunks).
TEST(DecreasingSizeBestFit, AlignsGapStartsNotSizes) {
  for (PackingOrder order : {PackingOrder::kSpatial, PackingOrder::kTemporal}) {
    auto heap = MakeDecreasingSizeBestFitHeap(64, order);
    heap->Alloc(Id(1), 10);
    heap->Alloc(Id(2), 10);
    heap->Free(Id(1));
    heap->Free(Id(2));
    const HeapResult result = heap->Finish();
    EXPECT_EQ(result.heap_size, 74);
    EXPECT_EQ(result.chunks.at(Id(1)).offset % 64, 0);
    EXPECT_EQ(result.chunks.at(Id(2)).offset % 64, 0);
    EXPECT_NE(result.chunks.at(Id(1)).offset, result.chunks.at(Id(2)).offset);
  }
}

// A value of the same HloBuffer that starts after its canonical one died
// keeps its own lifetime: the time between them is free for others (XLA
// checks each colocation's interval, not their span).
TEST(DecreasingSizeBestFit, SharersKeepTheirOwnLifetimes) {
  auto heap = MakeDecreasingSizeBestFitHeap(1);
  heap->Alloc(Id(1), 100);
  heap->Free(Id(1));
  heap->Alloc(Id(3), 100);
  heap->Free(Id(3));
  heap->ShareWith(Id(2), Id(1), 100);
  heap->Free(Id(2));
  const HeapResult result = heap->Finish();
  EXPECT_EQ(result.heap_size, 100);
  EXPECT_EQ(result.chunks.at(Id(2)).offset, result.chunks.at(Id(1)).offset);
}

// The shared chunk is as large as the largest buffer sharing it.
TEST(DecreasingSizeBestFit, SharedChunkHoldsTheLargestSharer) {
  auto heap = MakeDecreasingSizeBestFitHeap(1);
  heap->Alloc(Id(1), 40);
  heap->Alloc(Id(5), 10);
  heap->ShareWith(Id(2), Id(1), 60);
  heap->Free(Id(1));
  heap->Free(Id(2));
  heap->Free(Id(5));
  const HeapResult result = heap->Finish();
  EXPECT_EQ(result.chunks.at(Id(1)).size, 60);
  EXPECT_EQ(result.heap_size, 70);
}

// Buffer assignment keeps the smaller of the two orders.
TEST(DecreasingSizeBestFit, BothOrdersKeepTheSmaller) {
  auto feed = [](HeapAlgorithm& heap) {
    // Pseudo-random lifetimes and sizes, the same for every algorithm.
    uint64_t state = 12345;
    auto next = [&] {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return static_cast<int64_t>(state >> 33);
    };
    std::vector<int> live;
    for (int i = 0; i < 300; ++i) {
      if (!live.empty() && next() % 3 == 0) {
        const size_t k = static_cast<size_t>(next()) % live.size();
        heap.Free(Id(live[k]));
        live.erase(live.begin() + static_cast<long>(k));
      }
      heap.Alloc(Id(i), 1 + next() % 1000);
      live.push_back(i);
    }
    for (int id : live) heap.Free(Id(id));
  };
  auto spatial = MakeDecreasingSizeBestFitHeap(8, PackingOrder::kSpatial);
  auto temporal = MakeDecreasingSizeBestFitHeap(8, PackingOrder::kTemporal);
  auto both = MakeDecreasingSizeBestFitHeap(8);
  feed(*spatial);
  feed(*temporal);
  feed(*both);
  const int64_t s = spatial->Finish().heap_size;
  const int64_t t = temporal->Finish().heap_size;
  EXPECT_EQ(both->Finish().heap_size, std::min(s, t));
}

TEST(DecreasingSizeBestFit, SharerGetsItsCanonicalChunk) {
  auto heap = MakeDecreasingSizeBestFitHeap(1);
  heap->Alloc(Id(1), 100);
  heap->ShareWith(Id(2), Id(1), 100);
  heap->Free(Id(1));
  heap->Alloc(Id(3), 100);  // overlaps the sharer, which extends buffer 1
  heap->Free(Id(2));
  heap->Free(Id(3));
  const HeapResult result = heap->Finish();
  EXPECT_EQ(result.chunks.at(Id(2)).offset, result.chunks.at(Id(1)).offset);
  EXPECT_EQ(result.heap_size, 200);
}

TEST(DecreasingSizeBestFit, ManyShortLivedBuffersStayCompact) {
  // 10,000 buffers, each overlapping only its neighbour: two slots suffice.
  auto heap = MakeDecreasingSizeBestFitHeap(1);
  heap->Alloc(Id(0), 8);
  for (int i = 1; i < 10000; ++i) {
    heap->Alloc(Id(i), 8);
    heap->Free(Id(i - 1));
  }
  heap->Free(Id(9999));
  EXPECT_EQ(heap->Finish().heap_size, 16);
}

}  // namespace
}  // namespace memplan::analyzer
