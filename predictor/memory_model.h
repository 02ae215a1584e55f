// Internal to predictor: per-device bytes from a propagation. See
// predict.h for the model; memory_model.cc for each step.
#ifndef MEMPLAN_PREDICTOR_MEMORY_MODEL_H_
#define MEMPLAN_PREDICTOR_MEMORY_MODEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "analyzer/interval_packing.h"
#include "predictor/all_reduce_combiner.h"
#include "predictor/packing_memo.h"
#include "predictor/predict.h"
#include "predictor/propagation.h"

namespace memplan::predictor {
// Working arrays a MemoryModel::Run borrows from a process-wide pool and
// gives back at its end (memory_model.cc).
struct ModelScratch;
// Frees the pool's sets no Run holds now; returns how many. The next Run
// then starts from empty arrays (tests compare it with reused ones).
size_t ReleaseIdleModelScratch();

// Bytes one device holds of the entry root's leaves under `outputs` (one
// per leaf), plus the root tuple's table when the root is a tuple.
int64_t OutputShardBytes(const ir::Module& module, const std::vector<AxesSharding>& outputs,
                         const MeshSizes& mesh);

// The most bytes a list of temp buffers and a list of resident ones hold
// live at one step (a buffer lives over [start, end]; each counts over its
// own steps, one that reuses another's memory in place too: HloLiveRange's
// rule, the sizes of the values live at a step added), and the first step
// with them (0 with no bytes): the memory model's live peak above the
// arguments.
struct BuffersPeak {
  int64_t bytes = 0;
  ir::ScheduleStep step = 0;
};
// Over any steps: per-step sums in `per_step` when the steps span no more
// than a few times the buffer count, else `deltas` sorted.
BuffersPeak LivePeakOfBuffers(const std::vector<TempBuffer>& temp,
                              const std::vector<TempBuffer>& resident,
                              std::vector<int64_t>& per_step,
                              std::vector<std::pair<ir::ScheduleStep, int64_t>>& deltas);
// The same in one pass over the buffers, summed into `per_step` over steps
// [0, span); nullopt when a buffer's start or end + 1 falls outside them.
std::optional<BuffersPeak> LivePeakInSteps(const std::vector<TempBuffer>& temp,
                                           const std::vector<TempBuffer>& resident, size_t span,
                                           std::vector<int64_t>& per_step);

class MemoryModel {
 public:
  MemoryModel(const Predictor& predictor, const MeshSizes& mesh, const Propagation& prop,
              Prediction& out)
      : MemoryModel(predictor, mesh, prop.leaves, prop.collectives, out) {}
  // The same from a propagation's leaves and collectives held apart.
  MemoryModel(const Predictor& predictor, const MeshSizes& mesh,
              const std::vector<std::vector<AxesSharding>>& leaves,
              const std::vector<PredictedCollective>& collectives, Prediction& out)
      : p_(predictor), mesh_(mesh), leaves_(leaves), collectives_(collectives), out_(out) {}

  // Fills out.devices, out.max_device_footprint_bytes and out.collectives.
  // With `memo`, the temp arena is taken from it when it can answer
  // (predictor/packing_memo.h), and packed and kept there otherwise.
  void Run(PackingMemo* memo = nullptr);
  // Whether Run took the temp arena from the memo.
  bool packing_scaled() const { return packing_scaled_; }

 private:
  // A buffer of the per-device program: a scaled value or a collective's.
  using Buffer = TempBuffer;
  // One combined all-reduce: its members (indices into prop.collectives).
  using Combined = CombinedAllReduce;

  int64_t Scaled(const Predictor::ValueInfo& v) const;
  // ShardBytes(shape, sharding, mesh_), the same bytes, with each axis
  // set's ways looked up in ways_ (filled by BuildWaysTable for meshes of
  // at most kWaysTableAxes axes; ShardBytes itself otherwise).
  int64_t ShardBytesFast(const ir::Shape& shape, const AxesSharding& sharding) const;
  void BuildWaysTable();
  // Every value's Scaled bytes into value_bytes_, from the structure's flat
  // table (built and shared through the memo on first use); left empty
  // without a memo or a ways table.
  void ComputeValueBytes();
  std::shared_ptr<const ValueBytesTable> BuildValueBytesTable() const;
  int64_t ValueBytes(size_t v) const;
  static constexpr size_t kWaysTableAxes = 8;
  ir::ScheduleStep StepOf(ir::InstructionId id) const;
  // TempBuffer::order of a collective when re-assigning (output_
  // reassignment.h, InstructionPostOrder): right before its reader's (XLA's
  // partitioned program computes it as the reader's operand); a value's is
  // Predictor::value_order_. The largest value when unknown (after the
  // others of one size). 0 when not re-assigning.
  int64_t CollectiveOrder(ir::InstructionId reader) const;
  int64_t ArgumentBytes() const;
  int64_t OutputBytes() const;
  int64_t AliasBytes() const;
  // Groups the all-reduces as XLA's combiner would
  // (predictor/all_reduce_combiner.h): the memo's groups when it kept some
  // formed from these collectives (bytes aside) without reading a byte
  // count; else formed here, and kept in the memo when they read none.
  std::shared_ptr<const CombinedGroups> CombineAllReduces() const;
  // Per allocation index: the bytes of its largest live-out value under the
  // candidate's shardings; -1 when it holds none.
  // Written into `cap` (resized to the allocation count).
  void OutputCapacities(std::vector<int64_t>& cap) const;
  // Temp buffers: temp values, values too large for their output
  // allocation now, collective buffers (partial sums kept until their
  // combined all-reduce).
  void CollectTempBuffers(const CombinedGroups& combined);
  // Whether value `v` is packed in the temp arena (a temp value, or an
  // output value larger than its allocation's `cap` now).
  bool InArena(int32_t v, const std::vector<int64_t>& cap) const;
  // The all-reduces' buffers into temp_ (partial sums held in no value,
  // results); sets `end` (resized to the value count) to every value's end
  // step, partial sums' moved to their all-reduce.
  void AllReduceBuffers(const CombinedGroups& combined, const std::vector<int64_t>& cap,
                        std::vector<ir::ScheduleStep>& end);
  // The results of every collective but all-reduces into temp_.
  void OtherCollectiveBuffers();
  // A donated parameter's copy that the partitioned program removes
  // (predictor/donated_copies.h) gets no live range in `end`; re-assigning,
  // the parameter is held to the copy's readers' per-device steps.
  void DropRemovedDonatedCopies(const CombinedGroups& combined, std::vector<ir::ScheduleStep>& end);
  // Re-assigning: marks in `stays` (per value) the output values that
  // XLA's assignment chains into a live-out value's allocation, each
  // ending where the next begins, with per-device `end` not later.
  void ChainedIntoLiveOut(const std::vector<ir::ScheduleStep>& end,
                          std::vector<uint8_t>& stays) const;
  // A loop buffer (output_reassignment.h, LoopBufferLeaders) of which a
  // value is live out or `stays` stays whole: sets `stays` for all its
  // values.
  void KeepLoopBuffersWhole(std::vector<uint8_t>& stays) const;
  // Values into temp_ (temp values, output values too large for their
  // allocation) or resident_, live to `end`, with their in-place groups.
  void ValueBuffers(const std::vector<int64_t>& cap, const std::vector<ir::ScheduleStep>& end);
  // The temp arena's best-fit size (analyzer::BestFitHeapSize over
  // TempIntervals(); the reference path when options ask for it).
  int64_t PackTemp();
  // The intervals, in Run's borrowed scratch (valid until its next call).
  const std::vector<analyzer::PackingInterval>& TempIntervals() const;
  // The same size from analyzer's event-driven heap simulator (slower).
  int64_t PackTempReference() const;
  int64_t LivePeak(ir::ScheduleStep* step) const;
  // The buffers LivePeak counted at `step` (peak_bytes, arguments
  // included), the largest listed and the rest summed.
  std::shared_ptr<const PeakContents> LiveAtPeak(ir::ScheduleStep step, int64_t peak_bytes) const;
  // `b` (of temp_ or resident_) with its origin read out. Precondition:
  // b.origin.kind is not kNone.
  PeakBuffer PeakBufferOf(const TempBuffer& b, bool in_temp_arena) const;
  void SummarizeCollectives(const std::vector<Combined>& combined);

  const Predictor& p_;
  const MeshSizes& mesh_;
  const std::vector<std::vector<AxesSharding>>& leaves_;  // Propagation::leaves
  const std::vector<PredictedCollective>& collectives_;
  Prediction& out_;
  std::vector<Buffer> temp_;
  std::vector<Buffer> resident_;  // output-allocation values that stay there
  int64_t argument_bytes_ = 0;
  PackingMemo* memo_ = nullptr;
  std::vector<int64_t> ways_;  // by axis mask: product of those axes' sizes
  std::vector<int64_t> value_bytes_;  // by value index: Scaled (when filled)
  bool packing_scaled_ = false;
  ModelScratch* scratch_ = nullptr;  // borrowed for the length of Run
};

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_MEMORY_MODEL_H_
