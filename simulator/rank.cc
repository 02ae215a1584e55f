#include "simulator/rank.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

#include "analyzer/plan_families.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::simulator {
namespace {

void Factorise(int64_t n, int parts, std::vector<int64_t>& prefix,
               std::vector<std::vector<int64_t>>* out) {
  if (parts == 1) {
    if (n >= 2) {
      prefix.push_back(n);
      out->push_back(prefix);
      prefix.pop_back();
    }
    return;
  }
  for (int64_t f = 2; f <= n / 2; ++f) {
    if (n % f != 0) continue;
    prefix.push_back(f);
    Factorise(n / f, parts - 1, prefix, out);
    prefix.pop_back();
  }
}

// What a priced candidate keeps: the totals, not the per-argument detail
// (a ranking of a thousand candidates of a large program would hold a
// thousand copies of it).
void DropDetails(CandidateCost& cost) {
  predictor::Prediction& p = cost.prediction;
  p.collective_list = {};
  p.argument_shardings = {};
  p.output_shardings = {};
  p.unknown.shrink_to_fit();
}

// Prices every candidate on `devices` devices (nullopt: another device
// count), on as many threads as the machine has cores: CostModel::Price is
// const and shares nothing mutable, each result lands at its candidate's
// index, so the output does not depend on the thread count.
std::vector<std::optional<absl::StatusOr<CandidateCost>>> PriceAll(
    const CostModel& model, int64_t devices, const std::vector<Candidate>& candidates) {
  std::vector<std::optional<absl::StatusOr<CandidateCost>>> costs(candidates.size());
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i = next++; i < candidates.size(); i = next++) {
      if (candidates[i].plan.mesh.device_count() != devices) continue;
      absl::StatusOr<CandidateCost> cost = model.Price(candidates[i].plan);
      if (cost.ok()) DropDetails(*cost);
      costs[i] = std::move(cost);
    }
  };
  const size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()),
                                          candidates.size());
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return costs;
}

}  // namespace

std::vector<std::vector<int64_t>> OrderedFactorisations(int64_t n, int parts) {
  std::vector<std::vector<int64_t>> out;
  if (parts < 1 || n < 1) return out;
  if (n == 1) return {std::vector<int64_t>(static_cast<size_t>(parts), 1)};
  std::vector<int64_t> prefix;
  Factorise(n, parts, prefix, &out);
  return out;
}

absl::StatusOr<Enumeration> EnumerateFamilies(const std::vector<ir::EntryArgument>& arguments,
                                              int64_t devices,
                                              const std::vector<std::string>& families,
                                              const ir::FamilyInputs& inputs) {
  if (devices < 1) return absl::InvalidArgumentError("expected at least one device");
  return EnumerateFamilies(analyzer::FamilyArguments(arguments, inputs), devices, families);
}

absl::StatusOr<Enumeration> EnumerateFamilies(const analyzer::FamilyArguments& arguments,
                                              int64_t devices,
                                              const std::vector<std::string>& families) {
  if (devices < 1) return absl::InvalidArgumentError("expected at least one device");
  Enumeration out;
  out.inputs = arguments.inputs();
  for (const std::string& family : families) {
    ASSIGN_OR_RETURN(const std::vector<std::string> axes, analyzer::FamilyAxes(family));
    for (const std::vector<int64_t>& sizes :
         OrderedFactorisations(devices, static_cast<int>(axes.size()))) {
      ir::Mesh mesh;
      for (size_t k = 0; k < axes.size(); ++k) mesh.axes.push_back({axes[k], sizes[k]});
      absl::StatusOr<ir::ResolvedPlan> plan = arguments.Plan(mesh);
      if (!plan.ok()) {
        out.skipped.push_back({analyzer::FamilyLabel(mesh), family, "", SkipReason::kFamilyRule,
                               std::string(FromAbsl(plan.status().message())), devices});
        continue;
      }
      Candidate c;
      c.family = family;
      c.plan = *std::move(plan);
      out.candidates.push_back(std::move(c));
    }
    if (devices == 1) break;  // every family is the same single device
  }
  return out;
}

absl::StatusOr<int64_t> DevicesPerNode(const Hardware& hw, int64_t devices,
                                       std::optional<int64_t> nodes) {
  if (devices < 1) return absl::InvalidArgumentError("expected at least one device");
  if (hw.gpus_per_node < 1) return absl::InvalidArgumentError("the hardware has no GPUs per node");
  if (!nodes) return std::min(devices, hw.gpus_per_node);
  if (*nodes < 1) return absl::InvalidArgumentError("expected at least one node");
  if (devices % *nodes != 0) {
    return absl::InvalidArgumentError(StrCat(devices, " devices do not spread evenly over ", *nodes,
                                             " nodes; expected a node count that divides them"));
  }
  if (devices / *nodes > hw.gpus_per_node) {
    return absl::InvalidArgumentError(StrCat(devices, " devices on ", *nodes, " nodes put ",
                                             devices / *nodes, " on a node; ", hw.name, " has ",
                                             hw.gpus_per_node, " GPUs per node"));
  }
  return devices / *nodes;
}

const RankedCandidate* Ranking::Smallest() const {
  const RankedCandidate* best = nullptr;
  for (const auto* list : {&fitting, &over_budget}) {
    for (const RankedCandidate& c : *list) {
      if (best == nullptr || std::tie(c.footprint_bytes, c.label, c.index) <
                                 std::tie(best->footprint_bytes, best->label, best->index)) {
        best = &c;
      }
    }
  }
  return best;
}

absl::StatusOr<Ranking> RankCandidates(const CostModel& model, int64_t devices,
                                       int64_t budget_bytes, const std::vector<Candidate>& candidates,
                                       std::vector<SkippedCandidate> skipped) {
  if (devices < 1) return absl::InvalidArgumentError("expected at least one device");
  Ranking out;
  out.devices = devices;
  out.gpus_per_node = model.gpus_per_node();
  out.nodes = (devices + out.gpus_per_node - 1) / out.gpus_per_node;
  out.budget_bytes = budget_bytes;
  out.skipped = std::move(skipped);
  std::vector<std::optional<absl::StatusOr<CandidateCost>>> costs =
      PriceAll(model, devices, candidates);
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const int64_t mesh_devices = c.plan.mesh.device_count();
    if (!costs[i]) {
      out.skipped.push_back({c.plan.label, c.family, c.source, SkipReason::kDeviceCount,
                             c.plan.mesh.ToString(), mesh_devices});
      continue;
    }
    absl::StatusOr<CandidateCost>& cost = *costs[i];
    if (!cost.ok()) {
      out.skipped.push_back({c.plan.label, c.family, c.source, SkipReason::kPrediction,
                             std::string(FromAbsl(cost.status().message())), mesh_devices});
      continue;
    }
    RankedCandidate r;
    r.index = static_cast<int64_t>(i);
    r.label = c.plan.label;
    r.family = c.family;
    r.source = c.source;
    r.cost = *std::move(cost);
    r.footprint_bytes = r.cost.prediction.max_device_footprint_bytes;
    r.headroom_bytes = budget_bytes - r.footprint_bytes;
    (r.footprint_bytes <= budget_bytes ? out.fitting : out.over_budget).push_back(std::move(r));
  }
  std::sort(out.fitting.begin(), out.fitting.end(),
            [](const RankedCandidate& a, const RankedCandidate& b) {
              return std::tie(a.cost.step.step_seconds, a.footprint_bytes, a.label, a.index) <
                     std::tie(b.cost.step.step_seconds, b.footprint_bytes, b.label, b.index);
            });
  std::sort(out.over_budget.begin(), out.over_budget.end(),
            [](const RankedCandidate& a, const RankedCandidate& b) {
              return std::tie(a.footprint_bytes, a.label, a.index) <
                     std::tie(b.footprint_bytes, b.label, b.index);
            });
  return out;
}

}  // namespace memplan::simulator
