// Internal to predictor: the temp arena's packing of one candidate, kept to
// answer another of the same structure without packing again when that is
// provably the same packing scaled.
//
// analyzer::BestFitHeapSize on buffers whose sizes are all multiples of the
// alignment places every chunk at 0 or at the end of another (a sum of
// sizes, already aligned), and every choice it makes compares sums of
// sizes, orders by size, or compares lifetimes. Multiply every size by one
// factor f > 0, keeping them multiples of the alignment, and every
// comparison answers alike: the same placements, every offset and the heap
// size times f. So a candidate whose temp buffers have the kept one's
// lifetimes and sharing, and sizes the kept sizes times one factor, both
// multiples of the alignment, has the kept heap size times that factor.
#ifndef MEMPLAN_PREDICTOR_PACKING_MEMO_H_
#define MEMPLAN_PREDICTOR_PACKING_MEMO_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "ir/program.h"

namespace memplan::predictor {

// A buffer of the per-device program's temp arena (predictor/memory_model.h).
struct TempBuffer {
  int64_t size = 0;
  ir::ScheduleStep start = 0, end = 0;
  int64_t share_with = -1;  // index of the buffer whose memory it reuses
};

// Thread-safe; holds the last packing kept.
class PackingMemo {
 public:
  // The heap size of `temp` under `alignment` when the rule above gives it
  // from the kept packing; nullopt otherwise.
  std::optional<int64_t> Scaled(const std::vector<TempBuffer>& temp, int64_t alignment) const;
  // Keeps `temp` packed under `alignment` into `heap` bytes.
  void Keep(const std::vector<TempBuffer>& temp, int64_t alignment, int64_t heap);

 private:
  struct Kept {
    std::vector<TempBuffer> temp;
    int64_t alignment = 0;
    int64_t heap = 0;
  };
  mutable std::mutex mutex_;
  std::shared_ptr<const Kept> kept_;
};

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_PACKING_MEMO_H_
