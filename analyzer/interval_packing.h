// XLA's best-fit heap size for buffers whose lifetimes are already known,
// computed fast: the same answer as analyzer/heap_simulator.h's
// MakeDecreasingSizeBestFitHeap fed the same Alloc / ShareWith / Free
// stream (the smaller of the spatial and the temporal packing), without
// per-buffer hash maps or chunk output.
//
// The rule that skips work without changing the answer: no packing is
// smaller than the most bytes live at one tick (each chunk as large as its
// group's largest buffer), so when the first order (spatial) reaches that
// bound the second (temporal) cannot be smaller, and is not run.
#ifndef MEMPLAN_ANALYZER_INTERVAL_PACKING_H_
#define MEMPLAN_ANALYZER_INTERVAL_PACKING_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace memplan::analyzer {

// One buffer as the heap simulator sees it: its lifetime in ticks of the
// call stream (one tick per Alloc, ShareWith and Free; inclusive).
struct PackingInterval {
  int64_t id = 0;     // the buffer's id: orders equal keys (smaller first)
  int64_t size = 0;   // bytes, > 0
  int64_t start = 0;  // tick of its Alloc or ShareWith
  int64_t end = 0;    // tick of its Free (>= start)
  // Index, in the interval list, of the allocated interval whose chunk it
  // shares (the canonical buffer of its ShareWith); its own index when it
  // was allocated.
  int32_t group = 0;
};

// The heap size MakeDecreasingSizeBestFitHeap(alignment) returns for the
// call stream `intervals` describe. Precondition: `intervals` sorted by
// start tick, start ticks distinct, each group index <= its own index and
// naming an interval that was allocated.
int64_t BestFitHeapSize(const std::vector<PackingInterval>& intervals, int64_t alignment);

// Working arrays of BestFitHeapSize, kept between calls: a caller that packs
// many interval lists (one per candidate) passes the same scratch each time
// and reuses their pages instead of mapping and faulting in fresh ones
// (memplan fixes glibc's mmap threshold at 128 KiB: ir/malloc_settings.h).
// Holds about 40 bytes per interval of the largest list packed. Not shared
// between threads: one per thread.
class PackingScratch {
 public:
  PackingScratch();
  ~PackingScratch();
  PackingScratch(const PackingScratch&) = delete;
  PackingScratch& operator=(const PackingScratch&) = delete;

 private:
  friend int64_t BestFitHeapSize(const std::vector<PackingInterval>&, int64_t, PackingScratch&);
  friend class FormRecorder;  // analyzer/interval_packing_forms.cc
  struct Arrays;
  std::unique_ptr<Arrays> arrays_;
};

// The same answer as above, with its working arrays in `scratch`.
int64_t BestFitHeapSize(const std::vector<PackingInterval>& intervals, int64_t alignment,
                        PackingScratch& scratch);

// The lower bound above: the most bytes of groups live at one tick.
int64_t LiveGroupBytesPeak(const std::vector<PackingInterval>& intervals);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_INTERVAL_PACKING_H_
