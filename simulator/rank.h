// Ranking sharding candidates of one program on N devices: enumerate the
// family plans (every factorisation of N into a family's mesh axes,
// analyzer/plan_families.h), price each (simulator/candidate_cost.h), drop
// those whose largest per-device footprint exceeds the memory budget, and
// order the rest by step time (docs/cost-model.md, "Ranking").
#ifndef MEMPLAN_SIMULATOR_RANK_H_
#define MEMPLAN_SIMULATOR_RANK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/plan_families.h"
#include "ir/entry_arguments.h"
#include "ir/plan.h"
#include "ir/spec_plan.h"
#include "simulator/candidate_cost.h"

namespace memplan::simulator {

// One plan to price.
struct Candidate {
  std::string family;  // "dp+tp"; empty for a plan given as a file
  std::string source;  // the plan file; empty for a family plan
  // plan.label names the candidate. A family plan's PartitionSpec form (what
  // a plan file of it holds) is analyzer::BuildFamilyPlan(arguments,
  // plan.mesh, Enumeration::inputs).
  ir::ResolvedPlan plan;
};

// Why a candidate has no price.
enum class SkipReason : uint8_t {
  kFamilyRule,   // the family rules cannot shard the program on this mesh
  kDeviceCount,  // a plan file's mesh has another number of devices
  kPrediction,   // the predictor refused the plan
};

struct SkippedCandidate {
  std::string label;
  std::string family;
  std::string source;
  SkipReason reason = SkipReason::kFamilyRule;
  std::string detail;  // the library's message (the rule that failed)
  int64_t mesh_devices = 0;  // kDeviceCount: the plan's devices
};

// Every way to write `n` as an ordered product of `parts` factors, each at
// least 2, in lexicographic order of the factors; for n == 1, one tuple of
// ones. Empty when parts < 1 or n < 1.
std::vector<std::vector<int64_t>> OrderedFactorisations(int64_t n, int parts);

struct Enumeration {
  std::vector<Candidate> candidates;  // families in the order given, factorisations in order
  std::vector<SkippedCandidate> skipped;
  ir::FamilyInputs inputs;  // what the family plans were derived from
};

// The candidates of `families` ("dp", "dp+tp", ...) on `devices` devices,
// each family's axes in the order it names them (major to minor: "dp+tp"
// puts tp innermost, on neighbouring devices). A mesh the family rules
// cannot shard the program on is skipped with the rule's message. For one
// device, one candidate (the first family, all axes of size 1).
// InvalidArgument on a family FamilyAxes refuses, or devices < 1.
// The candidates' plans share one table of argument names, and each rule
// is evaluated once per class of alike arguments (analyzer::FamilyArguments).
absl::StatusOr<Enumeration> EnumerateFamilies(const std::vector<ir::EntryArgument>& arguments,
                                              int64_t devices,
                                              const std::vector<std::string>& families,
                                              const ir::FamilyInputs& inputs);
// The same, from arguments prepared once (for several device counts).
absl::StatusOr<Enumeration> EnumerateFamilies(const analyzer::FamilyArguments& arguments,
                                              int64_t devices,
                                              const std::vector<std::string>& families);

struct RankedCandidate {
  int64_t index = 0;  // position among the candidates given
  std::string label;
  std::string family;
  std::string source;
  CandidateCost cost;  // prediction details beyond the totals dropped
  int64_t footprint_bytes = 0;  // largest per-device footprint
  int64_t headroom_bytes = 0;   // budget - footprint (negative: over)
};

struct Ranking {
  int64_t devices = 0;
  int64_t gpus_per_node = 0;
  int64_t nodes = 0;
  int64_t budget_bytes = 0;
  // Within the budget (footprint <= budget): by step time, then footprint,
  // then label, then input position.
  std::vector<RankedCandidate> fitting;
  // Over it: by footprint, then label, then input position.
  std::vector<RankedCandidate> over_budget;
  std::vector<SkippedCandidate> skipped;  // in input order

  // The candidate with the smallest footprint of all priced; null if none.
  const RankedCandidate* Smallest() const;
};

// Devices per node for `devices` devices on `nodes` nodes (nullopt: as few
// nodes as hold them, `hw.gpus_per_node` to a node). InvalidArgument when
// nodes < 1, `nodes` does not divide `devices`, or a node would hold more
// than hw.gpus_per_node.
absl::StatusOr<int64_t> DevicesPerNode(const Hardware& hw, int64_t devices,
                                       std::optional<int64_t> nodes);

// Prices every candidate on `devices` devices with `model`, and ranks them
// against `budget_bytes`. A plan file whose mesh has another device count,
// and one the predictor refuses, is skipped with the reason; candidates
// from `skipped` are carried over. InvalidArgument when devices < 1.
absl::StatusOr<Ranking> RankCandidates(const CostModel& model, int64_t devices,
                                       int64_t budget_bytes, const std::vector<Candidate>& candidates,
                                       std::vector<SkippedCandidate> skipped = {});

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_RANK_H_
