#include "predictor/memory_model.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

#include "analyzer/value_order.h"
#include "predictor/donated_copies.h"
#include "predictor/layout_copy_gathers.h"
#include "predictor/memory_model_scratch.h"
#include "predictor/output_reassignment.h"

namespace memplan::predictor {

using Info = Predictor::ValueInfo;


namespace {

// The sets no Run holds now.
struct ScratchPool {
  std::mutex mu;
  std::vector<std::unique_ptr<ModelScratch>> idle;
};

ScratchPool& Pool() {
  static ScratchPool pool;
  return pool;
}

// One set for the life of a Run: an idle one (the last given back), or a
// new one.
class ScratchLease {
 public:
  ScratchLease() {
    ScratchPool& pool = Pool();
    std::lock_guard<std::mutex> lock(pool.mu);
    if (!pool.idle.empty()) {
      scratch_ = std::move(pool.idle.back());
      pool.idle.pop_back();
    }
    if (scratch_ == nullptr) scratch_ = std::make_unique<ModelScratch>();
  }
  ~ScratchLease() {
    ScratchPool& pool = Pool();
    std::lock_guard<std::mutex> lock(pool.mu);
    pool.idle.push_back(std::move(scratch_));
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  ModelScratch& get() { return *scratch_; }

 private:
  std::unique_ptr<ModelScratch> scratch_;
};

}  // namespace

size_t ReleaseIdleModelScratch() {
  ScratchPool& pool = Pool();
  std::vector<std::unique_ptr<ModelScratch>> idle;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    idle.swap(pool.idle);
  }
  return idle.size();
}

int64_t MemoryModel::CollectiveOrder(ir::InstructionId reader) const {
  const std::vector<int64_t>& pos = p_.post_order_;
  if (pos.empty()) return 0;
  if (!reader.valid() || reader.value() >= static_cast<int64_t>(pos.size()) ||
      pos[static_cast<size_t>(reader.value())] < 0) {
    return std::numeric_limits<int64_t>::max();
  }
  return 2 * pos[static_cast<size_t>(reader.value())];
}

ir::ScheduleStep MemoryModel::StepOf(ir::InstructionId id) const {
  if (!id.valid() || id.value() >= static_cast<int64_t>(p_.step_of_.size())) return -1;
  return p_.step_of_[static_cast<size_t>(id.value())];
}

int64_t MemoryModel::ArgumentBytes() const {
  const std::vector<const ir::Shape*>& shapes = p_.parameter_shapes_;
  const auto& shardings = out_.argument_shardings;
  int64_t bytes = 0, last = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (shapes[i] == nullptr) continue;
    // A parameter shaped and sharded as the one before it (every layer's
    // weight) has its bytes.
    if (!p_.parameter_same_shape_[i] || !(shardings[i] == shardings[i - 1])) {
      last = ShardBytesFast(*shapes[i], shardings[i]);
    }
    bytes += last;
  }
  return bytes;
}

int64_t OutputShardBytes(const ir::Module& module, const std::vector<AxesSharding>& outputs,
                         const MeshSizes& mesh) {
  const ir::Instruction& root = module.instruction(module.entry_computation()->root);
  std::vector<const ir::Shape*> shapes;
  CollectLeafShapes(root.shape, &shapes);
  int64_t bytes = root.shape->IsTuple() ? ir::ByteSizeOf(root.shape) : 0;
  for (size_t k = 0; k < shapes.size(); ++k) bytes += ShardBytes(*shapes[k], outputs[k], mesh);
  return bytes;
}

int64_t MemoryModel::OutputBytes() const {
  return OutputShardBytes(p_.program_.module, out_.output_shardings, mesh_);
}

// Donated parameters count in argument, output and alias alike (XLA's
// memory_analysis): alias is the aliased parameters' shard bytes.
int64_t MemoryModel::AliasBytes() const {
  int64_t bytes = 0;
  for (size_t p : p_.aliased_parameters_) {
    bytes += ShardBytesFast(*p_.parameter_shapes_[p], out_.argument_shardings[p]);
  }
  return bytes;
}

std::shared_ptr<const CombinedGroups> MemoryModel::CombineAllReduces() const {
  if (memo_ != nullptr) {
    const std::shared_ptr<const KeptCombined> kept = memo_->combined();
    if (kept != nullptr && kept->FormedFrom(collectives_)) return kept->combined;
  }
  bool read_bytes = false;
  auto out = std::make_shared<CombinedGroups>();
  out->groups = predictor::CombineAllReduces(p_.program_, p_.step_of_, *p_.combiner_schedule_,
                                             collectives_,
                                             p_.options_.all_reduce_combine_threshold_bytes,
                                             &read_bytes);
  std::vector<std::vector<size_t>> members;
  members.reserve(out->groups.size());
  for (Combined& g : out->groups) members.push_back(std::move(g.members));
  out->members = SharedList(std::move(members));
  if (memo_ != nullptr && !read_bytes) memo_->KeepCombined(collectives_, out);
  return out;
}

void MemoryModel::OutputCapacities(std::vector<int64_t>& cap) const {
  cap.assign(p_.program_.allocations.size(), -1);
  for (const auto& [a, v] : p_.live_out_outputs_) {
    int64_t& c = cap[static_cast<size_t>(a)];
    c = std::max(c, ValueBytes(static_cast<size_t>(v)));
  }
}

void MemoryModel::CollectTempBuffers(const CombinedGroups& combined) {
  ModelScratch& s = *scratch_;
  std::vector<int64_t>& cap = s.cap;
  std::vector<ir::ScheduleStep>& end = s.end;
  OutputCapacities(cap);
  AllReduceBuffers(combined, cap, end);
  if (p_.reassign_outputs_) {
    StartsAfterCombinedAllReduces(combined, collectives_, p_.value_of_, p_.value_starts_, s.begin);
  } else {
    s.begin.clear();
  }
  // A split layout copy that its readers take whole is made whole from its
  // gathered value (predictor/layout_copy_gathers.h).
  const LayoutCopyGathers copies =
      FindLayoutCopyGathers(p_.program_.module, p_.layout_copies_, p_.step_of_, p_.value_of_,
                            p_.values_, collectives_);
  for (int32_t v : copies.made_whole) end[static_cast<size_t>(v)] = p_.values_[v].start - 1;
  // A value overwritten in place stays live until its writer, which the
  // per-device schedule may start later (output_reassignment.h).
  if (p_.reassign_outputs_) {
    HoldInPlaceOperandsToTheirWriters(p_.values_, p_.in_place_values_, s.begin, end);
    HoldDonatedParametersToTheirReaders(p_.values_, p_.donated_readers_, s.begin, end);
  }
  DropRemovedDonatedCopies(combined, end);
  temp_.insert(temp_.end(), copies.gathered.begin(), copies.gathered.end());
  if (p_.reassign_outputs_) {
    // Their gather has no instruction here: after the others of one size.
    for (size_t i = temp_.size() - copies.gathered.size(); i < temp_.size(); ++i) {
      temp_[i].order = std::numeric_limits<int64_t>::max();
    }
  }
  OtherCollectiveBuffers();
  ValueBuffers(cap, end);
}

void MemoryModel::DropRemovedDonatedCopies(const CombinedGroups& combined,
                                           std::vector<ir::ScheduleStep>& end) {
  const std::vector<DonatedCopy>& copies = p_.donated_copies_;
  if (copies.empty()) return;
  ModelScratch& s = *scratch_;
  RemovedPerDevice(p_.program_.module, copies, combined, collectives_, s.removed_copies);
  s.copy_readers.clear();
  for (size_t k = 0; k < copies.size(); ++k) {
    if (!s.removed_copies[k]) continue;
    const DonatedCopy& copy = copies[k];
    for (int32_t r : copy.reader_values) s.copy_readers.emplace_back(copy.parameter_value, r);
    end[static_cast<size_t>(copy.copy_value)] = p_.values_[copy.copy_value].start - 1;
  }
  // Its readers read the parameter now: it holds its allocation to them.
  if (p_.reassign_outputs_) HoldDonatedParametersToTheirReaders(p_.values_, s.copy_readers, s.begin, end);
}

void MemoryModel::ChainedIntoLiveOut(const std::vector<ir::ScheduleStep>& end,
                                     std::vector<uint8_t>& stays) const {
  const auto& values = p_.values_;
  std::set<std::pair<int32_t, ir::ScheduleStep>> anchors;  // (allocation, start)
  std::vector<size_t> order;
  for (const int32_t out : p_.output_values_) {
    const size_t v = static_cast<size_t>(out);
    const Info& info = values[v];
    if (info.allocation < 0) continue;
    if (info.live_out) {
      anchors.insert({info.allocation, info.start});
    } else if (info.end >= info.start) {
      order.push_back(v);
    }
  }
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return values[x].end > values[y].end; });
  for (size_t v : order) {
    const Info& info = values[v];
    if (end[v] > info.end || !anchors.count({info.allocation, info.end})) continue;
    stays[v] = 1;
    anchors.insert({info.allocation, info.start});
  }
}

void MemoryModel::KeepLoopBuffersWhole(std::vector<uint8_t>& stays) const {
  const auto& values = p_.values_;
  const std::vector<int32_t>& leader = p_.loop_leader_;
  for (const int32_t out : p_.output_values_) {
    const size_t v = static_cast<size_t>(out);
    if (values[v].live_out || stays[v]) stays[static_cast<size_t>(leader[v])] = 1;
  }
  // A value that leads its own loop buffer has its own mark already.
  for (const int32_t follower : p_.loop_followers_) {
    const size_t v = static_cast<size_t>(follower);
    if (stays[static_cast<size_t>(leader[v])]) stays[v] = 1;
  }
}

bool MemoryModel::InArena(int32_t v, const std::vector<int64_t>& cap) const {
  const Info& info = p_.values_[static_cast<size_t>(v)];
  if (info.cls == Info::Class::kTemp) return true;
  const int64_t c = info.allocation >= 0 ? cap[static_cast<size_t>(info.allocation)] : -1;
  return info.cls == Info::Class::kOutput && c >= 0 && ValueBytes(static_cast<size_t>(v)) > c;
}

void MemoryModel::AllReduceBuffers(const CombinedGroups& combined,
                                   const std::vector<int64_t>& cap,
                                   std::vector<ir::ScheduleStep>& end) {
  const auto& values = p_.values_;
  end.assign(p_.value_ends_.begin(), p_.value_ends_.end());
  // Partial sums wait in their buffers until their combined all-reduce,
  // those the single-device program computed into an output allocation too
  // (a weight gradient written where its SGD update goes: under fsdp it is
  // the full-size partial sum, kept until the one all-reduce of every
  // gradient; without this mlp_train_step fsdp4_tp2 came out 8.2% under
  // XLA's footprint, moe_train_step fsdp4_tp2 21.2%, convnet fsdp8 22.5%).
  auto value_of = [&](const PredictedCollective& pc) {
    return pc.source.valid() ? p_.value_of_[static_cast<size_t>(pc.source.value())] : -1;
  };
  for (size_t k = 0; k < combined.groups.size(); ++k) {
    const Combined& g = combined.groups[k];
    const std::vector<size_t>& members = combined.members[k];
    // A lone all-reduce is issued right before its first reader, which
    // reads its result from there on, as every later reader does: the
    // partial sum is freed there (XLA's CPU schedule: moe_train_step
    // dp2_tp4 all-reduces the partial f32[8,4,80,512] at step 48, between
    // the dot at 46 and its two readers at 49 and 50). A combined one waits
    // for its last member's last reader, and so does one whose partial is
    // held in an output allocation: memory freed there is not reused by the
    // arena here (XLA's buffer assigner would reuse it; freeing it early
    // only added the result to the arena sooner: the jaxpr prediction of
    // mlp_train_step tp8 +12.5% -> +16.7%).
    ir::ScheduleStep issue = g.step;
    if (members.size() == 1) {
      const PredictedCollective& pc = collectives_[members.front()];
      const int32_t v = value_of(pc);
      if (v < 0 || (InArena(v, cap) && !values[v].live_out)) {
        issue = std::min(StepOf(pc.first_at), StepOf(pc.at));
      }
    }
    for (size_t c : members) {
      const PredictedCollective& pc = collectives_[c];
      const int32_t v = value_of(pc);
      // A scatter-add over a whole accumulator keeps its value's own end:
      // its partial gets a buffer of its own (below).
      if (v >= 0 && !pc.excluded_accumulator.valid() &&
          (values[v].cls == Info::Class::kTemp || values[v].cls == Info::Class::kOutput) &&
          end[v] >= values[v].start) {
        end[v] = issue < g.step ? issue : std::max(end[v], issue);
      } else if (v < 0) {
        temp_.push_back({pc.operand_bytes, StepOf(pc.at), issue, -1, CollectiveOrder(pc.at),
                         BufferOrigin::Operand(c)});
      }
      // A scatter-add's partial over a whole accumulator is scattered into
      // zeros of its own, from the scatter to the all-reduce; the value
      // (the accumulator's buffer, updated in place) takes the sum after.
      if (pc.excluded_accumulator.valid() && StepOf(pc.source) >= 0) {
        temp_.push_back({pc.operand_bytes, std::min(StepOf(pc.source), issue), issue, -1,
                         CollectiveOrder(pc.at), BufferOrigin::Operand(c)});
      }
      temp_.push_back({pc.result_bytes, issue, std::max(issue, StepOf(pc.at)), -1,
                       CollectiveOrder(pc.first_at.valid() ? pc.first_at : pc.at),
                       BufferOrigin::Result(c)});
    }
  }
}

void MemoryModel::OtherCollectiveBuffers() {
  // Other collectives' results are live from their source's step (XLA's
  // CPU schedule issues a collective right after the instruction that
  // computes its operand: samples/sharded/transformer_fwd fsdp8 converts
  // every weight first, and all its weight all-gathers are live at once) to
  // their consumer's; a collective reading an entry parameter is issued at
  // its consumer (mlp_train_step fsdp8 gathers x twice, where it is used).
  for (size_t c = 0; c < collectives_.size(); ++c) {
    const PredictedCollective& pc = collectives_[c];
    if (pc.kind == CollectiveKind::kAllReduce) continue;
    const ir::ScheduleStep s = StepOf(pc.at);
    if (s < 0) continue;
    ir::ScheduleStep start = s;
    const int64_t source_id = pc.source.valid() ? pc.source.value() : -1;
    if (source_id >= 0 && source_id < static_cast<int64_t>(p_.non_parameter_step_.size())) {
      const ir::ScheduleStep source = p_.non_parameter_step_[static_cast<size_t>(source_id)];
      if (source >= 0 && source < s) start = source;
      // Re-assigning as XLA does, a gathered entry parameter is issued at
      // its first reader and kept to its last (XLA's mlp fsdp8 dump: one
      // all-gather of x, f32[256,512], live from step 13, the first
      // layer's dot, to 49, the weight-gradient dot, in output allocation
      // 0); without the re-run the arena alone would hold it.
      const ir::ScheduleStep first = StepOf(pc.first_at);
      if (source < 0 && p_.reassign_outputs_ && first >= 0 && first < start) start = first;
    }
    temp_.push_back({pc.result_bytes, start, s, -1, CollectiveOrder(pc.at), BufferOrigin::Result(c)});
  }
}

void MemoryModel::ValueBuffers(const std::vector<int64_t>& cap,
                               const std::vector<ir::ScheduleStep>& end) {
  const std::vector<Predictor::ValueWalk>& values = p_.value_walk_;
  temp_.reserve(temp_.size() + values.size());
  // Output allocations keep the values that still fit the allocation's
  // output; larger ones move to the temp arena.
  // Re-assigning (predictor/output_reassignment.h), only the live-out
  // values stay; the rest go to the arena, then where the assigner puts
  // them.
  std::vector<int32_t>& index = scratch_->index;
  index.assign(values.size(), -1);
  const std::vector<ir::ScheduleStep>& begin = scratch_->begin;
  const bool reassign = p_.reassign_outputs_;
  std::vector<std::vector<Buffer>>& live_out = scratch_->live_out;
  live_out.resize(reassign ? cap.size() : 0);
  for (std::vector<Buffer>& list : live_out) list.clear();
  // Values XLA's assignment chains into a live-out value's allocation,
  // each starting where the one before ends (a weight gradient its SGD
  // update overwrites: mlp's dot and multiply_subtract_fusion.7 in
  // allocation 0; a loop's carried state), stay there while the
  // per-device schedule keeps them so.
  std::vector<uint8_t>& stays = scratch_->stays;
  stays.assign(reassign ? values.size() : 0, 0);
  if (reassign) {
    ChainedIntoLiveOut(end, stays);
    KeepLoopBuffersWhole(stays);
  }
  // The per-value tables read below, as pointers loaded once (the loop's
  // pushes could otherwise alias them: every member reloaded per value).
  const int64_t* bytes = value_bytes_.empty() ? nullptr : value_bytes_.data();
  const int64_t* order = p_.value_order_.empty() ? nullptr : p_.value_order_.data();
  const ir::ScheduleStep* per_device_begin = begin.empty() ? nullptr : begin.data();
  const ir::ScheduleStep* ends = end.data();
  auto order_of = [order](size_t v) -> int64_t { return order != nullptr ? order[v] : 0; };
  for (size_t v = 0; v < values.size(); ++v) {
    const Predictor::ValueWalk& info = values[v];
    if (info.end < info.start || ends[v] < info.start) continue;
    const int64_t size = bytes != nullptr ? bytes[v] : ValueBytes(v);
    const ir::ScheduleStep start = per_device_begin == nullptr
                                       ? info.start
                                       : PerDeviceStart(per_device_begin[v], ends[v], info.start);
    if (info.cls == Info::Class::kTemp) {
      index[v] = static_cast<int32_t>(temp_.size());
      temp_.push_back({size, start, ends[v], -1, order_of(v), BufferOrigin::Value(v)});
    } else if (info.cls == Info::Class::kParameter) {
      // A donated parameter holds its allocation until its last reader;
      // its bytes are the argument's.
      if (reassign && info.donated) {
        live_out[static_cast<size_t>(info.allocation)].push_back(
            {size, start, ends[v], -1, 0, BufferOrigin::Value(v)});
      }
    } else if (info.cls == Info::Class::kOutput) {
      const int64_t c = cap[static_cast<size_t>(info.allocation)];
      if (reassign ? !info.live_out && !stays[v] : (c >= 0 && size > c)) {
        if (reassign) {
          // A loop buffer goes to the re-run whole (LoopBufferLeaders).
          int32_t& at = index[static_cast<size_t>(p_.loop_leader_[v])];
          if (at >= 0) {
            TempBuffer& b = temp_[static_cast<size_t>(at)];
            b = {std::max(b.size, size), std::min(b.start, start), std::max(b.end, ends[v]), -1,
                 std::min(b.order, order_of(v)), b.origin};
            continue;
          }
          at = static_cast<int32_t>(temp_.size());
        }
        temp_.push_back({size, start, ends[v], -1, order_of(v), BufferOrigin::Value(v)});
      } else {
        const Buffer b{size, start, ends[v], -1, 0, BufferOrigin::Value(v)};
        // In a donated parameter's allocation: the argument's bytes.
        if (!info.donated) resident_.push_back(b);
        if (reassign) live_out[static_cast<size_t>(info.allocation)].push_back(b);
      }
    }
  }
  // In-place groups, once every temp value has its index (a group's first
  // value may have a larger id than its members).
  for (const auto& [v, with] : p_.in_place_values_) {
    if (index[static_cast<size_t>(v)] >= 0) {
      temp_[static_cast<size_t>(index[static_cast<size_t>(v)])].share_with =
          index[static_cast<size_t>(with)];
    }
  }
  if (reassign) {
    // Buffers placed in a donated parameter's allocation add nothing to the
    // live peak: the argument's bytes are live throughout.
    ReassignOutputAllocations(cap, live_out, p_.donated_allocations_, temp_, resident_);
  }
}

void MemoryModel::SummarizeCollectives(const std::vector<Combined>& combined) {
  std::map<std::pair<CollectiveKind, AxisMask>, CollectiveGroup> groups;
  for (const PredictedCollective& pc : collectives_) {
    CollectiveGroup& g = groups[{pc.kind, pc.axes}];
    g.kind = pc.kind;
    g.axes = pc.axes;
    g.combined += 1;
    g.result_bytes += pc.result_bytes;
    if (pc.kind != CollectiveKind::kAllReduce) g.count += 1;
  }
  for (const Combined& c : combined) groups[{CollectiveKind::kAllReduce, c.axes}].count += 1;
  out_.collectives.clear();
  for (auto& [key, g] : groups) out_.collectives.push_back(g);
}

void MemoryModel::Run(PackingMemo* memo) {
  memo_ = memo;
  // Storage for the candidate's lists from the pool, emptied here and given
  // back at the end of Run for the next candidate.
  ScratchLease lease;
  ModelScratch& scratch = lease.get();
  scratch_ = &scratch;
  temp_.swap(scratch.temp);
  temp_.clear();
  resident_.swap(scratch.resident);
  resident_.clear();
  value_bytes_.swap(scratch.value_bytes);
  value_bytes_.clear();
  BuildWaysTable();
  argument_bytes_ = ArgumentBytes();
  DeviceMemory d;
  d.argument_bytes = argument_bytes_;
  d.output_bytes = OutputBytes();
  d.alias_bytes = AliasBytes();
  const std::shared_ptr<const CombinedGroups> combined = CombineAllReduces();
  ComputeValueBytes();
  CollectTempBuffers(*combined);
  d.temp_bytes = PackTemp();
  d.device_footprint_bytes = d.argument_bytes + d.output_bytes - d.alias_bytes + d.temp_bytes;
  d.live_peak_bytes = LivePeak(&d.live_peak_step);
  d.live_peak_instruction = analyzer::ScheduledAt(p_.program_, d.live_peak_step);
  out_.live_at_peak = LiveAtPeak(d.live_peak_step, d.live_peak_bytes);
  SummarizeCollectives(combined->groups);
  temp_.swap(scratch.temp);  // the storage back for the next candidate
  resident_.swap(scratch.resident);
  value_bytes_.swap(scratch.value_bytes);
  scratch_ = nullptr;
  out_.combined_all_reduces = combined->members;
  out_.devices.clear();
  for (int64_t id : out_.mesh.DeviceIds()) {
    d.device = id;
    out_.devices.push_back(d);
  }
  out_.max_device_footprint_bytes = d.device_footprint_bytes;
}

}  // namespace memplan::predictor
