// Inside the CUDA + NCCL backend module (libmemplan_cuda.so): the backend
// class that cuda_backend.cc (device, memory, cuBLAS) and
// cuda_collectives.cc (NCCL) implement. Only the module includes this.
#ifndef MEMPLAN_EXECUTOR_CUDA_BACKEND_H_
#define MEMPLAN_EXECUTOR_CUDA_BACKEND_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <sched.h>

#include <chrono>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "executor/backend.h"
#include "executor/coordinator.h"
#include "executor/cuda_backend_loader.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::executor {

using CudaClock = std::chrono::steady_clock;

// A CUDA runtime error as a Status (ResourceExhausted for out of memory);
// clears the error so that later calls can go on.
absl::Status CudaStatus(cudaError_t code, std::string_view what);
// NCCL's message for `code`, with the communicator's last error.
std::string NcclMessage(ncclResult_t code, ncclComm_t comm);

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(Coordinator& coordinator) : coordinator_(coordinator) {}
  ~CudaBackend() override;

  absl::Status Start(const CudaBackendOptions& options);

  std::string Name() const override { return "cuda"; }
  std::string DeviceDescription() const override { return description_; }
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
  absl::Status Synchronize(double timeout_seconds) override;
  MemoryMeasurement Measure() override;

 private:
  // Polls until `ready` says done, watching `comms` for asynchronous NCCL
  // errors; aborts every communicator on an error or at the deadline.
  template <typename Ready>
  absl::Status Poll(Ready ready, const std::vector<ncclComm_t>& comms, double timeout_seconds,
                    std::string_view what);
  // Waits until `comm` has finished enqueueing (nonblocking communicators
  // may answer ncclInProgress).
  absl::Status Enqueued(ncclResult_t result, ncclComm_t comm, double timeout_seconds, std::string_view what);
  absl::Status WaitEvent(cudaEvent_t event, const std::vector<ncclComm_t>& comms, double timeout_seconds,
                         std::string_view what);
  absl::StatusOr<double> ElapsedSeconds();
  void AbortAll();
  void SampleFreeMemory();
  absl::Status LaunchCollective(const CollectiveCall& call, ncclComm_t comm, const void* input);

  Coordinator& coordinator_;
  int device_ = 0;
  std::string description_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cudaMemPool_t pool_ = nullptr;
  bool pool_used_ = false;
  std::vector<std::vector<int>> groups_;
  std::vector<ncclComm_t> comms_;  // per group; nullptr where not a member
  bool aborted_ = false;

  struct Block {
    int64_t bytes = 0;
    MemoryPool pool = MemoryPool::kScratch;
  };
  absl::flat_hash_map<void*, Block> blocks_;
  // GEMM shapes (m, n, k, A/B type, C type) already run once untimed.
  absl::flat_hash_set<std::tuple<int64_t, int64_t, int64_t, int, int>> warmed_gemms_;
  int64_t plan_in_use_ = 0;
  int64_t plan_peak_ = 0;
  int64_t scratch_in_use_ = 0;
  int64_t scratch_peak_ = 0;
  int64_t free_min_ = -1;
};

template <typename Ready>
absl::Status CudaBackend::Poll(Ready ready, const std::vector<ncclComm_t>& comms, double timeout_seconds,
                               std::string_view what) {
  const auto deadline = CudaClock::now() + std::chrono::duration<double>(timeout_seconds);
  for (int polls = 0;; ++polls) {
    // Errors first: a communicator that failed is not "done".
    for (ncclComm_t comm : comms) {
      ncclResult_t state = ncclSuccess;
      ncclCommGetAsyncError(comm, &state);
      if (state != ncclSuccess && state != ncclInProgress) {
        const std::string message = NcclMessage(state, comm);
        AbortAll();
        return absl::InternalError(StrCat(what, ": NCCL: ", message));
      }
    }
    ASSIGN_OR_RETURN(bool done, ready());
    if (done) return absl::OkStatus();
    if (CudaClock::now() > deadline) {
      AbortAll();
      return absl::DeadlineExceededError(StrCat(what, " did not complete within ", timeout_seconds,
                                                " s (a rank of its group failed or is stuck); the "
                                                "communicators were aborted"));
    }
    if (polls > 1000) sched_yield();
  }
}

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_CUDA_BACKEND_H_
