// The heap algorithms on small hand-made lifetimes whose best packing is
// known by construction.
#include "analyzer/heap_simulator.h"

#include <gtest/gtest.h>

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
  heap->ShareWith(Id(2), Id(1));
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

TEST(DecreasingSizeBestFit, RoundsSizesUpToTheAlignment) {
  auto heap = MakeDecreasingSizeBestFitHeap(64);
  heap->Alloc(Id(1), 10);
  heap->Alloc(Id(2), 10);
  heap->Free(Id(1));
  heap->Free(Id(2));
  const HeapResult result = heap->Finish();
  EXPECT_EQ(result.heap_size, 128);
  EXPECT_EQ(result.chunks.at(Id(1)).offset % 64, 0);
  EXPECT_EQ(result.chunks.at(Id(2)).offset % 64, 0);
}

TEST(DecreasingSizeBestFit, SharerGetsItsCanonicalChunk) {
  auto heap = MakeDecreasingSizeBestFitHeap(1);
  heap->Alloc(Id(1), 100);
  heap->ShareWith(Id(2), Id(1));
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
