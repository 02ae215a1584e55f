#include "ir/plan.h"

#include <utility>

#include "absl/hash/hash.h"

namespace memplan::ir {
namespace {

// A hash of the fields of `s` that decide most comparisons: equal shardings
// hash equal (the named form, compared whole by operator==, contributes only
// its presence).
uint64_t HashOf(const HloSharding& s) {

  size_t h = absl::HashOf(static_cast<int>(s.kind), s.maximal_device, s.tiles.dims, s.tiles.devices,
                          s.tiles.iota.has_value(), s.replicate_on_last_tile_dim,
                          s.tuple_elements.size(), s.named.has_value(), s.shard_group.has_value(),
                          s.metadata);
  if (s.tiles.iota) {
    h = absl::HashOf(h, s.tiles.iota->dims, s.tiles.iota->reshape_dims, s.tiles.iota->transpose_perm);
  }
  for (OpShardingType t : s.last_tile_dims) h = absl::HashOf(h, static_cast<int32_t>(t));
  if (s.shard_group) h = absl::HashOf(h, s.shard_group->shard_as, s.shard_group->id);
  for (const HloSharding& e : s.tuple_elements) h = absl::HashOf(h, HashOf(e));
  return h;
}

}  // namespace

int32_t ShardingTable::Intern(HloSharding sharding) {
  const uint64_t hash = HashOf(sharding);
  auto [it, inserted] = by_hash_.try_emplace(hash, static_cast<int32_t>(entries_.size()));
  if (!inserted) {
    if (entries_[static_cast<size_t>(it->second)] == sharding) return it->second;
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i] == sharding) return static_cast<int32_t>(i);
    }
  }
  entries_.push_back(std::move(sharding));
  return static_cast<int32_t>(entries_.size() - 1);
}

const HloSharding& ResolvedPlan::ArgumentSharding(size_t i) const {
  static const HloSharding* const kReplicated = new HloSharding(HloSharding::Replicated());
  const int32_t index = arguments[i].sharding_index;
  return index == ArgumentPlan::kReplicatedIndex ? *kReplicated : shardings[index];
}

namespace {
const std::string& Empty() {
  static const std::string* const empty = new std::string();
  return *empty;
}
}  // namespace

const std::string& ResolvedPlan::ArgumentName(size_t i) const {
  return labels != nullptr && i < labels->names.size() ? labels->names[i] : Empty();
}

const std::string& ResolvedPlan::ArgumentKey(size_t i) const {
  return labels != nullptr && i < labels->keys.size() ? labels->keys[i] : Empty();
}

const std::string& ResolvedPlan::ArgumentLocation(size_t i) const {
  return labels != nullptr && i < labels->spec_locations.size() ? labels->spec_locations[i]
                                                                : Empty();
}

const std::string& ResolvedPlan::OutputLocation(size_t k) const {
  return k < output_locations.size() ? output_locations[k] : Empty();
}

}  // namespace memplan::ir
