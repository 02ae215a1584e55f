#include "predictor/memory_model.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "analyzer/heap_simulator.h"
#include "analyzer/interval_packing.h"
#include "predictor/donated_copies.h"
#include "predictor/layout_copy_gathers.h"
#include "predictor/output_reassignment.h"

namespace memplan::predictor {

using Info = Predictor::ValueInfo;

// The temp buffer list's storage, the temp packing's and LivePeak's
// working arrays, kept between candidates: ranking models one candidate
// after another, and with memplan's fixed mmap threshold
// (ir/malloc_settings.h) fresh arrays would be fresh mappings faulted in
// every time. Each is rewritten (or cleared) before it is read. A Run
// borrows one set from a process-wide pool and gives it back at its end,
// so a thread started for one ranking finds the arrays an earlier
// ranking's thread grew (the pool holds as many sets as Runs ever ran at
// once).
struct ModelScratch {
  std::vector<TempBuffer> temp;  // a MemoryModel's temp_ between its Runs
  std::vector<TempBuffer> resident;     // its resident_ between its Runs
  std::vector<int64_t> value_bytes;     // its value_bytes_ between its Runs
  std::vector<int64_t> cap;             // CollectTempBuffers' output capacities
  std::vector<ir::ScheduleStep> end;    // CollectTempBuffers' value end steps
  std::vector<int32_t> index;           // ValueBuffers' temp index per value
  std::vector<ir::ScheduleStep> begin;  // value start steps (reassigning)
  std::vector<std::vector<TempBuffer>> live_out;  // per allocation (reassigning)
  std::vector<uint8_t> stays;  // per value: kept in its allocation (reassigning)
  std::vector<uint8_t> removed_copies;  // per donated copy: gone per device
  std::vector<std::pair<int32_t, int32_t>> copy_readers;  // (parameter, reader) of removed copies
  std::vector<uint32_t> events;
  std::vector<uint32_t> count;
  std::vector<int32_t> slot;
  std::vector<int32_t> interval_of;
  std::vector<analyzer::PackingInterval> intervals;
  analyzer::PackingScratch packing;
  std::vector<std::pair<ir::ScheduleStep, int64_t>> deltas;  // LivePeak's
  std::vector<int64_t> per_step;                             // LivePeak's
};

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

int64_t MemoryModel::ValueOrder(size_t v) const {
  return p_.value_order_.empty() ? 0 : p_.value_order_[v];
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
      if (v >= 0 && (values[v].cls == Info::Class::kTemp || values[v].cls == Info::Class::kOutput) &&
          end[v] >= values[v].start) {
        end[v] = issue < g.step ? issue : std::max(end[v], issue);
      } else if (v < 0) {
        temp_.push_back({pc.operand_bytes, StepOf(pc.at), issue, -1, CollectiveOrder(pc.at)});
      }
      temp_.push_back({pc.result_bytes, issue, std::max(issue, StepOf(pc.at)), -1,
                       CollectiveOrder(pc.first_at.valid() ? pc.first_at : pc.at)});
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
  for (const PredictedCollective& pc : collectives_) {
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
    temp_.push_back({pc.result_bytes, start, s, -1, CollectiveOrder(pc.at)});
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
  for (size_t v = 0; v < values.size(); ++v) {
    const Predictor::ValueWalk& info = values[v];
    if (info.end < info.start || ends[v] < info.start) continue;
    const int64_t size = bytes != nullptr ? bytes[v] : ValueBytes(v);
    const ir::ScheduleStep start = per_device_begin == nullptr
                                       ? info.start
                                       : PerDeviceStart(per_device_begin[v], ends[v], info.start);
    if (info.cls == Info::Class::kTemp) {
      index[v] = static_cast<int32_t>(temp_.size());
      temp_.push_back({size, start, ends[v], -1, order != nullptr ? order[v] : 0});
    } else if (info.cls == Info::Class::kParameter) {
      // A donated parameter holds its allocation until its last reader;
      // its bytes are the argument's.
      if (reassign && info.donated) {
        live_out[static_cast<size_t>(info.allocation)].push_back({size, start, end[v], -1});
      }
    } else if (info.cls == Info::Class::kOutput) {
      const int64_t c = cap[static_cast<size_t>(info.allocation)];
      if (reassign ? !info.live_out && !stays[v] : (c >= 0 && size > c)) {
        if (reassign) {
          // A loop buffer goes to the re-run whole (LoopBufferLeaders).
          int32_t& at = index[static_cast<size_t>(p_.loop_leader_[v])];
          if (at >= 0) {
            TempBuffer& b = temp_[static_cast<size_t>(at)];
            b = {std::max(b.size, size), std::min(b.start, start), std::max(b.end, end[v]), -1,
                 std::min(b.order, ValueOrder(v))};
            continue;
          }
          at = static_cast<int32_t>(temp_.size());
        }
        temp_.push_back({size, start, end[v], -1, ValueOrder(v)});
      } else {
        const Buffer b{size, start, end[v], -1};
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

// The heap simulator's call stream for the temp buffers, as PackTempReference
// drives it (events by step, allocations before frees, then buffer index;
// buffers updated in place share their group's memory while any member of
// the group is live), written down as lifetimes in ticks for
// analyzer::BestFitHeapSize. Events are bucketed by step (counting sort)
// when the steps span no more than a few times the buffer count.
const std::vector<analyzer::PackingInterval>& MemoryModel::TempIntervals() const {
  ModelScratch& s = *scratch_;
  const size_t n = temp_.size();
  ir::ScheduleStep lo = temp_[0].start, hi = temp_[0].start;
  for (const Buffer& b : temp_) {
    lo = std::min({lo, b.start, b.end});
    hi = std::max({hi, b.start, b.end});
  }
  // Event e: buffer e / 2, a free when odd.
  std::vector<uint32_t>& events = s.events;
  events.resize(2 * n);
  const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
  auto key = [&](uint32_t e) {
    const Buffer& b = temp_[e / 2];
    return 2 * static_cast<uint64_t>(((e & 1) ? b.end : b.start) - lo) + (e & 1);
  };
  if (range <= 8 * n + 1024) {
    std::vector<uint32_t>& count = s.count;
    count.assign(2 * range + 1, 0);
    for (uint32_t e = 0; e < 2 * n; ++e) ++count[key(e) + 1];
    for (size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];
    for (uint32_t e = 0; e < 2 * n; ++e) events[count[key(e)]++] = e;
  } else {
    for (uint32_t e = 0; e < 2 * n; ++e) events[e] = e;
    std::sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) {
      const uint64_t ka = key(a), kb = key(b);
      return ka != kb ? ka < kb : a < b;
    });
  }
  // Groups with sharers keep their live members in order; the first one is
  // the canonical buffer a new member shares with.
  std::vector<int32_t>& slot = s.slot;
  slot.assign(n, -1);
  std::vector<std::vector<size_t>> live_in_group;
  for (const Buffer& b : temp_) {
    if (b.share_with >= 0 && slot[static_cast<size_t>(b.share_with)] < 0) {
      slot[static_cast<size_t>(b.share_with)] = static_cast<int32_t>(live_in_group.size());
      live_in_group.emplace_back();
    }
  }
  std::vector<analyzer::PackingInterval>& intervals = s.intervals;
  intervals.clear();
  intervals.reserve(n);
  std::vector<int32_t>& interval_of = s.interval_of;
  interval_of.assign(n, -1);
  int64_t tick = 0;
  for (const uint32_t e : events) {
    const size_t b = e / 2;
    const size_t group = temp_[b].share_with >= 0 ? static_cast<size_t>(temp_[b].share_with) : b;
    std::vector<size_t>* members =
        slot[group] >= 0 ? &live_in_group[static_cast<size_t>(slot[group])] : nullptr;
    if (e & 1) {
      const int32_t i = interval_of[b];
      if (i >= 0 && intervals[static_cast<size_t>(i)].end < 0) {
        intervals[static_cast<size_t>(i)].end = tick++;
      }
      if (members) members->erase(std::remove(members->begin(), members->end(), b), members->end());
      continue;
    }
    analyzer::PackingInterval interval;
    interval.id = static_cast<int64_t>(b);
    interval.size = std::max<int64_t>(temp_[b].size, 1);
    interval.start = tick++;
    interval.end = -1;
    interval.group = static_cast<int32_t>(intervals.size());
    if (members && !members->empty()) {
      interval.group = intervals[static_cast<size_t>(interval_of[members->front()])].group;
    }
    interval_of[b] = static_cast<int32_t>(intervals.size());
    intervals.push_back(interval);
    if (members) members->push_back(b);
  }
  for (analyzer::PackingInterval& interval : intervals) {
    if (interval.end < 0) interval.end = tick;
  }
  return intervals;
}

int64_t MemoryModel::PackTemp() {
  if (temp_.empty()) return 0;
  if (p_.options_.reference_heap) return PackTempReference();
  const int64_t alignment = p_.options_.temp_alignment;
  if (memo_ == nullptr) return analyzer::BestFitHeapSize(TempIntervals(), alignment, scratch_->packing);
  // Recorded forms first: where a structure has them they answer its
  // uniformly scaled candidates too.
  std::optional<int64_t> heap = memo_->FromForms(temp_, alignment);
  if (!heap) heap = memo_->Scaled(temp_, alignment);
  if (heap) {
    packing_scaled_ = true;
    return *heap;
  }
  // A second candidate of these lifetimes with few sizes: packed as forms
  // of them, which answer later candidates whose sizes keep every
  // comparison's sign (analyzer/interval_packing_forms.h).
  std::optional<analyzer::PackingForms> forms;
  if (memo_->KeptLifetimes(temp_, alignment)) {
    forms = analyzer::PackingForms::Record(TempIntervals(), alignment, scratch_->packing);
  }
  if (forms) {
    const int64_t recorded = forms->heap();
    memo_->KeepForms(temp_, alignment, *std::move(forms));
    return recorded;
  }
  const int64_t packed = analyzer::BestFitHeapSize(TempIntervals(), alignment, scratch_->packing);
  memo_->Keep(temp_, alignment, packed);
  return packed;
}

int64_t MemoryModel::PackTempReference() const {

  // (step, is_free, buffer)
  std::vector<std::tuple<ir::ScheduleStep, bool, size_t>> events;
  events.reserve(2 * temp_.size());
  for (size_t b = 0; b < temp_.size(); ++b) {
    events.emplace_back(temp_[b].start, false, b);
    events.emplace_back(temp_[b].end, true, b);
  }
  std::sort(events.begin(), events.end());
  auto heap = analyzer::MakeDecreasingSizeBestFitHeap(p_.options_.temp_alignment);
  // Buffers updated in place share their group's memory while any member of
  // the group is live (as analyzer/temp_arena.cc drives the heap).
  std::vector<std::vector<size_t>> live_in_group(temp_.size());
  for (const auto& [step, is_free, b] : events) {
    const ir::ValueId id(static_cast<int64_t>(b));
    const size_t group = temp_[b].share_with >= 0 ? static_cast<size_t>(temp_[b].share_with) : b;
    std::vector<size_t>& members = live_in_group[group];
    if (is_free) {
      heap->Free(id);
      members.erase(std::remove(members.begin(), members.end(), b), members.end());
      continue;
    }
    if (!members.empty()) {
      heap->ShareWith(id, ir::ValueId(static_cast<int64_t>(members.front())),
                      std::max<int64_t>(temp_[b].size, 1));
    } else {
      heap->Alloc(id, std::max<int64_t>(temp_[b].size, 1));
    }
    members.push_back(b);
  }
  return heap->Finish().heap_size;
}

std::optional<BuffersPeak> LivePeakInSteps(const std::vector<TempBuffer>& temp,
                                           const std::vector<TempBuffer>& resident, size_t span,
                                           std::vector<int64_t>& per_step) {
  per_step.assign(span, 0);
  int64_t* table = per_step.data();
  auto add = [&](const std::vector<TempBuffer>& list) {
    for (const TempBuffer& b : list) {
      if (b.share_with >= 0) continue;
      const uint64_t from = static_cast<uint64_t>(b.start), to = static_cast<uint64_t>(b.end + 1);
      if (from >= span || to >= span) return false;  // a negative step wraps past span too
      table[from] += b.size;
      table[to] -= b.size;
    }
    return true;
  };
  if (!add(temp) || !add(resident)) return std::nullopt;
  BuffersPeak peak;
  int64_t live = 0;
  for (size_t k = 0; k < span; ++k) {
    live += table[k];
    if (live > peak.bytes) {
      peak.bytes = live;
      peak.step = static_cast<ir::ScheduleStep>(k);
    }
  }
  return peak;
}

BuffersPeak LivePeakOfBuffers(const std::vector<TempBuffer>& temp,
                              const std::vector<TempBuffer>& resident,
                              std::vector<int64_t>& per_step,
                              std::vector<std::pair<ir::ScheduleStep, int64_t>>& deltas) {
  // Bytes added and removed per step, summed per step in a table when the
  // steps span no more than a few times the buffer count, else sorted.
  size_t count = 0;  // two deltas per buffer that does not reuse another's memory
  ir::ScheduleStep lo = 0, hi = 0;
  auto bound = [&](const std::vector<TempBuffer>& list) {
    for (const TempBuffer& b : list) {
      if (b.share_with >= 0) continue;
      if (count == 0) lo = hi = b.start;
      lo = std::min({lo, b.start, b.end + 1});
      hi = std::max({hi, b.start, b.end + 1});
      count += 2;
    }
  };
  bound(temp);
  bound(resident);
  BuffersPeak peak;
  int64_t live = 0;
  if (count == 0) return peak;
  const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
  if (range <= 4 * count + 1024) {
    per_step.assign(range, 0);
    auto add = [&](const std::vector<TempBuffer>& list) {
      for (const TempBuffer& b : list) {
        if (b.share_with >= 0) continue;
        per_step[static_cast<size_t>(b.start - lo)] += b.size;
        per_step[static_cast<size_t>(b.end + 1 - lo)] -= b.size;
      }
    };
    add(temp);
    add(resident);
    for (size_t k = 0; k < per_step.size(); ++k) {
      live += per_step[k];
      if (live > peak.bytes) {
        peak.bytes = live;
        peak.step = lo + static_cast<ir::ScheduleStep>(k);
      }
    }
    return peak;
  }
  deltas.clear();
  deltas.reserve(count);
  auto add = [&](const std::vector<TempBuffer>& list) {
    for (const TempBuffer& b : list) {
      if (b.share_with >= 0) continue;
      deltas.emplace_back(b.start, b.size);
      deltas.emplace_back(b.end + 1, -b.size);
    }
  };
  add(temp);
  add(resident);
  std::sort(deltas.begin(), deltas.end());
  for (size_t i = 0; i < deltas.size();) {
    const ir::ScheduleStep s = deltas[i].first;
    for (; i < deltas.size() && deltas[i].first == s; ++i) live += deltas[i].second;
    if (live > peak.bytes) {
      peak.bytes = live;
      peak.step = s;
    }
  }
  return peak;
}

// Arguments are live throughout; output-allocation values and temp buffers
// over their lifetimes; a buffer reusing another's memory adds nothing.
int64_t MemoryModel::LivePeak(ir::ScheduleStep* at) const {
  // One pass when every step is in [0, max_step_ + 1].
  const size_t span = static_cast<size_t>(std::max<ir::ScheduleStep>(p_.max_step_, 0)) + 2;
  std::optional<BuffersPeak> peak;
  if (span <= 8 * (temp_.size() + resident_.size()) + 1024) {
    peak = LivePeakInSteps(temp_, resident_, span, scratch_->per_step);
  }
  if (!peak) peak = LivePeakOfBuffers(temp_, resident_, scratch_->per_step, scratch_->deltas);
  *at = peak->step;
  return argument_bytes_ + peak->bytes;
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
