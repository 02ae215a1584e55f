// Heap simulation: pack buffers with known lifetimes into one arena, as XLA's
// heap simulator does for the temp allocation.
//
// An algorithm sees a stream of Alloc / Free / ShareWith calls (each call is
// one tick of a logical clock) and returns the arena size and each buffer's
// chunk from Finish(). Tests can record the calls; callers drive it either
// from live ranges (text dumps) or from XLA's own trace (the HloProto).
#ifndef MEMPLAN_ANALYZER_HEAP_SIMULATOR_H_
#define MEMPLAN_ANALYZER_HEAP_SIMULATOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/ids.h"

namespace memplan::analyzer {

struct HeapChunk {
  int64_t offset = 0;
  int64_t size = 0;
  int64_t end() const { return offset + size; }
};

struct HeapResult {
  int64_t heap_size = 0;
  // Each buffer's chunk (sharers get their canonical buffer's chunk); empty
  // for algorithms that place nothing (the no-fragmentation bound).
  absl::flat_hash_map<ir::ValueId, HeapChunk> chunks;
};

class HeapAlgorithm {
 public:
  virtual ~HeapAlgorithm() = default;
  // `buffer` becomes live with `size` bytes. Precondition: not live already.
  virtual void Alloc(ir::ValueId buffer, int64_t size) = 0;
  // `buffer` dies. Precondition: live (allocated or shared).
  virtual void Free(ir::ValueId buffer) = 0;
  // `buffer` (`size` bytes) becomes live in the memory of the live buffer
  // `canonical` (an in-place update, or a value of the same HloBuffer); it
  // occupies no bytes of its own, and the shared chunk is as large as the
  // largest buffer sharing it.
  virtual void ShareWith(ir::ValueId buffer, ir::ValueId canonical, int64_t size) = 0;
  virtual HeapResult Finish() = 0;
};

// The lower bound no packing can beat: the most bytes live at once.
std::unique_ptr<HeapAlgorithm> MakeNoFragmentationHeap();

// The orders XLA's GlobalDecreasingSizeBestFitHeap places buffers in:
// spatial: larger first, then longer own lifetime, then id; temporal: longer
// lifetime of the buffer with everything sharing it first, then larger,
// then id.
enum class PackingOrder { kSpatial, kTemporal };

// XLA's GlobalDecreasingSizeBestFitHeap in one order: each buffer, in that
// order, goes to the smallest free gap (ties: the lowest) that holds it among
// the chunks placed before it whose lifetimes overlap its own or those of its
// sharers, else above them all. A gap starts at the end of the chunk below it
// rounded up to `alignment` (> 0); sizes are not rounded, so the heap ends at
// the highest chunk end. A buffer and its sharers get one chunk, as large as
// the largest of them; each keeps its own lifetime.
std::unique_ptr<HeapAlgorithm> MakeDecreasingSizeBestFitHeap(int64_t alignment,
                                                             PackingOrder order);

// What XLA's buffer assignment runs (ChooseBestHeapAlgorithm over both
// orders): the smaller of the spatial and the temporal packing, spatial on a
// tie.
std::unique_ptr<HeapAlgorithm> MakeDecreasingSizeBestFitHeap(int64_t alignment);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_HEAP_SIMULATOR_H_
