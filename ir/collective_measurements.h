// Measured collective timings: what nccl-tests prints (text table or JSON)
// and what `memplan bench-collectives` writes (memplan.collectives.v1). The
// parsers produce these; `memplan calibrate` fits the simulator's links to
// them.
#ifndef MEMPLAN_IR_COLLECTIVE_MEASUREMENTS_H_
#define MEMPLAN_IR_COLLECTIVE_MEASUREMENTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/collective.h"
#include "ir/diagnostics.h"

namespace memplan::ir {

// One row of a table: one message size, out-of-place or in-place.
struct CollectiveSample {
  int64_t bytes = 0;   // nccl-tests' "size": for all-gather and reduce-scatter
                       // the full gathered (scattered) size
  int64_t count = 0;   // elements
  std::string dtype;   // as the tool spells it: "float", "bfloat16", ...
  double time_us = 0;  // average time of one operation, microseconds
  double algbw_gbps = 0;  // bytes / time, GB/s (1e9 bytes per second)
  double busbw_gbps = 0;  // algbw * BusBandwidthFactor
  bool in_place = false;
  std::optional<int64_t> wrong_elements;  // "#wrong" (nccl-tests >= 2.13)
  std::optional<double> max_error;        // "error" (older nccl-tests)
  std::string location;  // "file:line:col" of the row
};

// One benchmark run: one collective over one set of ranks.
struct CollectiveRun {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  std::string tool;      // "nccl-tests 2.18.0", "nccl-tests", "memplan (host)"
  std::string location;  // "file:line:col" where the run's table starts
  int64_t ranks = 0;     // 0: not known (factor-1 collectives need none)
  // Host of each rank, in rank order, when the output lists them; empty
  // otherwise.
  std::vector<std::string> rank_hosts;
  // The global ranks the collective ran among, when the input says
  // (`memplan validate`'s "group"); empty otherwise. Ranks are numbered as
  // devices are: rank r on node r / gpus_per_node.
  std::vector<int64_t> group_devices;
  std::string device;  // "NVIDIA H100 80GB HBM3"; empty when not printed
  std::vector<CollectiveSample> samples;  // in file order

  // Distinct hosts in rank_hosts; 0 when they are not listed.
  int64_t NodeCount() const;
};

struct CollectiveMeasurements {
  std::vector<CollectiveRun> runs;
  Diagnostics diagnostics;  // recoverable input problems, counted
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_COLLECTIVE_MEASUREMENTS_H_
