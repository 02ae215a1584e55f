// Prediction throughput: candidates per second on one large program.
//
// Builds, in memory, a single-device program of --layers residual MLP
// layers (per layer: a weight parameter [D, D], a dot, an add and a
// maximum; one buffer-assignment value per instruction with live ranges in
// a preallocated temp arena), 4 values per layer, and predicts a rotating
// set of candidates (dp8, tp8 column, tp8 row, dp2 x tp4, fsdp8, replicated)
// over it, the per-program work (Predictor::Create) done once.
//   build/bench/predict_bench [--layers=25000] [--candidates=200] [--only=K]
// prints values, instructions, the one-time preparation and candidates/s.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ir/plan.h"
#include "ir/program.h"
#include "predictor/predict.h"
#include "bench/synthetic_program.h"

namespace {

using namespace memplan;

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t layers = bench::IntFlag(argc, argv, "--layers", 25000);
  const int64_t count = bench::IntFlag(argc, argv, "--candidates", 200);
  // --only=K predicts candidate K of the rotation every time (profiling).
  const int64_t only = bench::IntFlag(argc, argv, "--only", -1);
  using Clock = std::chrono::steady_clock;
  bench::Generated g = bench::GenerateResidualMlp(layers, 256, 512);
  const auto t0 = Clock::now();
  auto predictor = predictor::Predictor::Create(g.program);
  if (!predictor.ok()) {
    std::fprintf(stderr, "%s\n", std::string(predictor.status().message()).c_str());
    return 1;
  }
  const auto t1 = Clock::now();
  std::vector<ir::ResolvedPlan> plans;
  for (int k = 0; k < 6; ++k) plans.push_back(bench::RotationCandidate(k, g.parameters));
  int64_t checksum = 0;
  const auto t2 = Clock::now();
  const std::clock_t c2 = std::clock();
  std::vector<double> per_kind(6, 0.0);
  for (int64_t c = 0; c < count; ++c) {
    const double tc = ThreadCpuSeconds();
    auto prediction = (*predictor)->Predict(plans[static_cast<size_t>(only >= 0 ? only : c % 6)]);
    per_kind[static_cast<size_t>(only >= 0 ? only : c % 6)] += ThreadCpuSeconds() - tc;
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
  std::printf("candidates %ld in %.3f s: %.1f candidates/s (%.2f ms each); checksum %ld\n",
              static_cast<long>(count), seconds, static_cast<double>(count) / seconds,
              1000.0 * seconds / static_cast<double>(count), static_cast<long>(checksum));
  // On a shared machine wall time counts other processes' turns too.
  std::printf("CPU time %.3f s: %.1f candidates/s of CPU (%.2f ms each)\n", cpu,
              static_cast<double>(count) / cpu, 1000.0 * cpu / static_cast<double>(count));
  for (int k = 0; k < 6 && k < count && only < 0; ++k) {
    const int64_t n = (count - k + 5) / 6;
    std::printf("  %-10s %.2f ms of CPU each\n", plans[static_cast<size_t>(k)].label.c_str(),
                1000.0 * per_kind[static_cast<size_t>(k)] / static_cast<double>(n));
  }
  return 0;
}
