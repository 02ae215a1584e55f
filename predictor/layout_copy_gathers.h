// Internal to predictor: where XLA's partitioned program all-gathers a value
// that the single-device program only copies to another layout before its
// reader (memory_model.cc).
//
// The single-device program of moe_train_step transposes its dispatched
// tokens (dot.2, f32[8,512,640]) into copy_bitcast_fusion.5 for the
// weight-gradient dot, and the tokens' gradient (dot.6) into two copies,
// copy_bitcast_fusion.2 and copy_bitcast_fusion, for two dots. Under fsdp8
// the copies come out split and their readers need them whole. XLA's dump
// (scripts/gen_sharding_corpus.py moe_train_step --candidates fsdp8
// --dumps DIR) gathers the copied value once, right after computing it
// (all-gather.2 of dot.6's result, f32[8,8,80,512], live from step 69 to
// 72), and makes each copy from the gathered value, full size
// (copy_bitcast_fusion.2 at 71, copy_bitcast_fusion at 72, each live to its
// dot); the forward's copy_bitcast_fusion.7 (48-80) comes from all-gather.1
// (47-48). At step 72 four 10 MiB buffers are live, and XLA's temp arena
// (47,227,160 bytes) is that. memplan gathered each split copy on its own
// and held no gathered value: moe fsdp8 came out 9.1% under XLA's
// footprint. convnet_train_step tp8 does the same for the activation its
// weight-gradient convolution reads transposed: all-gather of the forward
// activation (25-27), then transpose_copy_fusion.3, full size, live from 27
// to 74.
#ifndef MEMPLAN_PREDICTOR_LAYOUT_COPY_GATHERS_H_
#define MEMPLAN_PREDICTOR_LAYOUT_COPY_GATHERS_H_

#include <cstdint>
#include <vector>

#include "ir/module.h"
#include "predictor/packing_memo.h"
#include "predictor/predict.h"
#include "predictor/propagation.h"

namespace memplan::predictor {

// Per instruction id: 1 when the instruction is a layout copy (a copy or
// transpose, or a fusion of only those, bitcasts and reshapes) of one
// operand that is not an entry parameter and has the copy's byte size;
// else 0. Computed once per program (the memory model asks per all-gather
// of every candidate).
std::vector<uint8_t> LayoutCopiesOfComputedValues(const ir::Module& module);

struct LayoutCopyGathers {
  // One buffer per gathered value: its per-device gathered bytes, live from
  // the value's step (a collective is issued right after its operand is
  // computed) to the step of its last layout copy.
  std::vector<TempBuffer> gathered;
  // The copies' values (indices into the value table): the partitioned
  // program makes no split copy; each copy is made whole from the gathered
  // value, and the all-gather's result buffer (its result bytes, from the
  // copy's step to its reader) stands for it.
  std::vector<int32_t> made_whole;
};

// The all-gathers of `collectives` whose source is a layout copy (a copy or
// transpose, or a fusion of only those, bitcasts and reshapes) of a value
// of the same byte size that its operand instruction defines (not an entry
// parameter: those are gathered at their readers; not a tuple element read
// through get-tuple-element), and which every reader of the copy reads
// through one of them. `layout_copies` is LayoutCopiesOfComputedValues of
// the module; `step_of` and `value_of` are per instruction id (-1:
// unscheduled, no value); `values` is the predictor's value table.
LayoutCopyGathers FindLayoutCopyGathers(const ir::Module& module,
                                        const std::vector<uint8_t>& layout_copies,
                                        const std::vector<ir::ScheduleStep>& step_of,
                                        const std::vector<int32_t>& value_of,
                                        const std::vector<Predictor::ValueInfo>& values,
                                        const std::vector<PredictedCollective>& collectives);

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_LAYOUT_COPY_GATHERS_H_
