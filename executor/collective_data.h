// What goes into a collective and what must come out, and nccl-tests'
// bandwidth figures for it (doc/PERFORMANCE.md of nccl-tests: algbw = S/t;
// busbw = algbw x 2(n-1)/n for all-reduce, (n-1)/n for all-gather,
// reduce-scatter and all-to-all, 1 for send/recv).
//
// Inputs hold small integers chosen so that every sum a reduction forms is
// exactly representable in the wire type, whatever order the reduction adds
// in; outputs are compared element by element, exactly.
#ifndef MEMPLAN_EXECUTOR_COLLECTIVE_DATA_H_
#define MEMPLAN_EXECUTOR_COLLECTIVE_DATA_H_

#include <cstdint>

#include "executor/plan.h"
#include "executor/wire_types.h"

namespace memplan::executor {

// busbw / algbw for `kind` over `n` ranks (1 when n == 1 for send/recv, 0
// for the others: a one-rank collective moves nothing).
double BusBandwidthFactor(CollectiveKind kind, int n);

// Bytes per second / 1e9 (GB/s, as nccl-tests prints); 0 when seconds <= 0.
double AlgorithmBandwidthGBps(int64_t bytes, double seconds);
double BusBandwidthGBps(CollectiveKind kind, int n, int64_t bytes, double seconds);

// 2 m n k per GEMM, times count.
double GemmFlops(const GemmOp& gemm);

// The data of one collective on one rank: the rank's position in the group
// (`position`, 0..n-1), the group size and the wire type.
class CollectiveData {
 public:
  CollectiveData(CollectiveKind kind, WireType type, int group_size, int position);

  // Wire elements of the rank's input and output for a collective of
  // `bytes` (CollectiveOp::bytes), and nccl-tests' element count (S over
  // the element size).
  int64_t InputElements(int64_t bytes) const;
  int64_t OutputElements(int64_t bytes) const;

  // Fills `elements` wire elements at `input` (host memory).
  void FillInput(void* input, int64_t elements) const;
  // Elements of `output` (host memory, OutputElements(bytes) of them) that
  // differ from what the collective must produce.
  int64_t CountWrong(const void* output, int64_t bytes) const;

 private:
  // The value the rank at `position` puts at input element `i`.
  int64_t Input(int position, int64_t i) const;
  int64_t Expected(int64_t j, int64_t bytes) const;

  CollectiveKind kind_;
  WireType type_;
  int n_;
  int position_;
  int64_t modulus_;  // inputs are 1 + (i + position) % modulus_
  bool indicator_;   // too many ranks for sums: inputs are 1 where i % n == position, else 0
};

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_COLLECTIVE_DATA_H_
