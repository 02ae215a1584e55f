// The CUDA + NCCL backend lives in its own shared module
// (libmemplan_cuda.so, built when CMake finds the CUDA toolkit, cuBLAS and
// NCCL), loaded only when a command asks for it: `memplan` itself neither
// needs CUDA's libraries to start nor pays for loading them.
#ifndef MEMPLAN_EXECUTOR_CUDA_BACKEND_LOADER_H_
#define MEMPLAN_EXECUTOR_CUDA_BACKEND_LOADER_H_

#include <cstddef>
#include <memory>

#include "absl/status/statusor.h"
#include "executor/backend.h"
#include "executor/coordinator.h"

namespace memplan::executor {

struct CudaBackendOptions {
  // The GPU to use; -1: the coordinator's local rank modulo the number of
  // visible GPUs (one process per GPU).
  int device = -1;
};

// Loads the module and makes the backend. FailedPrecondition, with a
// sentence saying what is missing, when the module was not built, cannot
// be loaded (e.g. libcudart or libnccl absent), or finds no usable GPU or
// driver. The module is found at $MEMPLAN_CUDA_BACKEND, else beside the
// running executable, else where the build put it.
absl::StatusOr<std::unique_ptr<Backend>> LoadCudaBackend(Coordinator& coordinator,
                                                         const CudaBackendOptions& options);

// The module's entry point (C linkage, looked up by name). Returns 0 and
// sets *backend on success; else writes a message to `error`.
inline constexpr int kCudaBackendAbiVersion = 1;
inline constexpr const char* kCudaBackendEntryPoint = "memplan_create_cuda_backend";
using CreateCudaBackendFunction = int (*)(int abi_version, Coordinator* coordinator,
                                          const CudaBackendOptions* options, Backend** backend,
                                          char* error, size_t error_size);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_CUDA_BACKEND_LOADER_H_
