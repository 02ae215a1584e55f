// Internal to predictor: XLA's buffer assigner re-run on the per-device
// program (memory_model.cc), for programs read with XLA's own buffer
// assignment of the single-device compile.
//
// XLA assigns the partitioned program anew: its output allocations take
// whatever per-device buffers fit them, not the single-device values that
// shared them. moe_train_step dp2_tp4 (scripts/gen_sharding_corpus.py
// moe_train_step --candidates dp2_tp4 --dumps DIR): allocation 0 holds
// copy_bitcast_fusion.6, add_subtract_fusion and the w_in gradient with its
// update; allocation 1 dot.2 (f32[4,256,8,80]), ynn_fusion.4, ynn_fusion.3
// and the w_out update; the 2.5 MiB dispatch dot and its copy, temps in the
// single-device program, sit in the two 4 MiB weight-gradient allocations
// until the gradients are written. Keeping each value's single-device class
// put them in the arena: footprint +11.0% over XLA's.
//
// Starting point: the assignment XLA stated for the single-device compile
// (which allocations are outputs, which values are live out, which update
// in place). A jaxpr's Program has no such assignment (ir/jaxpr_program.h
// synthesises one allocation per value), so the memory model applies this
// only to programs whose allocations XLA stated.
#ifndef MEMPLAN_PREDICTOR_OUTPUT_REASSIGNMENT_H_
#define MEMPLAN_PREDICTOR_OUTPUT_REASSIGNMENT_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "ir/program.h"
#include "predictor/all_reduce_combiner.h"
#include "predictor/packing_memo.h"
#include "predictor/predict.h"
#include "predictor/propagation.h"

namespace memplan::predictor {

// XLA's buffer assigner (xla/service/buffer_assignment.cc,
// AssignSingleHloBuffer, MaybeAssignBuffer) assigns the live-out buffers
// first; each other buffer, largest first (among equals by
// TempBuffer::order, InstructionPostOrder, then earlier defined), goes
// into the smallest allocation already made that holds it
// and that no buffer assigned there is live in over its steps (closed
// intervals: touching ones interfere). Only what fits no such allocation is
// left to the heap simulator (the temp arena).
//
// `cap[a]`: allocation a's bytes (< 0: not an output allocation);
// `live_out[a]`: the live-out buffers held there (a donated parameter's
// allocation: the parameter, to its last reader, and its update);
// `in_arguments[a]` (empty: none): allocation a is a donated parameter's,
// whose bytes the arguments count. Moves every buffer of `temp` that finds
// room out of `temp`: into `resident`, unless its allocation is in_arguments; an in-place group (a buffer and
// those whose share_with leads to it) moves whole, as one buffer of its
// largest size over the union of its steps, or stays whole in `temp`,
// whose share_with indices are renumbered.
void ReassignOutputAllocations(const std::vector<int64_t>& cap,
                               const std::vector<std::vector<TempBuffer>>& live_out,
                               const std::vector<uint8_t>& in_arguments,
                               std::vector<TempBuffer>& temp, std::vector<TempBuffer>& resident);

// XLA's assigner breaks ties among buffers of one size by the earliest
// position of their values' instructions in the module's post order
// (computations callees first, each computation's instructions depth-first
// over operands from its user-less instructions), not by schedule step
// (xla/service/buffer_assignment.cc, the sort of AssignBuffersForComputations).
// XLA's CPU schedule converts transformer_fwd's weights early, but the
// post order puts a convert next to its reader: dp2_tp4's wrapped_convert.7
// (786,432 B, steps 30-70, post-order position 69) is placed after
// ynn_fusion.11, broadcast_select_fusion and convert_convert_fusion.3 (the
// same size, 34-39), which take the logits' output allocation 2 first; it
// goes to the arena. By start step it took allocation 2: footprint -4.9%.
//
// Per instruction id: its position (0-based); -1 for instructions of no
// computation. Written into `position` (resized to the instruction count).
void InstructionPostOrder(const ir::Module& module, std::vector<int64_t>& position);

// Under data parallelism the single-device schedule runs a weight's update
// right after its gradient, but the partitioned program must all-reduce the
// gradient first, and XLA's combiner waits for every gradient: its CPU
// schedule issues the readers of a combined all-reduce (two or more
// members) the step after it (mlp, moe and convnet dp8 dumps: each SGD
// update after all-reduce). Without this, each partial gradient, held to
// the all-reduce, overlaps its update in their output allocation, and the
// re-run assigner moves it to the arena (dp8 footprints about +33%).
//
// Per value (index into the predictor's value table): the step it starts
// at, its own start unless its instruction reads a combined all-reduce's
// result issued at or after it; then that all-reduce's step + 1.
// `value_of` is per instruction id (-1: no value); `starts` each value's
// single-device start (Predictor::value_starts_). Written into `out`
// (resized to its size).
// XLA assigns buffers, not values: alias analysis joins a while loop's
// init, body parameter, body result and loop result (the "(phi)" values of
// its dump) into one HloBuffer, which AssignSingleHloBuffer places whole,
// live over the union of its values' ranges (samples/sharded/
// scan_layers_train_step's allocation 0: wrapped_broadcast.2 16-21,
// arg_tuple.3{4} 21-25, arg_tuple.1{4} 25-44, the body's
// bitcast_dynamic-update-slice_fusion 44-49, while.16{4} 49-97, one
// f32[6,128,2048] at offset 0; the w2 gradient's loop buffer, 11-103, sits
// whole at the arena's offset 0). Re-run value by value, the loop state
// scattered over allocations and the arena.
//
// Per value (index into `values`): the value whose loop buffer it belongs
// to (the group's first by start), or itself. A value joins the one before
// it in its allocation when both sit at the same offset, its range starts
// where that one's ends, and either is a phi. Written into `leader`.
void LoopBufferLeaders(const std::vector<Predictor::ValueInfo>& values,
                       const std::vector<std::vector<int32_t>>& allocation_values,
                       std::vector<int32_t>& leader);

void StartsAfterCombinedAllReduces(const CombinedGroups& combined,
                                   const std::vector<PredictedCollective>& collectives,
                                   const std::vector<int32_t>& value_of,
                                   const std::vector<ir::ScheduleStep>& starts,
                                   std::vector<ir::ScheduleStep>& out);

// A value updated in place is read by the instruction that overwrites it:
// XLA keeps it live until that instruction runs. When the per-device
// schedule starts the writer later (after a combined all-reduce, above),
// the value it overwrites stays live until then, and its memory is not
// free in between. samples/sharded/scan_layers_train_step dp8 (XLA's dump
// of the sharded compile): the backward loop body's w2-gradient
// accumulator wide.wide.param.5{5} (f32[6,2048,512], 25 MiB) is live
// 63-100, up to its dynamic-update-slice (bitcast_dynamic-update-slice_
// fusion.3 at 100), which waits for the gradients' all-reduce at 92; on
// one device the two meet at step 89. Freed at 89 instead, its 25 MiB took
// the body's 4 MiB gradient and both all-reduce results (temp -20.8%).
//
// For each in-place group (`in_place`: (value, the group's first value)
// pairs, as Predictor::in_place_values_), members by single-device start:
// a member whose single-device range reaches the next one's start is held
// in `end` to the next one's PerDeviceStart (from `begin`, the
// StartsAfterCombinedAllReduces steps); the later members first, so each
// holds to its successor's final start. Values without a live range
// (end[v] < values[v].start) neither hold nor are held.
void HoldInPlaceOperandsToTheirWriters(const std::vector<Predictor::ValueInfo>& values,
                                       const std::vector<std::pair<int32_t, int32_t>>& in_place,
                                       const std::vector<ir::ScheduleStep>& begin,
                                       std::vector<ir::ScheduleStep>& end);

// A donated entry parameter lives in its allocation until its last reader
// has run; where the per-device schedule starts a reader later (an Adam
// moment's update waits for the gradients' combined all-reduce), the
// parameter holds its allocation until then, and nothing else can use it
// in between. samples/sharded/transformer_train_adam dp8: opt_state's
// mu/nu for w_fc1 are read last at step 80-81 on one device, by updates
// the per-device schedule issues after the all-reduce at 115; freed at 81,
// their 4 MiB allocations took dot.20 and two all-reduce results.
//
// `readers`: (parameter value, reader value) pairs (Predictor::
// donated_readers_); each parameter's `end` is raised to its readers'
// PerDeviceStart (from `begin`, the StartsAfterCombinedAllReduces steps).
// Readers without a live range count at their single-device start.
void HoldDonatedParametersToTheirReaders(const std::vector<Predictor::ValueInfo>& values,
                                         const std::vector<std::pair<int32_t, int32_t>>& readers,
                                         const std::vector<ir::ScheduleStep>& begin,
                                         std::vector<ir::ScheduleStep>& end);

// The step the memory model starts a value at when re-assigning: its
// instruction's per-device step `begin` (StartsAfterCombinedAllReduces),
// but not after its own `end` (a partial sum ending at its all-reduce) nor
// before its single-device `start`.
inline ir::ScheduleStep PerDeviceStart(ir::ScheduleStep begin, ir::ScheduleStep end,
                                       ir::ScheduleStep start) {
  return std::min(begin, std::max(end, start));
}

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_OUTPUT_REASSIGNMENT_H_
