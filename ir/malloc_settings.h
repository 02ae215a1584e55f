// The allocator setting every memplan executable makes at start-up, kept in
// one place so the benchmarks (bench/) measure the allocator the CLI runs.
#ifndef MEMPLAN_IR_MALLOC_SETTINGS_H_
#define MEMPLAN_IR_MALLOC_SETTINGS_H_

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace memplan::ir {

// glibc raises its mmap threshold to the size of each large block freed
// (up to 32 MiB); from then on, large arrays (a dump's per-value vectors
// and the analyses' working arrays) come from the heap, where freed pages
// and a vector's never-written capacity stay resident. A fixed threshold
// (glibc's initial one) keeps every block of 128 KiB or more a mapping of
// its own, returned when freed: the 100 MB synthetic dump's `analyze`
// peaks at 136 MB of heap instead of 148 MB (docs/performance.md). The
// price: each such block is a fresh mapping whose pages fault in on first
// write, so code that allocates large arrays per item (per candidate) pays
// those faults every time unless it reuses its arrays.
// Call once, first thing in main(); does nothing off glibc.
inline void UseFixedMmapThreshold() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_MALLOC_SETTINGS_H_
