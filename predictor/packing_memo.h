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

#include "analyzer/interval_packing_forms.h"
#include "ir/program.h"
#include "predictor/all_reduce_combiner.h"
#include "predictor/axes_sharding.h"

namespace memplan::predictor {

// What a buffer of the per-device program holds, for the list of buffers
// live at the peak: a value (its index in the predictor's value list), a
// collective's result, or the partial sum a collective reads when no value
// holds it (an index into the propagation's collectives).
struct BufferOrigin {
  enum class Kind : uint8_t { kNone, kValue, kCollectiveResult, kCollectiveOperand };
  Kind kind = Kind::kNone;
  int32_t index = -1;
  static BufferOrigin Value(size_t v) { return {Kind::kValue, static_cast<int32_t>(v)}; }
  static BufferOrigin Result(size_t c) { return {Kind::kCollectiveResult, static_cast<int32_t>(c)}; }
  static BufferOrigin Operand(size_t c) { return {Kind::kCollectiveOperand, static_cast<int32_t>(c)}; }
};

// A buffer of the per-device program's temp arena (predictor/memory_model.h).
struct TempBuffer {
  int64_t size = 0;
  ir::ScheduleStep start = 0, end = 0;
  int64_t share_with = -1;  // index of the buffer whose memory it reuses
  // Re-assigning only (output_reassignment.h, InstructionPostOrder): the
  // buffer's place in XLA's order among buffers of one size; 0 otherwise.
  int64_t order = 0;
  BufferOrigin origin{};
};

// Per value of the program (by index in the predictor's value list), what
// its per-device bytes depend on once a structure's shardings are fixed,
// flat: only the mesh's axis sizes vary between the structure's candidates.
struct ValueBytesTable {
  struct Entry {
    int64_t size = 0;        // the value's bytes in the single-device program
    int64_t full_bytes = 0;  // its leaf shape's unsharded bytes
    int64_t element_bits = 0;   // > 0: packed elements (bits each)
    int64_t element_bytes = 0;  // else bytes per element
    uint32_t first_dim = 0;     // into dims / masks
    uint32_t rank = 0;
    // kFixed: `size` whatever the mesh; kSharded: from the dims; kSlow: the
    // predictor's ShardBytes (an axis outside the ways table).
    enum class Kind : uint8_t { kFixed, kSharded, kSlow } kind = Kind::kFixed;
  };
  size_t ways_table_size = 0;  // the mesh ways table it was built against
  // The distinct entries (equal size, full bytes, element width, kind,
  // dims and masks once: a program's values fall into few), and per value
  // its entry's index. Every kSlow value shares one entry (its bytes are
  // the value's own ShardBytes).
  std::vector<Entry> entries;
  std::vector<uint32_t> entry_of;
  std::vector<int64_t> dims;
  std::vector<AxisMask> masks;
};

// A structure's combined all-reduces, formed without reading a byte count
// (predictor/all_reduce_combiner.h): the same for every list of collectives
// that differs from the one they were formed from in bytes alone.
struct KeptCombined {
  // Their groups' `bytes` are those of the list they were formed from.
  std::shared_ptr<const CombinedGroups> combined;
  // What the combiner read of that list: its length, and per all-reduce its
  // index, consumer, source and axes.
  struct Reduce {
    size_t index = 0;
    ir::InstructionId at, source;
    AxisMask axes = 0;
  };
  size_t collectives = 0;
  std::vector<Reduce> reduces;

  // Whether `list` reads alike to the combiner (bytes aside).
  bool FormedFrom(const std::vector<PredictedCollective>& list) const;
};

// Thread-safe; holds the last packing kept.
class PackingMemo {
 public:
  // The structure's value table, once some candidate built it (nullptr
  // before); Share keeps the first built.
  std::shared_ptr<const ValueBytesTable> value_bytes() const;
  void ShareValueBytes(std::shared_ptr<const ValueBytesTable> table);

  // The combined all-reduces kept by KeepCombined, or null.
  std::shared_ptr<const KeptCombined> combined() const;
  // Keeps `combined`, formed from `list` without reading a byte count (the
  // first kept stays).
  void KeepCombined(const std::vector<PredictedCollective>& list,
                    std::shared_ptr<const CombinedGroups> combined);

  // The heap size of `temp` under `alignment` when the rule above gives it
  // from the kept packing; nullopt otherwise.
  std::optional<int64_t> Scaled(const std::vector<TempBuffer>& temp, int64_t alignment) const;
  // Keeps `temp` packed under `alignment` into `heap` bytes.
  void Keep(const std::vector<TempBuffer>& temp, int64_t alignment, int64_t heap);

  // The heap size of `temp` under `alignment` from a kept recording
  // (analyzer/interval_packing_forms.h) of a list with `temp`'s lifetimes
  // and sharing whose buffers of one size have one size in `temp` too,
  // when that recording answers for their sizes; nullopt otherwise.
  std::optional<int64_t> FromForms(const std::vector<TempBuffer>& temp, int64_t alignment) const;
  // Keeps `forms`, recorded from `temp` under `alignment` (with the
  // recordings kept for the same lifetimes and sharing, the oldest dropped
  // past kMaxForms; recordings of other lifetimes are dropped).
  void KeepForms(const std::vector<TempBuffer>& temp, int64_t alignment,
                 analyzer::PackingForms forms);
  static constexpr size_t kMaxForms = 8;
  // Whether the list kept by Keep has `temp`'s lifetimes and sharing and
  // was packed under `alignment`: a second candidate of them, worth
  // recording (a structure's only candidate is packed, not recorded).
  bool KeptLifetimes(const std::vector<TempBuffer>& temp, int64_t alignment) const;

 private:
  struct Kept {
    std::vector<TempBuffer> temp;
    int64_t alignment = 0;
    int64_t heap = 0;
  };
  // A recording and, per temp buffer, its size class there.
  struct FormsEntry {
    analyzer::PackingForms forms;
    std::vector<uint8_t> class_of;
  };
  // Recordings of one list of lifetimes and sharing (sizes not read).
  struct KeptForms {
    std::shared_ptr<const std::vector<TempBuffer>> temp;
    int64_t alignment = 0;
    std::vector<std::shared_ptr<const FormsEntry>> entries;  // oldest first
  };
  mutable std::mutex mutex_;
  std::shared_ptr<Kept> kept_;  // handed to readers as const; see Keep
  std::shared_ptr<const KeptForms> forms_;  // recordings of the last lifetimes kept
  std::shared_ptr<const ValueBytesTable> value_bytes_;
  std::shared_ptr<const KeptCombined> combined_;
};

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_PACKING_MEMO_H_
