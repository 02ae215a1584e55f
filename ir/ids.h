// Strong id types: a ValueId cannot be passed where an AllocationId is meant.
// Ids double as deterministic sort tie-breakers.
#ifndef MEMPLAN_IR_IDS_H_
#define MEMPLAN_IR_IDS_H_

#include <compare>
#include <cstdint>

namespace memplan::ir {

template <typename Tag>
class StrongId {
 public:
  constexpr StrongId() = default;
  constexpr explicit StrongId(int64_t value) : value_(value) {}

  constexpr int64_t value() const { return value_; }
  constexpr bool valid() const { return value_ >= 0; }

  friend constexpr auto operator<=>(StrongId, StrongId) = default;

  template <typename H>
  friend H AbslHashValue(H h, StrongId id) {
    return H::combine(std::move(h), id.value_);
  }

 private:
  int64_t value_ = -1;
};

// The id XLA gives a logical value (HloValue::id), e.g. 661 in "<661 p5.32.0 @0>".
using ValueId = StrongId<struct ValueIdTag>;
// The index of a BufferAllocation, e.g. 53 in "allocation 53: ...".
using AllocationId = StrongId<struct AllocationIdTag>;
// An instruction of a Module: its index in Module::instructions().
using InstructionId = StrongId<struct InstructionIdTag>;
// A computation of a Module: its index in Module::computations().
using ComputationId = StrongId<struct ComputationIdTag>;
// Position in the flattened schedule (HloLiveRange's logical time).
using ScheduleStep = int64_t;

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_IDS_H_
