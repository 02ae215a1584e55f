// Liveness over a jaxpr's schedule (analyzer/jaxpr_schedule.h): the bytes
// live at each step, the peak and what is live there, and the temporaries'
// peak that predicts XLA's temp allocation.
//   - arguments are live throughout, unless donated: then until their last
//     use; constants throughout;
//   - each value from its defining step to its last use; top-level outputs
//     from their step to the end;
//   - a call not inlined adds its callee's temporaries at its step.
// Two models of which values own memory: every equation output (the jaxpr
// as written), or XLA-like fusion (analyzer/jaxpr_fusion.h).
// Predicted device footprint, as `memory_analysis()` defines it:
// argument + output - aliased + arena_peak, where aliased are the donated
// inputs JAX can pair with an output of the same aval.
#ifndef MEMPLAN_ANALYZER_JAXPR_LIVENESS_H_
#define MEMPLAN_ANALYZER_JAXPR_LIVENESS_H_

#include <cstdint>
#include <vector>

#include "analyzer/jaxpr_schedule.h"
#include "ir/jaxpr.h"

namespace memplan::analyzer {

struct JaxprLiveBytes {
  int64_t arguments = 0;  // arguments and constants
  int64_t outputs = 0;    // top-level outputs already defined
  int64_t temps = 0;      // everything else (and opaque calls' temporaries)
  int64_t total() const { return arguments + outputs + temps; }
};

enum class JaxprMemoryModel : uint8_t {
  kEveryValue,  // each equation output owns memory from its step to its last use
  kFused,       // fusible values own none; fused results may reuse an operand's
};

struct JaxprLiveness {
  JaxprMemoryModel model = JaxprMemoryModel::kEveryValue;
  int64_t fused_values = 0;   // kFused: values that own no memory
  int64_t shared_values = 0;  // kFused: values that took an operand's memory
  int64_t argument_bytes = 0;  // every top-level input, per device
  int64_t constant_bytes = 0;  // constvars and literals passed to calls
  int64_t output_bytes = 0;    // every top-level output (one buffer each)
  int64_t donated_bytes = 0;   // donated inputs
  int64_t aliased_bytes = 0;   // donated inputs paired with an output
  // Per step of the schedule (one virtual step when it has none).
  std::vector<JaxprLiveBytes> timeline;
  // The first step where the most bytes are live, and what is live there:
  // buffer indices, largest first, then by defining step and index.
  int32_t peak_step = 0;
  JaxprLiveBytes peak;
  std::vector<int32_t> live_at_peak;
  // The most bytes of temporaries live at one step, and the first such step.
  int64_t temp_peak_bytes = 0;
  int32_t temp_peak_step = 0;

  // The most bytes of temporaries that do not fit in the memory of outputs
  // not yet written, and the first step where that happens. XLA's buffer
  // assignment places temporaries in output allocations before the
  // outputs are defined (live-out allocations hold several values), so
  // its temp allocation is nearer this than temp_peak_bytes. Assumes every
  // temporary fits whatever output memory is free (no sizes checked).
  int64_t arena_peak_bytes = 0;
  int32_t arena_peak_step = 0;

  // argument + output - aliased + arena_peak (what memory_analysis() calls
  // the device footprint, predicted).
  int64_t PredictedFootprint() const {
    return argument_bytes + constant_bytes + output_bytes - aliased_bytes + arena_peak_bytes;
  }
};

JaxprLiveness ComputeJaxprLiveness(const ir::JaxprModule& module, const JaxprSchedule& schedule,
                                   JaxprMemoryModel model = JaxprMemoryModel::kEveryValue);

// Which donated inputs JAX pairs with outputs: each donated input, in order,
// takes the first output not yet taken with the same dtype and dimensions.
// Per top-level input: the output index, or -1.
std::vector<int32_t> PairDonatedInputs(const ir::JaxprModule& module, const JaxprSchedule& schedule);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_JAXPR_LIVENESS_H_
