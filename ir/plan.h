// A sharding plan resolved against one program: the mesh, and for every entry
// parameter the HloSharding it gets. This is what a plan file (docs/
// plan-format.md) becomes once its keys are matched to the program's
// arguments, what `memplan plan --family` produces, and what prediction,
// the simulator and the executor take. The parser lives in
// parsers/plan_parser.h, the families in analyzer/plan_families.h.
//
// A plan repeats a handful of shardings over thousands of arguments (every
// layer's weight is split alike), so it keeps each distinct sharding once,
// in a ShardingTable, and every argument an index into it: a plan of 25,000
// arguments is a few MB, not tens, and a reader that works per sharding
// (prediction's conversion to mesh axes) does that work once per distinct
// sharding.
#ifndef MEMPLAN_IR_PLAN_H_
#define MEMPLAN_IR_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/mesh.h"
#include "ir/sharding.h"

namespace memplan::ir {

// Where one argument's sharding came from.
enum class PlanSource : uint8_t {
  kKey,         // a plan key named it (name, glob or parameter number)
  kDefault,     // no key matched: replicated
};

// Distinct HloShardings, each held once and named by its index (0, 1, ... in
// the order first interned). Two entries are never equal (operator==).
class ShardingTable {
 public:
  // The index of the entry equal to `sharding`, added at the end when there
  // is none. Amortized O(1): entries are found by a hash of their fields.
  int32_t Intern(HloSharding sharding);

  // Entry `index`. Precondition: 0 <= index < size().
  const HloSharding& operator[](int32_t index) const { return entries_[static_cast<size_t>(index)]; }
  size_t size() const { return entries_.size(); }
  const std::vector<HloSharding>& entries() const { return entries_; }

 private:
  std::vector<HloSharding> entries_;
  // Hash of an entry's fields -> the first entry with that hash (another
  // entry of the same hash is found by a scan; HashOf collisions are rare).
  absl::flat_hash_map<uint64_t, int32_t> by_hash_;
};

// The names and plan keys of a plan's arguments, by parameter number. A
// plan holds them behind a shared pointer: the plans enumerated from one
// program share one table instead of copying 25,000 names into each.
struct ArgumentLabels {
  std::vector<std::string> names;  // pytree path ("params[0][0]"), may be empty
  std::vector<std::string> keys;   // the plan key that matched (kKey), else empty
  // Where the spec that set the sharding stands in the plan file
  // ("plan.yaml:3:16"; kKey), else empty.
  std::vector<std::string> spec_locations{};
};

struct ArgumentPlan {
  int64_t parameter = -1;   // entry parameter number
  // Its sharding: an index into ResolvedPlan::shardings (over
  // mesh.DeviceIds(), tuple-free); kReplicatedIndex: replicated without an
  // entry. Read it with ResolvedPlan::ArgumentSharding.
  int32_t sharding_index = -1;
  PlanSource source = PlanSource::kDefault;
  bool donated = false;

  static constexpr int32_t kReplicatedIndex = -1;
};

struct ResolvedPlan {
  Mesh mesh;
  // The distinct shardings the arguments use.
  ShardingTable shardings;
  // One per entry parameter, in parameter order (arguments[i].parameter == i).
  std::vector<ArgumentPlan> arguments;
  // Output shardings by flattened output index; empty: unspecified (the
  // prediction propagates them).
  std::vector<std::optional<HloSharding>> outputs;
  // Per output index, where its spec stands in the plan file
  // ("plan.yaml:7:6"); empty when unspecified or not from a file.
  std::vector<std::string> output_locations;
  // How many arguments no key matched (replicated by default).
  int64_t unmatched_arguments = 0;
  // The plan's own name (file stem or family label such as "dp2_tp4").
  std::string label;
  // The arguments' names and keys (ArgumentName, ArgumentKey); null or
  // shorter than `arguments`: the rest unnamed.
  std::shared_ptr<const ArgumentLabels> labels;

  // Argument `i`'s pytree path ("params[0][0]"); empty when unnamed.
  const std::string& ArgumentName(size_t i) const;
  // The plan key that matched argument `i` (kKey); empty otherwise.
  const std::string& ArgumentKey(size_t i) const;
  // Where the spec of argument `i` stands in the plan file
  // ("plan.yaml:3:16"); empty for a default or a plan not read from a file.
  const std::string& ArgumentLocation(size_t i) const;
  // The same for output `k`.
  const std::string& OutputLocation(size_t k) const;

  // Argument `i`'s sharding ({replicated} for kReplicatedIndex).
  // Precondition: i < arguments.size() and its index is kReplicatedIndex or
  // below shardings.size() (ValidShardingIndex).
  const HloSharding& ArgumentSharding(size_t i) const;
  // Sets argument `i`'s sharding, interning it.
  void SetArgumentSharding(size_t i, HloSharding sharding) {
    arguments[i].sharding_index = shardings.Intern(std::move(sharding));
  }
  // Whether argument `i`'s index names a sharding (kReplicatedIndex or an
  // entry of `shardings`).
  bool ValidShardingIndex(size_t i) const {
    const int32_t index = arguments[i].sharding_index;
    return index == ArgumentPlan::kReplicatedIndex ||
           (index >= 0 && static_cast<size_t>(index) < shardings.size());
  }
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_PLAN_H_
