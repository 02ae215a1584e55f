// A large single-device program built in memory, for the prediction and
// ranking benchmarks: --layers residual MLP layers (per layer: a weight
// parameter f32[width, width], a dot, an add and a maximum), one
// buffer-assignment value per instruction with live ranges in one
// preallocated temp arena (parameters in allocations of their own): 4
// values per layer, plus the data parameter f32[batch, width].
#ifndef MEMPLAN_BENCH_SYNTHETIC_PROGRAM_H_
#define MEMPLAN_BENCH_SYNTHETIC_PROGRAM_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/plan.h"
#include "ir/program.h"

namespace memplan::bench {

struct Generated {
  ir::Program program;
  int64_t parameters = 0;  // entry parameters: the data (0), then one weight per layer
};

Generated GenerateResidualMlp(int64_t layers, int64_t batch, int64_t width);

// `branches` independent dots of one input x f32[batch, width] by their own
// weight f32[width, width], folded one after another by maximum (not
// linear, so each dot's partial sum is reduced where it is read): under
// weights split on their rows (tp row), every dot is a partial sum none of
// the others depends on.
Generated GenerateFanIn(int64_t branches, int64_t batch, int64_t width);

// Candidate k % 6 of predict_bench's rotation over GenerateResidualMlp's
// parameters (0: the data, then the weights): dp8, tp8 column, tp8 row,
// dp2 x tp4, fsdp8, replicated.
ir::ResolvedPlan RotationCandidate(int k, int64_t parameters);

// Sharding `kind` (the rotation's order) over meshes of other sizes: dp
// `outer`, tp `tp` column or row, dp `outer` x tp `tp`, fsdp `outer`,
// replicated; labelled by mesh ("dp4_tp256").
ir::ResolvedPlan ScaledCandidate(int kind, int64_t outer, int64_t tp, int64_t parameters);

// Candidates no two of which share work: for every power of two N from 8 to
// 1024, dp N, tp N column and row, fsdp N and every dp a x tp b with
// a b = N (a, b >= 2): the meshes `rank --devices N` enumerates for the
// families dp, tp, fsdp and dp+tp, over 8 device counts (76 candidates;
// the first `limit`: a plan holds a sharding per parameter).
std::vector<ir::ResolvedPlan> DistinctCandidates(int64_t parameters, size_t limit = 76);
// How many there are (76), and the k-th alone.
size_t DistinctCandidateCount();
ir::ResolvedPlan DistinctCandidate(size_t k, int64_t parameters);

// The value of "--name=N" among the benchmark's arguments, else `fallback`.
int64_t IntFlag(int argc, char** argv, const char* name, int64_t fallback);

}  // namespace memplan::bench

#endif  // MEMPLAN_BENCH_SYNTHETIC_PROGRAM_H_
