// The working arrays a MemoryModel borrows for one Run (memory_model.cc
// keeps the pool); shared by the files that implement MemoryModel.
#ifndef MEMPLAN_PREDICTOR_MEMORY_MODEL_SCRATCH_H_
#define MEMPLAN_PREDICTOR_MEMORY_MODEL_SCRATCH_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "analyzer/interval_packing.h"
#include "predictor/memory_model.h"

namespace memplan::predictor {

// The temp buffer list's storage, the temp packing's and LivePeak's
// working arrays, kept between candidates: ranking models one candidate
// after another, and with memplan's fixed mmap threshold
// (ir/malloc_settings.h) fresh arrays would be fresh mappings faulted in
// every time. Each is rewritten (or cleared) before it is read. A Run
// borrows one set from a process-wide pool and gives it back at its end,
// so a thread started for one ranking finds the arrays an earlier
// ranking's thread grew (the pool holds as many sets as Runs ever ran at
// once).
struct ModelScratch {
  std::vector<TempBuffer> temp;  // a MemoryModel's temp_ between its Runs
  std::vector<TempBuffer> resident;     // its resident_ between its Runs
  std::vector<int64_t> value_bytes;     // its value_bytes_ between its Runs
  std::vector<int64_t> cap;             // CollectTempBuffers' output capacities
  std::vector<ir::ScheduleStep> end;    // CollectTempBuffers' value end steps
  std::vector<int32_t> index;           // ValueBuffers' temp index per value
  std::vector<ir::ScheduleStep> begin;  // value start steps (reassigning)
  std::vector<std::vector<TempBuffer>> live_out;  // per allocation (reassigning)
  std::vector<uint8_t> stays;  // per value: kept in its allocation (reassigning)
  std::vector<uint8_t> removed_copies;  // per donated copy: gone per device
  std::vector<std::pair<int32_t, int32_t>> copy_readers;  // (parameter, reader) of removed copies
  std::vector<uint32_t> events;
  std::vector<uint32_t> count;
  std::vector<int32_t> slot;
  std::vector<int32_t> interval_of;
  std::vector<analyzer::PackingInterval> intervals;
  analyzer::PackingScratch packing;
  std::vector<std::pair<ir::ScheduleStep, int64_t>> deltas;  // LivePeak's
  std::vector<int64_t> per_step;                             // LivePeak's
};

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_MEMORY_MODEL_SCRATCH_H_
