// Internal to analyzer/interval_packing.cc: the sort of its placement
// orders. Each root of the packing has a key (first, second, id); ids are
// unique, so the order is total and any correct sort gives the same roots.
#ifndef MEMPLAN_ANALYZER_INTERVAL_PACKING_ORDER_H_
#define MEMPLAN_ANALYZER_INTERVAL_PACKING_ORDER_H_

#include <cstdint>
#include <vector>

namespace memplan::analyzer {

struct OrderKey {
  int64_t first;
  int64_t second;
  int64_t id;
  int32_t root;
};

// The roots of `keys` in (first, second, id) order (keys may be reordered).
// Precondition: no two keys share an id. When the three fields' ranges
// (max - min) fit one 64-bit word together, they are sorted as that word
// (each field less its minimum, in its own bits; the first field's low bits
// that no key sets above the minimum left out) by a radix sort of 11-bit
// digits over the bits that vary; else as two words a byte at a time; else
// by std::sort.
std::vector<int32_t> SortedRoots(std::vector<OrderKey>& keys);

// One key as the one-word sort orders it.
struct SortWord {
  uint64_t key;
  int32_t root;
};

// SortedRoots' working arrays, kept between sorts so that a caller sorting
// many key lists reuses their pages (analyzer/interval_packing.h's
// PackingScratch holds one).
struct OrderScratch {
  std::vector<SortWord> items;
  std::vector<SortWord> spare;
  std::vector<int32_t> roots;
};

// The same order as above, written into `scratch.roots` (returned).
const std::vector<int32_t>& SortedRoots(std::vector<OrderKey>& keys, OrderScratch& scratch);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_INTERVAL_PACKING_ORDER_H_
