// What XLA's fusion does to a jaxpr's memory, modelled on its schedule
// (analyzer/jaxpr_schedule.h), for the "fused" liveness model:
//   - a value made by a cheap fusible equation (elementwise arithmetic,
//     broadcasts, reshapes, transposes, converts, selects, slices, ...) and
//     read only by fusible equations or reductions is fused into its
//     readers and owns no memory; its readers read its operands instead,
//     which therefore live until the last of them. A transcendental read
//     more than once is not duplicated, so it owns memory;
//   - what a matmul, convolution, gather's index, loop, call kept opaque,
//     or unknown primitive reads owns memory, as do outputs, loop results
//     and reductions' results;
//   - a fused equation's result may take over the memory of an operand of
//     the same size that dies there (XLA's in-place elementwise fusion),
//     unless that operand is an argument, constant or output.
// A model of XLA's choices, not a replay of them: XLA's fusion heuristics,
// multi-output fusions and scheduler are not reproduced.
#ifndef MEMPLAN_ANALYZER_JAXPR_FUSION_H_
#define MEMPLAN_ANALYZER_JAXPR_FUSION_H_

#include <cstdint>
#include <vector>

#include "analyzer/jaxpr_schedule.h"
#include "ir/jaxpr.h"

namespace memplan::analyzer {

struct JaxprFusion {
  std::vector<bool> fused;          // per buffer: owns no memory
  std::vector<int32_t> last_use;    // per buffer, extended by fused readers
  std::vector<int32_t> shared_with;  // per buffer: the operand whose memory it takes, or -1
  int64_t fused_buffers = 0;
  int64_t shared_buffers = 0;
};

JaxprFusion FuseJaxpr(const ir::JaxprModule& module, const JaxprSchedule& schedule);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_JAXPR_FUSION_H_
