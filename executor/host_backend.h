// The host backend: the plan's memory in host RAM, GEMMs on the CPU, and
// collectives through MPI (nonblocking, polled against a deadline), so that
// replays and their orchestration run and are tested on any machine.
//
// It emulates a device of a given capacity: QueryMemory reports what is
// left of it, and an allocation past it fails as a device's would.
#ifndef MEMPLAN_EXECUTOR_HOST_BACKEND_H_
#define MEMPLAN_EXECUTOR_HOST_BACKEND_H_

#include <cstdint>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "executor/backend.h"
#include "executor/mpi_session.h"

namespace memplan::executor {

struct HostBackendOptions {
  // The emulated device's memory. 0: the host's available memory
  // (MemAvailable in /proc/meminfo) shared equally among its ranks.
  int64_t device_memory_bytes = 0;
};

// Host memory available to this process's rank (see
// HostBackendOptions::device_memory_bytes); 0 when unknown.
int64_t DefaultHostDeviceMemory(int ranks_on_host);

class HostBackend : public Backend {
 public:
  // `session` must outlive the backend.
  HostBackend(MpiSession& session, const HostBackendOptions& options);
  ~HostBackend() override;

  std::string Name() const override { return "host"; }
  std::string DeviceDescription() const override;
  absl::StatusOr<DeviceMemoryInfo> QueryMemory() override;
  absl::Status Connect(const std::vector<std::vector<int>>& groups, double timeout_seconds) override;
  absl::StatusOr<void*> Allocate(int64_t bytes, MemoryPool pool) override;
  absl::Status Free(void* ptr) override;
  absl::Status Touch(void* ptr, int64_t bytes) override;
  absl::Status CopyToDevice(void* device, const void* host, int64_t bytes) override;
  absl::Status CopyToHost(void* host, const void* device, int64_t bytes) override;
  absl::StatusOr<double> Gemm(const GemmOp& gemm, const void* a, const void* b, void* c,
                              double timeout_seconds) override;
  absl::StatusOr<double> Collective(const CollectiveCall& call) override;
  absl::Status Synchronize(double timeout_seconds) override { return absl::OkStatus(); }
  MemoryMeasurement Measure() override;

 private:
  absl::Status RunCollectiveOnce(const CollectiveCall& call);

  MpiSession& session_;
  int64_t capacity_ = 0;
  struct Block {
    int64_t bytes = 0;
    bool plan = false;
  };
  absl::flat_hash_map<void*, Block> blocks_;
  int64_t plan_in_use_ = 0;
  int64_t plan_peak_ = 0;
  int64_t scratch_in_use_ = 0;
  int64_t scratch_peak_ = 0;
  std::vector<std::vector<int>> groups_;
  std::vector<MPI_Comm> comms_;  // per group; MPI_COMM_NULL when not a member or without MPI
  MPI_Op half_sum_ = MPI_OP_NULL;
  MPI_Op bfloat16_sum_ = MPI_OP_NULL;
};

// C = A B for column-major A (m x k), B (k x n), C (m x n) of `gemm`'s
// types, computed in float for f32/f16/bf16 inputs, double for f64 and
// int32 for s8/u8 (others: FailedPrecondition). Runs gemm.count times.
absl::Status HostGemm(const GemmOp& gemm, const void* a, const void* b, void* c);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_HOST_BACKEND_H_
