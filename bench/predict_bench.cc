// Prediction throughput: candidates per second on one large program.
//
// Builds, in memory, a single-device program of --layers residual MLP
// layers (per layer: a weight parameter [D, D], a dot, an add and a
// maximum; one buffer-assignment value per instruction with live ranges in
// a preallocated temp arena), 4 values per layer, and predicts a rotating
// set of candidates (dp8, tp8 column, tp8 row, dp2 x tp4, fsdp8, replicated)
// over it, the per-program work (Predictor::Create) done once. Candidates
// of one sharding share their propagation and memory model (the first one
// computes them; predictor/shared_predictions.h), so the figures split the
// first of each sharding from the repeats. --distinct=1 predicts instead
// bench::DistinctCandidates (76 meshes from 8 to 1024 devices, none
// sharing work with another: each one computed); --share=0 computes every
// candidate (PredictOptions::share_between_candidates off). Candidates are
// also counted by how they were answered: same sizes and shardings as an
// earlier one, same structure with other sizes (propagation shared), or
// computed.
//   build/bench/predict_bench [--layers=25000] [--candidates=200] [--only=K]
//                             [--distinct=0] [--share=1] [--rerun=1]
// prints values, instructions, the one-time preparation, the bytes a plan
// holds, and candidates/s.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ir/malloc_settings.h"
#include "ir/plan.h"
#include "ir/program.h"
#include "predictor/predict.h"
#include "bench/synthetic_program.h"

namespace {

using namespace memplan;

// Bytes in use on the heap (small blocks and mmapped ones).
size_t HeapBytes() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  // The CLI's allocator setting, so the figures are what `memplan` pays.
  ir::UseFixedMmapThreshold();
  const int64_t layers = bench::IntFlag(argc, argv, "--layers", 25000);
  const int64_t count = bench::IntFlag(argc, argv, "--candidates", 200);
  // --only=K predicts candidate K of the rotation every time (profiling).
  const int64_t only = bench::IntFlag(argc, argv, "--only", -1);
  const bool distinct = bench::IntFlag(argc, argv, "--distinct", 0) != 0;
  predictor::PredictOptions options;
  options.share_between_candidates = bench::IntFlag(argc, argv, "--share", 1) != 0;
  // --rerun=0: the kept single-device allocations (`--assigner=keep`).
  options.reassign_output_allocations = bench::IntFlag(argc, argv, "--rerun", 1) != 0;
  using Clock = std::chrono::steady_clock;
  bench::Generated g = bench::GenerateResidualMlp(layers, 256, 512);
  const auto t0 = Clock::now();
  auto predictor = predictor::Predictor::Create(g.program, options);
  if (!predictor.ok()) {
    std::fprintf(stderr, "%s\n", std::string(predictor.status().message()).c_str());
    return 1;
  }
  const auto t1 = Clock::now();
  std::vector<ir::ResolvedPlan> plans;
  const size_t heap_before = HeapBytes();
  if (distinct) {
    const size_t limit = static_cast<size_t>(std::max<int64_t>(count, 1));
    plans = bench::DistinctCandidates(g.parameters, limit);
  } else {
    for (int k = 0; k < 6; ++k) plans.push_back(bench::RotationCandidate(k, g.parameters));
  }
  const size_t kinds = plans.size();
  // What the plans hold on the heap (their vectors, strings and tables).
  const double plan_bytes =
      static_cast<double>(HeapBytes() - heap_before) / static_cast<double>(kinds);
  int64_t checksum = 0;
  const auto t2 = Clock::now();
  const std::clock_t c2 = std::clock();
  std::vector<double> per_kind(kinds, 0.0);
  double first_cpu = 0, repeat_cpu = 0;
  int64_t firsts = 0;
  // CPU by how the candidate was answered: same sizes, same structure, computed.
  double how_cpu[3] = {0, 0, 0};
  int64_t how_count[3] = {0, 0, 0};
  for (int64_t c = 0; c < count; ++c) {
    const size_t kind = static_cast<size_t>(only >= 0 ? only : c % static_cast<int64_t>(kinds));
    const double tc = ThreadCpuSeconds();
    const predictor::Predictor::SharingCounts before = (*predictor)->sharing_counts();
    auto prediction = (*predictor)->Predict(plans[kind]);
    const double spent = ThreadCpuSeconds() - tc;
    const predictor::Predictor::SharingCounts after = (*predictor)->sharing_counts();
    const int how = after.same_sizes > before.same_sizes         ? 0
                    : after.same_structure > before.same_structure ? 1
                                                                   : 2;
    how_cpu[how] += spent;
    ++how_count[how];
    per_kind[kind] += spent;
    if (c < static_cast<int64_t>(kinds) && only < 0) {
      first_cpu += spent;
      ++firsts;
    } else {
      repeat_cpu += spent;
    }
    if (!prediction.ok()) {
      std::fprintf(stderr, "%s\n", std::string(prediction.status().message()).c_str());
      return 1;
    }
    checksum += prediction->max_device_footprint_bytes;
  }
  const auto t3 = Clock::now();
  const double cpu = static_cast<double>(std::clock() - c2) / CLOCKS_PER_SEC;
  const double prepare = std::chrono::duration<double>(t1 - t0).count();
  const double seconds = std::chrono::duration<double>(t3 - t2).count();
  std::printf("values %zu, instructions %zu, parameters %ld\n", g.program.values.size(),
              g.program.module.instruction_count(), static_cast<long>(g.parameters));
  std::printf("prepare (once per program) %.3f s\n", prepare);
  std::printf("plans: %.0f bytes each on the heap (%.1f per argument)\n", plan_bytes,
              plan_bytes / static_cast<double>(g.parameters));
  std::printf("candidates %ld in %.3f s: %.1f candidates/s (%.2f ms each); checksum %ld\n",
              static_cast<long>(count), seconds, static_cast<double>(count) / seconds,
              1000.0 * seconds / static_cast<double>(count), static_cast<long>(checksum));
  // On a shared machine wall time counts other processes' turns too.
  std::printf("CPU time %.3f s: %.1f candidates/s of CPU (%.2f ms each)\n", cpu,
              static_cast<double>(count) / cpu, 1000.0 * cpu / static_cast<double>(count));
  if (firsts > 0) {
    std::printf("first of each of the %ld shardings: %.2f ms of CPU each (%.1f/s)\n",
                static_cast<long>(firsts), 1000.0 * first_cpu / static_cast<double>(firsts),
                static_cast<double>(firsts) / first_cpu);
  }
  if (count > firsts) {
    const double n = static_cast<double>(count - firsts);
    std::printf("the %ld repeats%s: %.3f ms of CPU each (%.1f/s)\n",
                static_cast<long>(count - firsts),
                options.share_between_candidates ? " (work shared)" : "", 1000.0 * repeat_cpu / n,
                n / repeat_cpu);
  }
  const char* how_names[3] = {"same sizes and shardings as an earlier one",
                              "same structure, other sizes (propagation shared)",
                              "computed"};
  for (int h = 0; h < 3; ++h) {
    if (how_count[h] == 0) continue;
    std::printf("%s: %ld, %.2f ms of CPU each\n", how_names[h], static_cast<long>(how_count[h]),
                1000.0 * how_cpu[h] / static_cast<double>(how_count[h]));
  }
  if (how_count[1] > 0) {
    std::printf("  of which temp arena scaled from an earlier packing: %ld\n",
                static_cast<long>((*predictor)->sharing_counts().packing_scaled));
  }
  for (size_t k = 0; k < kinds && static_cast<int64_t>(k) < count && only < 0 && !distinct; ++k) {
    const int64_t n = (count - static_cast<int64_t>(k) + static_cast<int64_t>(kinds) - 1) /
                      static_cast<int64_t>(kinds);
    std::printf("  %-10s %.2f ms of CPU each\n", plans[k].label.c_str(),
                1000.0 * per_kind[k] / static_cast<double>(n));
  }
  return 0;
}
