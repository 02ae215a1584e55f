// Internal to predictor: XLA's copy removal for donated parameters, in the
// partitioned program.
//
// On one device XLA copies a donated entry parameter whose in-place update
// does not depend on every reader of the parameter (ir/jaxpr_copies.h: the
// backward pass reads a weight for an activation gradient that the
// weight's update does not need). Its copy removal runs before scheduling,
// in dependency order (CopyInsertion's RemoveUnnecessaryCopies with a
// DependencyHloOrdering). The partitioned program is copy-inserted anew:
// there the update reads the gradients' combined all-reduce, which reads
// every member's partial gradient, so every reader those depend on comes
// before the update too, and the copy goes. samples/sharded/
// transformer_train_adam (XLA's sharded dumps, scripts/
// gen_sharding_corpus.py --dumps): the one-device copies of w_fc1, w_fc2
// and w_o are gone under dp8, dp4_tp2, dp2_tp4 and fsdp4_tp2; tp8 keeps
// all three (no gradient all-reduce); fsdp8 keeps w_fc1's and w_fc2's
// (their gradients are not all-reduced) and drops w_o's (its gradient is
// combined with w_q, w_k and w_v's).
#ifndef MEMPLAN_PREDICTOR_DONATED_COPIES_H_
#define MEMPLAN_PREDICTOR_DONATED_COPIES_H_

#include <cstdint>
#include <vector>

#include "ir/module.h"
#include "predictor/all_reduce_combiner.h"
#include "predictor/predict.h"
#include "predictor/propagation.h"

namespace memplan::predictor {

// A same-shape, same-layout copy of a donated entry parameter in the entry
// computation.
struct DonatedCopy {
  int32_t copy_value = -1;       // the copy's value (index into the value table)
  int32_t parameter_value = -1;  // the parameter's
  ir::InstructionId update;      // the instruction of the parameter's live-out update
  // The copy's readers that the update does not depend on, on one device.
  std::vector<ir::InstructionId> outside_readers;
  // The values of all the copy's readers (those with a value): the
  // parameter is held to them once they read it directly.
  std::vector<int32_t> reader_values;
};

// The program's donated copies: per entry copy of a parameter whose value is
// a donated kParameter value, the live-out value of another instruction in
// the parameter's allocation as its update. `value_of` per instruction id
// (-1: none); `allocation_values` per allocation index. Copies without an
// outside reader or an update are left out.
std::vector<DonatedCopy> FindDonatedCopies(const ir::Module& module,
                                           const std::vector<Predictor::ValueInfo>& values,
                                           const std::vector<int32_t>& value_of,
                                           const std::vector<std::vector<int32_t>>& allocation_values);

// Per copy of `copies`: 1 when the partitioned program has no copy, every
// outside reader being an ancestor of the update once each combined
// all-reduce of two or more members (`combined`, over `collectives`) reads
// all its members' operands: a member's source, or the operands of its
// `at` when its source is an intermediate of that fusion. Written into
// `removed` (resized to the copy count).
void RemovedPerDevice(const ir::Module& module, const std::vector<DonatedCopy>& copies,
                      const CombinedGroups& combined,
                      const std::vector<PredictedCollective>& collectives,
                      std::vector<uint8_t>& removed);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_DONATED_COPIES_H_
