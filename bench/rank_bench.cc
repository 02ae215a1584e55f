// Ranking throughput: candidates priced (memory, compute, collectives, step
// time) and ranked per second on one large program.
//
// Builds the program of predict_bench (bench/synthetic_program.h: --layers
// residual MLP layers, 100,001 values at the default 25,000), prepares the
// cost model once (simulator::CostModel::Create on the h100 preset), then
// ranks --candidates plans on 8 devices (simulator::RankCandidates) rotating
// over ten distinct shardings: dp8, fsdp8, tp8 column, tp8 row, and
// dp a x tp b and fsdp a x tp b for (a, b) = (2, 4), (4, 2), and replicated.
// Candidates of one sharding share their prediction and price (the first
// computes them: predictor/shared_predictions.h, CostModel::Price); with
// --share=0 every candidate is computed. --distinct=1 ranks instead
// bench::DistinctCandidates (76 meshes from 8 to 1024 devices, no two of
// the same sizes; at most 76 candidates), each device count's candidates
// ranked together on that many devices: candidates of one structure and
// other sizes share their propagation, nothing else. --sweep=1 ranks the
// family candidates `memplan rank --devices N` enumerates (RunSweep below)
// for every power of two N up to --max-devices, one RankCandidates call per
// N with one cost model, and prints wall and CPU seconds of the whole sweep.
//   build/bench/rank_bench [--layers=25000] [--candidates=1000] [--share=1]
//                          [--batch=100] [--distinct=0] [--sweep=0]
//                          [--max-devices=2048] [--rerun=1]
// prints values, the one-time preparation, total seconds and candidates/s.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <string>
#include <vector>

#include "ir/entry_arguments.h"
#include "ir/malloc_settings.h"
#include "ir/plan.h"
#include "ir/spec_plan.h"
#include "ir/status_macros.h"
#include "simulator/hardware_loader.h"
#include "simulator/rank.h"
#include "bench/synthetic_program.h"

namespace {

using namespace memplan;

ir::HloSharding Iota(std::vector<int64_t> dims, bool replicate_last) {
  return ir::HloSharding::Tiled(ir::TileAssignment::Iota(std::move(dims)), replicate_last);
}

// Over a mesh (outer=a, tp=b): dimension 0 over outer, replicated over tp.
ir::HloSharding Dim0Outer(int64_t a, int64_t b) { return Iota({a, 1, b}, true); }
// Dimension 1 over tp, replicated over outer.
ir::HloSharding Dim1Tp(int64_t a, int64_t b) {
  return ir::HloSharding::Tiled(ir::TileAssignment::Iota({1, b, a}, {a, b}, {1, 0}), true);
}
// Dimension 0 over outer and dimension 1 over tp.
ir::HloSharding Both(int64_t a, int64_t b) { return Iota({a, b}, false); }

// Sharding k of the rotation, for every parameter (0: the data).
simulator::Candidate Make(int k, int64_t parameters) {
  simulator::Candidate c;
  ir::ResolvedPlan& plan = c.plan;
  const int kind = k % 10;
  const char* labels[] = {"dp8",       "fsdp8",       "tp8_col",     "tp8_row",    "dp2_tp4",
                          "dp4_tp2",   "fsdp2_tp4",   "fsdp4_tp2",   "replicated", "tp8_col_dp"};
  char label[64];
  std::snprintf(label, sizeof(label), "c%04d_%s", k, labels[kind]);
  plan.label = label;
  c.family = "bench";
  auto two = [&](const char* outer, int64_t a, int64_t b) {
    plan.mesh.axes = {{outer, a}, {"tp", b}};
  };
  switch (kind) {
    case 0: plan.mesh.axes = {{"dp", 8}}; break;
    case 1: plan.mesh.axes = {{"fsdp", 8}}; break;
    case 4: two("dp", 2, 4); break;
    case 5: two("dp", 4, 2); break;
    case 6: two("fsdp", 2, 4); break;
    case 7: two("fsdp", 4, 2); break;
    default: plan.mesh.axes = {{"tp", 8}}; break;
  }
  for (int64_t i = 0; i < parameters; ++i) {
    ir::ArgumentPlan a;
    a.parameter = i;
    const bool data = i == 0;
    ir::HloSharding s;
    switch (kind) {
      case 0: s = data ? Iota({8, 1}, false) : ir::HloSharding::Replicated(); break;
      case 1: s = Iota({8, 1}, false); break;
      case 2: s = data ? ir::HloSharding::Replicated() : Iota({1, 8}, false); break;
      case 3: s = data ? ir::HloSharding::Replicated() : Iota({8, 1}, false); break;
      case 4: s = data ? Dim0Outer(2, 4) : Dim1Tp(2, 4); break;
      case 5: s = data ? Dim0Outer(4, 2) : Dim1Tp(4, 2); break;
      case 6: s = data ? Dim0Outer(2, 4) : Both(2, 4); break;
      case 7: s = data ? Dim0Outer(4, 2) : Both(4, 2); break;
      case 8: s = ir::HloSharding::Replicated(); break;
      default: s = data ? Iota({8, 1}, false) : Iota({1, 8}, false); break;
    }
    // Interned: the plan holds each distinct sharding once.
    a.sharding_index = plan.shardings.Intern(std::move(s));
    plan.arguments.push_back(std::move(a));
  }
  return c;
}

// The sweep's candidates of one device count: what `memplan rank --devices
// N --families <every order of dp, fsdp, tp, ...>` enumerates for the
// program named as a JAX dump would name it (data `x`, weights
// `params['w<i>']`, every weight tp colwise), families.yaml below.
absl::StatusOr<simulator::Enumeration> SweepCandidates(const ir::Program& program, int64_t devices) {
  ASSIGN_OR_RETURN(std::vector<ir::EntryArgument> arguments, ir::EntryArguments(program.module));
  for (ir::EntryArgument& a : arguments) {
    a.name = a.parameter == 0 ? "x" : "params['w" + std::to_string(a.parameter) + "']";
  }
  ir::FamilyInputs inputs;
  inputs.data = {"x"};
  inputs.tp = {{"params*", ir::TpStyle::kColwise}};
  const std::vector<std::string> families = {
      "dp",      "fsdp",    "tp",         "dp+tp",      "tp+dp",      "fsdp+tp",
      "tp+fsdp", "dp+fsdp", "fsdp+dp",    "dp+fsdp+tp", "dp+tp+fsdp", "fsdp+dp+tp",
      "fsdp+tp+dp", "tp+dp+fsdp", "tp+fsdp+dp"};
  return simulator::EnumerateFamilies(arguments, devices, families, inputs);
}

// What makes two candidates the same: the mesh's axis sizes in order and
// every argument's sharding (the table's entries as XLA prints them, in
// the order the arguments first use them, and each argument's entry).
std::string SameKey(const ir::ResolvedPlan& plan) {
  std::string key;
  for (const ir::MeshAxis& axis : plan.mesh.axes) key += std::to_string(axis.size) + ",";
  std::vector<int32_t> first_use(plan.shardings.size() + 1, -1);
  int32_t used = 0;
  for (size_t i = 0; i < plan.arguments.size(); ++i) {
    int32_t& n = first_use[static_cast<size_t>(plan.arguments[i].sharding_index + 1)];
    if (n < 0) {
      n = used++;
      key += "|" + plan.ArgumentSharding(i).ToString();
    }
    key += "#" + std::to_string(n);
  }
  return key;
}

// --sweep=1: every power of two N from 2 to --max-devices, the family
// candidates of N ranked in one RankCandidates call (priced on every core),
// one cost model for the whole sweep. Enumeration and ranking are timed
// apart, wall and CPU.
int RunSweep(const bench::Generated& g, const simulator::CostModel& model, int64_t budget,
             int64_t max_devices, bool per_call) {
  using Clock = std::chrono::steady_clock;
  double enumerate_wall = 0, enumerate_cpu = 0, rank_wall = 0, rank_cpu = 0;
  size_t total = 0, fitting = 0, over = 0, skipped = 0, calls = 0;
  std::set<std::string> seen;
  size_t same = 0;
  for (int64_t devices = 2; devices <= max_devices; devices *= 2) {
    const auto t0 = Clock::now();
    const std::clock_t c0 = std::clock();
    absl::StatusOr<simulator::Enumeration> e = SweepCandidates(g.program, devices);
    enumerate_wall += std::chrono::duration<double>(Clock::now() - t0).count();
    enumerate_cpu += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    if (!e.ok()) {
      std::fprintf(stderr, "%s\n", std::string(e.status().message()).c_str());
      return 1;
    }
    for (const simulator::Candidate& c : e->candidates) same += !seen.insert(SameKey(c.plan)).second;
    const auto t1 = Clock::now();
    const std::clock_t c1 = std::clock();
    absl::StatusOr<simulator::Ranking> ranking =
        simulator::RankCandidates(model, devices, budget, e->candidates, e->skipped);
    rank_wall += std::chrono::duration<double>(Clock::now() - t1).count();
    rank_cpu += static_cast<double>(std::clock() - c1) / CLOCKS_PER_SEC;
    if (!ranking.ok()) {
      std::fprintf(stderr, "%s\n", std::string(ranking.status().message()).c_str());
      return 1;
    }
    ++calls;
    if (per_call) {
      std::printf("  %ld devices: %zu candidates, enumerated %.3f s, ranked %.3f s wall %.3f s CPU\n",
                  static_cast<long>(devices), e->candidates.size(),
                  std::chrono::duration<double>(t1 - t0).count(),
                  std::chrono::duration<double>(Clock::now() - t1).count(),
                  static_cast<double>(std::clock() - c1) / CLOCKS_PER_SEC);
    }
    total += e->candidates.size();
    fitting += ranking->fitting.size();
    over += ranking->over_budget.size();
    skipped += ranking->skipped.size();
  }
  const double n = static_cast<double>(total);
  std::printf("values %zu, instructions %zu, parameters %ld\n", g.program.values.size(),
              g.program.module.instruction_count(), static_cast<long>(g.parameters));
  std::printf("sweep: %zu rank calls (2 to %ld devices), %zu candidates, %zu the same as an "
              "earlier one (mesh sizes and every argument's sharding)\n",
              calls, static_cast<long>(max_devices), total, same);
  std::printf("enumerated in %.3f s wall, %.3f s CPU\n", enumerate_wall, enumerate_cpu);
  std::printf("ranked %zu candidates in %.3f s wall: %.1f candidates/s (%.2f ms each)\n", total,
              rank_wall, n / rank_wall, 1000.0 * rank_wall / n);
  std::printf("CPU time %.3f s: %.1f candidates/s of CPU (%.2f ms each)\n", rank_cpu,
              n / rank_cpu, 1000.0 * rank_cpu / n);
  std::printf("fitting %zu, over budget %zu, skipped %zu\n", fitting, over, skipped);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The CLI's allocator setting, so the figures are what `memplan` pays.
  ir::UseFixedMmapThreshold();
  const int64_t layers = bench::IntFlag(argc, argv, "--layers", 25000);
  const int64_t count = bench::IntFlag(argc, argv, "--candidates", 1000);
  using Clock = std::chrono::steady_clock;
  bench::Generated g = bench::GenerateResidualMlp(layers, 256, 512);
  absl::StatusOr<simulator::Hardware> hw = simulator::LoadHardware("h100");
  if (!hw.ok()) {
    std::fprintf(stderr, "%s\n", std::string(hw.status().message()).c_str());
    return 1;
  }
  simulator::PricingOptions options;
  options.predict.share_between_candidates = bench::IntFlag(argc, argv, "--share", 1) != 0;
  // --rerun=0: the kept single-device allocations (`--assigner=keep`).
  options.predict.reassign_output_allocations = bench::IntFlag(argc, argv, "--rerun", 1) != 0;
  const auto t0 = Clock::now();
  auto model = simulator::CostModel::Create(g.program, *hw, options);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", std::string(model.status().message()).c_str());
    return 1;
  }
  const auto t1 = Clock::now();
  if (bench::IntFlag(argc, argv, "--sweep", 0) != 0) {
    return RunSweep(g, **model, hw->hbm_bytes, bench::IntFlag(argc, argv, "--max-devices", 2048),
                    bench::IntFlag(argc, argv, "--per-call", 0) != 0);
  }
  // Candidates are built and ranked --batch at a time (a plan of the
  // default program is 2 MB: it keeps each distinct sharding once; with its
  // prediction a candidate holds about 4 MB while ranked, so --batch=1000
  // peaks near 4.7 GB); the times are of the rankings only.
  const int64_t batch = std::max<int64_t>(1, bench::IntFlag(argc, argv, "--batch", 100));
  const bool distinct = bench::IntFlag(argc, argv, "--distinct", 0) != 0;
  const int64_t total =
      distinct ? std::min<int64_t>(count, static_cast<int64_t>(bench::DistinctCandidateCount()))
               : count;
  double seconds = 0, cpu = 0;
  size_t fitting = 0, over = 0, skipped = 0;
  std::string chosen = "none";
  for (int64_t first = 0; first < total;) {
    std::vector<simulator::Candidate> candidates;
    int64_t devices = 8;
    int64_t k = first;
    if (distinct) {
      // The candidates of one device count.
      for (; k < total; ++k) {
        simulator::Candidate c;
        c.plan = bench::DistinctCandidate(static_cast<size_t>(k), g.parameters);
        c.family = "bench";
        if (!candidates.empty() && c.plan.mesh.device_count() != devices) break;
        devices = c.plan.mesh.device_count();
        candidates.push_back(std::move(c));
      }
    } else {
      for (; k < total && k < first + batch; ++k) {
        candidates.push_back(Make(static_cast<int>(k), g.parameters));
      }
    }
    const bool first_batch = first == 0;
    first = k;
    const auto t2 = Clock::now();
    const std::clock_t c2 = std::clock();
    absl::StatusOr<simulator::Ranking> ranking =
        simulator::RankCandidates(**model, devices, hw->hbm_bytes, candidates);
    seconds += std::chrono::duration<double>(Clock::now() - t2).count();
    cpu += static_cast<double>(std::clock() - c2) / CLOCKS_PER_SEC;
    if (!ranking.ok()) {
      std::fprintf(stderr, "%s\n", std::string(ranking.status().message()).c_str());
      return 1;
    }
    fitting += ranking->fitting.size();
    over += ranking->over_budget.size();
    skipped += ranking->skipped.size();
    if (first_batch && !ranking->fitting.empty()) chosen = ranking->fitting.front().label;
  }
  const double prepare = std::chrono::duration<double>(t1 - t0).count();
  std::printf("values %zu, instructions %zu, parameters %ld\n", g.program.values.size(),
              g.program.module.instruction_count(), static_cast<long>(g.parameters));
  std::printf("prepare (once per program) %.3f s\n", prepare);
  std::printf("ranked %ld candidates in %.3f s: %.1f candidates/s (%.2f ms each)\n",
              static_cast<long>(total), seconds, static_cast<double>(total) / seconds,
              1000.0 * seconds / static_cast<double>(total));
  std::printf("CPU time %.3f s: %.1f candidates/s of CPU (%.2f ms each)\n", cpu,
              static_cast<double>(total) / cpu, 1000.0 * cpu / static_cast<double>(total));
  std::printf("fitting %zu, over budget %zu, skipped %zu; chosen (first batch) %s\n", fitting,
              over, skipped, chosen.c_str());
  return 0;
}
