// The executor's plan: what each rank allocates, when, and which GEMMs and
// collectives it runs in schedule order, with the predictions to hold the
// measurements against. Read from JSON (executor/plan_json.h, schema in
// docs/executor-plan.md) or made from a buffer assignment
// (executor/program_plan.h).
//
// Sizes are bytes, times seconds, steps positions in the rank's schedule
// (both ends of a live range inclusive, as HloLiveRange's).
#ifndef MEMPLAN_EXECUTOR_PLAN_H_
#define MEMPLAN_EXECUTOR_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"

namespace memplan::executor {

inline constexpr std::string_view kPlanSchema = "memplan.executor-plan.v1";

// A buffer the rank holds from step `start` to step `end`, both inclusive.
struct PlanBuffer {
  int64_t id = 0;  // unique within the rank
  int64_t bytes = 0;
  int64_t start = 0;
  int64_t end = 0;
  // Offset in the rank's arena, when the plan places buffers in one block.
  std::optional<int64_t> offset;
};

// `count` GEMMs C[m,n] = A[m,k] * B[k,n] run back to back.
struct GemmOp {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  ir::DType dtype = ir::DType::kF32;      // of A and B
  ir::DType out_dtype = ir::DType::kF32;  // of C
  int64_t count = 1;
  // Buffers holding A, B and C, when the plan names them; else the
  // executor provides scratch memory outside the plan's peak.
  std::optional<int64_t> a, b, c;
};

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kSendRecv };
inline constexpr int kNumCollectiveKinds = 5;

// The names plans, reports and `memplan calibrate` use: "all_reduce",
// "all_gather", "reduce_scatter", "all_to_all", "send_recv".
std::string_view CollectiveName(CollectiveKind kind);
std::optional<CollectiveKind> CollectiveFromName(std::string_view name);

// One collective over `group` (global ranks, in the order that numbers them
// within the group). `bytes` is nccl-tests' size S: the buffer of an
// all-reduce; the gathered output of an all-gather; the input of a
// reduce-scatter; what each rank sends in all (and receives) in an
// all-to-all; what each rank sends to the next rank of the group (and
// receives from the previous one) in a send/recv.
struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int64_t bytes = 0;
  ir::DType dtype = ir::DType::kF32;
  std::vector<int> group;
  // Input and output buffers, when the plan names them (the same id for an
  // in-place collective); else the executor provides scratch memory.
  std::optional<int64_t> input, output;
};

struct PlanOp {
  enum class Kind { kGemm, kCollective };
  Kind kind = Kind::kGemm;
  int64_t step = 0;
  GemmOp gemm;              // when kGemm
  CollectiveOp collective;  // when kCollective
  std::optional<double> predicted_seconds;
  std::string label;  // optional, for reports (e.g. the instruction)
};

struct RankPlan {
  int rank = 0;
  // Size of the one block the buffers' offsets point into, when they have
  // offsets.
  std::optional<int64_t> arena_bytes;
  // What the plan's maker predicts this rank's peak to be; the executor
  // measures against it. When absent, the plan's own peak (PlanPeakBytes).
  std::optional<int64_t> planned_peak_bytes;
  std::optional<double> predicted_step_seconds;
  std::vector<PlanBuffer> buffers;  // sorted by id
  std::vector<PlanOp> ops;          // schedule order (steps non-decreasing)
};

struct ExecutorPlan {
  std::string name;    // optional
  std::string source;  // what made it (a file, a command), optional
  std::vector<RankPlan> ranks;  // ranks[i].rank == i
  // Sentences the maker wants shown (e.g. "values without a live range were
  // left out").
  std::vector<std::string> notes;
};

// How a rank's buffers are replayed.
enum class AllocationMode {
  // One block of arena_bytes, buffers at their offsets.
  kArena,
  // Each buffer allocated when its live range starts and freed after it
  // ends, through the backend's allocator.
  kPool,
};
std::string_view AllocationModeName(AllocationMode mode);

// Arena mode when the rank has an arena (every buffer has an offset), else
// pool mode.
AllocationMode DefaultAllocationMode(const RankPlan& rank);

// The most bytes of buffers live at one step: the high-water mark a pool
// replay reaches on an allocator that adds nothing.
int64_t PoolPeakBytes(const RankPlan& rank);

// The arena's size: arena_bytes, or else the end of the furthest buffer.
int64_t ArenaBytes(const RankPlan& rank);

// The peak the plan itself implies in `mode`.
int64_t PlanPeakBytes(const RankPlan& rank, AllocationMode mode);

// The peak the measurement is held against: planned_peak_bytes when the plan
// states it, else PlanPeakBytes.
int64_t PlannedPeakBytes(const RankPlan& rank, AllocationMode mode);

// The last step anything happens at (-1 for an empty rank).
int64_t LastStep(const RankPlan& rank);

const PlanBuffer* FindBuffer(const RankPlan& rank, int64_t id);

// Bytes a collective reads and writes on each rank of its group (see
// CollectiveOp::bytes).
int64_t CollectiveInputBytes(const CollectiveOp& op);
int64_t CollectiveOutputBytes(const CollectiveOp& op);

// Bytes of operand 'a', 'b' or 'c' of one GEMM.
int64_t GemmOperandBytes(const GemmOp& op, char operand);

// Scratch memory an op needs for the operands the plan does not bind to its
// buffers, and the most any op of the rank needs at once.
int64_t ScratchBytes(const PlanOp& op);
int64_t MaxScratchBytes(const RankPlan& rank);

// Every distinct group of the plan's collectives, sorted: the communicators
// a replay needs. Every rank computes the same list.
std::vector<std::vector<int>> CollectiveGroups(const ExecutorPlan& plan);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_PLAN_H_
