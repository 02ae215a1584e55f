// One interface over the machines a plan replays on: allocate, free, touch,
// GEMM, collective, synchronize, measure. Two implementations: host memory
// with MPI collectives (executor/host_backend.h), and CUDA with cuBLAS and
// NCCL (executor/cuda_backend.cc, loaded at run time by
// executor/cuda_backend_loader.h).
//
// Every method is called from one thread. Device pointers are opaque to the
// caller except through CopyToDevice / CopyToHost.
#ifndef MEMPLAN_EXECUTOR_BACKEND_H_
#define MEMPLAN_EXECUTOR_BACKEND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "executor/plan.h"
#include "executor/wire_types.h"

namespace memplan::executor {

// What the device says about its memory now.
struct DeviceMemoryInfo {
  int64_t free_bytes = 0;
  int64_t total_bytes = 0;
};

// Where an allocation comes from, and what its bytes count towards.
enum class MemoryPool {
  kArena,    // the plan's one block (one plain allocation); counts as plan
  kPlan,     // one buffer of the plan (a pool allocation); counts as plan
  kScratch,  // the executor's own operands; counted apart from the plan
};

// What the backend measured since it was made.
struct MemoryMeasurement {
  // High-water mark of bytes held in kArena and kPlan allocations, as the
  // backend's allocator accounts them (the pool's used-memory high-water
  // mark where the device keeps one).
  int64_t plan_peak_bytes = 0;
  int64_t scratch_peak_bytes = 0;
  // Device memory the allocator reserved at its high-water mark (a pool's
  // reserved high-water mark), where known.
  std::optional<int64_t> reserved_peak_bytes;
  // The lowest free device memory seen after an allocation, where known.
  std::optional<int64_t> free_min_bytes;
  // Free device memory now (after the replay gave its memory back), where
  // known: compared with the free memory before, it shows what stayed.
  std::optional<int64_t> free_now_bytes;
};

// One collective call. `bytes` is nccl-tests' size S (see CollectiveOp);
// buffers hold the wire type's elements: input InputElements, output
// OutputElements (executor/collective_data.h) of them.
struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  WireType type = WireType::kF32;
  int64_t bytes = 0;
  int group_index = 0;  // into the groups given to Connect
  const void* input = nullptr;
  void* output = nullptr;
  int iterations = 1;  // run back to back; the result is seconds per iteration
  double timeout_seconds = 60;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string Name() const = 0;  // "host", "cuda"
  // The device, in words ("NVIDIA H100 80GB HBM3 (device 0)").
  virtual std::string DeviceDescription() const = 0;

  virtual absl::StatusOr<DeviceMemoryInfo> QueryMemory() = 0;

  // Makes a communicator for each group (global ranks, their order numbering
  // them within the group). Every rank calls it with the same list; a rank
  // outside a group gets no communicator for it.
  virtual absl::Status Connect(const std::vector<std::vector<int>>& groups, double timeout_seconds) = 0;

  // ResourceExhausted when the device cannot give `bytes`.
  virtual absl::StatusOr<void*> Allocate(int64_t bytes, MemoryPool pool) = 0;
  virtual absl::Status Free(void* ptr) = 0;
  // Writes every byte, so that the memory is really committed.
  virtual absl::Status Touch(void* ptr, int64_t bytes) = 0;
  virtual absl::Status CopyToDevice(void* device, const void* host, int64_t bytes) = 0;
  virtual absl::Status CopyToHost(void* host, const void* device, int64_t bytes) = 0;

  // Runs gemm.count GEMMs C = A B (column-major, no transposes); returns the
  // seconds they took together. DeadlineExceeded after `timeout_seconds`.
  // A backend whose first GEMM of a shape pays a one-time cost (the CUDA
  // backend: cuBLAS's algorithm choice, lazy kernel loading) runs that shape
  // once, untimed, before the first timed ones.
  virtual absl::StatusOr<double> Gemm(const GemmOp& gemm, const void* a, const void* b, void* c,
                                      double timeout_seconds) = 0;
  // Runs the collective; returns seconds per iteration. DeadlineExceeded
  // when the group does not complete it within call.timeout_seconds (the
  // communicators are then unusable).
  virtual absl::StatusOr<double> Collective(const CollectiveCall& call) = 0;

  // Waits for everything issued; DeadlineExceeded after `timeout_seconds`.
  virtual absl::Status Synchronize(double timeout_seconds) = 0;
  virtual MemoryMeasurement Measure() = 0;
};

// Groups split into layers of disjoint groups, so that a layer's
// communicators come from one collective split: layers[l] lists indices into
// `groups`, increasing. First fit, in the groups' order.
inline std::vector<std::vector<int>> DisjointLayers(const std::vector<std::vector<int>>& groups) {
  std::vector<std::vector<int>> layers;
  std::vector<std::vector<int>> used;  // ranks taken, per layer (sorted)
  for (size_t g = 0; g < groups.size(); ++g) {
    size_t l = 0;
    for (; l < layers.size(); ++l) {
      bool clash = false;
      for (int member : groups[g]) {
        for (int taken : used[l]) clash = clash || taken == member;
      }
      if (!clash) break;
    }
    if (l == layers.size()) {
      layers.emplace_back();
      used.emplace_back();
    }
    layers[l].push_back(static_cast<int>(g));
    used[l].insert(used[l].end(), groups[g].begin(), groups[g].end());
  }
  return layers;
}

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_BACKEND_H_
