// The CUDA + NCCL backend, built as the module libmemplan_cuda.so
// (executor/cuda_backend_loader.h loads it). One process per GPU. Plan
// memory comes from one cudaMalloc (arena mode) or from a CUDA memory pool
// through cudaMallocFromPoolAsync (pool mode), whose used and reserved
// high-water marks it reports; GEMMs run in cuBLAS, collectives in NCCL,
// both timed with CUDA events on one stream.
//
// Communicators are nonblocking (ncclConfig_t::blocking = 0): every NCCL
// call and every wait is polled against a deadline while watching
// ncclCommGetAsyncError, and a timeout aborts the communicators
// (ncclCommAbort) instead of hanging.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "executor/cuda_backend.h"

namespace memplan::executor {

absl::Status CudaStatus(cudaError_t code, std::string_view what) {
  if (code == cudaSuccess) return absl::OkStatus();
  cudaGetLastError();  // clear a non-sticky error so later calls can go on
  const std::string message = StrCat(what, ": ", cudaGetErrorName(code), ": ", cudaGetErrorString(code));
  if (code == cudaErrorMemoryAllocation) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

namespace {

absl::Status CublasStatus(cublasStatus_t code, std::string_view what) {
  if (code == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  const std::string message = StrCat(what, ": cuBLAS status ", static_cast<int>(code));
  if (code == CUBLAS_STATUS_ALLOC_FAILED) return absl::ResourceExhaustedError(message);
  if (code == CUBLAS_STATUS_NOT_SUPPORTED || code == CUBLAS_STATUS_INVALID_VALUE) {
    return absl::FailedPreconditionError(message);
  }
  return absl::InternalError(message);
}

// cuBLAS types of a GEMM: A/B, C, compute; nullopt-like `ok` false when
// cublasGemmEx has no such combination.
struct GemmTypes {
  bool ok = false;
  cudaDataType_t ab = CUDA_R_32F;
  cudaDataType_t c = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};

bool CudaRealType(ir::DType dtype, cudaDataType_t* out) {
  switch (dtype) {
    case ir::DType::kF32: *out = CUDA_R_32F; return true;
    case ir::DType::kF64: *out = CUDA_R_64F; return true;
    case ir::DType::kF16: *out = CUDA_R_16F; return true;
    case ir::DType::kBF16: *out = CUDA_R_16BF; return true;
    case ir::DType::kS8: *out = CUDA_R_8I; return true;
    case ir::DType::kS32: *out = CUDA_R_32I; return true;
    default: return false;
  }
}

GemmTypes TypesOf(const GemmOp& g) {
  GemmTypes t;
  if (!CudaRealType(g.dtype, &t.ab) || !CudaRealType(g.out_dtype, &t.c)) return t;
  switch (g.dtype) {
    case ir::DType::kF64:
      t.compute = CUBLAS_COMPUTE_64F;
      t.ok = g.out_dtype == ir::DType::kF64;
      break;
    case ir::DType::kF32:
      t.ok = g.out_dtype == ir::DType::kF32;
      break;
    case ir::DType::kF16:
    case ir::DType::kBF16:
      t.ok = g.out_dtype == g.dtype || g.out_dtype == ir::DType::kF32;
      break;
    case ir::DType::kS8:
      t.compute = CUBLAS_COMPUTE_32I;
      t.ok = g.out_dtype == ir::DType::kS32;
      break;
    default:
      break;
  }
  return t;
}

}  // namespace

absl::Status CudaBackend::Start(const CudaBackendOptions& options) {
  int count = 0;
  const cudaError_t found = cudaGetDeviceCount(&count);
  if (found != cudaSuccess) {
    cudaGetLastError();
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    std::string why = "the CUDA runtime cannot use a GPU";
    if (found == cudaErrorInsufficientDriver) {
      why = StrCat("no NVIDIA driver, or one older than this CUDA runtime (", runtime / 1000, ".",
                   (runtime % 1000) / 10, ")");
    } else if (found == cudaErrorNoDevice) {
      why = "no CUDA GPU is visible to this process (check CUDA_VISIBLE_DEVICES)";
    }
    return absl::FailedPreconditionError(
        StrCat(why, " (cudaGetDeviceCount: ", cudaGetErrorName(found), ": ", cudaGetErrorString(found), ")"));
  }
  if (count == 0) return absl::FailedPreconditionError("no CUDA device is visible to this process");
  device_ = options.device >= 0 ? options.device : coordinator_.local_rank() % count;
  if (device_ >= count) {
    return absl::FailedPreconditionError(StrCat("GPU ", device_, " asked for, but ", count, " are visible"));
  }
  RETURN_IF_ERROR(CudaStatus(cudaSetDevice(device_), "cudaSetDevice"));
  cudaDeviceProp properties;
  RETURN_IF_ERROR(CudaStatus(cudaGetDeviceProperties(&properties, device_), "cudaGetDeviceProperties"));
  int driver = 0;
  int runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  int nccl = 0;
  ncclGetVersion(&nccl);
  description_ = StrCat(properties.name, " (device ", device_, " of ", count, ", compute capability ",
                        properties.major, ".", properties.minor, "; CUDA driver ", driver / 1000, ".",
                        (driver % 1000) / 10, ", runtime ", runtime / 1000, ".", (runtime % 1000) / 10,
                        ", NCCL ", nccl / 10000, ".", (nccl / 100) % 100, ".", nccl % 100, ")");
  RETURN_IF_ERROR(CudaStatus(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"));
  RETURN_IF_ERROR(CudaStatus(cudaEventCreate(&start_), "cudaEventCreate"));
  RETURN_IF_ERROR(CudaStatus(cudaEventCreate(&stop_), "cudaEventCreate"));
  RETURN_IF_ERROR(CublasStatus(cublasCreate(&cublas_), "cublasCreate"));
  RETURN_IF_ERROR(CublasStatus(cublasSetStream(cublas_, stream_), "cublasSetStream"));
  int pools = 0;
  cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device_);
  if (pools) {
    cudaMemPoolProps props;
    std::memset(&props, 0, sizeof(props));
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device_;
    RETURN_IF_ERROR(CudaStatus(cudaMemPoolCreate(&pool_, &props), "cudaMemPoolCreate"));
  }
  return absl::OkStatus();
}

CudaBackend::~CudaBackend() {
  if (aborted_) {
    // After a timeout the stream may hold work that never ends; freeing or
    // synchronizing could block forever. The process is about to exit, and
    // its device memory goes with it.
    return;
  }
  if (stream_ != nullptr) {
    const auto deadline = CudaClock::now() + std::chrono::seconds(10);
    while (cudaStreamQuery(stream_) == cudaErrorNotReady && CudaClock::now() < deadline) sched_yield();
  }
  for (auto& [ptr, block] : blocks_) {
    if (block.pool == MemoryPool::kPlan) {
      cudaFreeAsync(ptr, stream_);
    } else {
      cudaFree(ptr);
    }
  }
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  for (ncclComm_t comm : comms_) {
    if (comm != nullptr) ncclCommAbort(comm);  // frees its resources without waiting on peers
  }
  if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void CudaBackend::AbortAll() {
  if (aborted_) return;
  aborted_ = true;
  for (ncclComm_t comm : comms_) {
    if (comm != nullptr) ncclCommAbort(comm);
  }
}

absl::Status CudaBackend::WaitEvent(cudaEvent_t event, const std::vector<ncclComm_t>& comms, double timeout_seconds,
                                    std::string_view what) {
  return Poll(
      [&]() -> absl::StatusOr<bool> {
        const cudaError_t state = cudaEventQuery(event);
        if (state == cudaErrorNotReady) return false;
        RETURN_IF_ERROR(CudaStatus(state, what));
        return true;
      },
      comms, timeout_seconds, what);
}

absl::StatusOr<double> CudaBackend::ElapsedSeconds() {
  float ms = 0;
  RETURN_IF_ERROR(CudaStatus(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime"));
  return ms / 1e3;
}

void CudaBackend::SampleFreeMemory() {
  size_t free_bytes = 0;
  size_t total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  const int64_t free_now = static_cast<int64_t>(free_bytes);
  free_min_ = free_min_ < 0 ? free_now : std::min(free_min_, free_now);
}

absl::StatusOr<DeviceMemoryInfo> CudaBackend::QueryMemory() {
  size_t free_bytes = 0;
  size_t total = 0;
  RETURN_IF_ERROR(CudaStatus(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo"));
  return DeviceMemoryInfo{static_cast<int64_t>(free_bytes), static_cast<int64_t>(total)};
}

absl::StatusOr<void*> CudaBackend::Allocate(int64_t bytes, MemoryPool pool) {
  void* ptr = nullptr;
  const size_t size = static_cast<size_t>(std::max<int64_t>(bytes, 1));
  if (pool == MemoryPool::kPlan) {
    if (pool_ == nullptr) {
      return absl::FailedPreconditionError("this GPU has no memory pools (cudaMallocAsync): use arena mode");
    }
    RETURN_IF_ERROR(CudaStatus(cudaMallocFromPoolAsync(&ptr, size, pool_, stream_),
                               StrCat("cudaMallocFromPoolAsync(", bytes, ")")));
    pool_used_ = true;
  } else {
    RETURN_IF_ERROR(CudaStatus(cudaMalloc(&ptr, size), StrCat("cudaMalloc(", bytes, ")")));
  }
  blocks_[ptr] = {bytes, pool};
  if (pool == MemoryPool::kScratch) {
    scratch_in_use_ += bytes;
    scratch_peak_ = std::max(scratch_peak_, scratch_in_use_);
  } else {
    plan_in_use_ += bytes;
    plan_peak_ = std::max(plan_peak_, plan_in_use_);
  }
  SampleFreeMemory();
  return ptr;
}

absl::Status CudaBackend::Free(void* ptr) {
  auto it = blocks_.find(ptr);
  if (it == blocks_.end()) return absl::InternalError("freeing memory this backend did not allocate");
  const Block block = it->second;
  blocks_.erase(it);
  (block.pool == MemoryPool::kScratch ? scratch_in_use_ : plan_in_use_) -= block.bytes;
  // After an abort the stream may never drain (see the destructor): the
  // memory stays with the process, which exits next.
  if (aborted_) return absl::OkStatus();
  if (block.pool == MemoryPool::kPlan) return CudaStatus(cudaFreeAsync(ptr, stream_), "cudaFreeAsync");
  // cudaFree waits for the device; make sure nothing queued still uses it.
  RETURN_IF_ERROR(Synchronize(60));
  return CudaStatus(cudaFree(ptr), "cudaFree");
}

absl::Status CudaBackend::Touch(void* ptr, int64_t bytes) {
  return CudaStatus(cudaMemsetAsync(ptr, 0, static_cast<size_t>(bytes), stream_), "cudaMemsetAsync");
}

absl::Status CudaBackend::CopyToDevice(void* device, const void* host, int64_t bytes) {
  RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(device, host, static_cast<size_t>(bytes), cudaMemcpyHostToDevice, stream_),
                             "cudaMemcpyAsync"));
  return Synchronize(60);
}

absl::Status CudaBackend::CopyToHost(void* host, const void* device, int64_t bytes) {
  RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(host, device, static_cast<size_t>(bytes), cudaMemcpyDeviceToHost, stream_),
                             "cudaMemcpyAsync"));
  return Synchronize(60);
}

absl::Status CudaBackend::Synchronize(double timeout_seconds) {
  RETURN_IF_ERROR(CudaStatus(cudaEventRecord(stop_, stream_), "cudaEventRecord"));
  std::vector<ncclComm_t> live;
  if (!aborted_) {
    for (ncclComm_t comm : comms_) {
      if (comm != nullptr) live.push_back(comm);
    }
  }
  return WaitEvent(stop_, live, timeout_seconds, "waiting for the GPU");
}

absl::StatusOr<double> CudaBackend::Gemm(const GemmOp& g, const void* a, const void* b, void* c,
                                         double timeout_seconds) {
  const GemmTypes types = TypesOf(g);
  if (!types.ok) {
    return absl::FailedPreconditionError(StrCat("cublasGemmEx has no GEMM of ", ir::DTypeName(g.dtype), " into ",
                                                ir::DTypeName(g.out_dtype)));
  }
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX) {
    return absl::FailedPreconditionError("GEMM dimensions above 2^31-1 are not supported");
  }
  const float alpha_f = 1, beta_f = 0;
  const double alpha_d = 1, beta_d = 0;
  const int32_t alpha_i = 1, beta_i = 0;
  const void* alpha = &alpha_f;
  const void* beta = &beta_f;
  if (types.compute == CUBLAS_COMPUTE_64F) {
    alpha = &alpha_d;
    beta = &beta_d;
  } else if (types.compute == CUBLAS_COMPUTE_32I) {
    alpha = &alpha_i;
    beta = &beta_i;
  }
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  auto gemm = [&] {
    return CublasStatus(cublasGemmEx(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, types.ab, m, b, types.ab,
                                     k, beta, c, types.c, m, types.compute, CUBLAS_GEMM_DEFAULT),
                        StrCat("cublasGemmEx(m=", m, ", n=", n, ", k=", k, ")"));
  };
  // The first GEMM of a shape is run once before the timed ones: cuBLAS
  // picks its algorithm and CUDA loads the kernel then (on an H200, ten bf16
  // 1024^3 GEMMs took 83.6 ms timed cold, 0.149 ms warm: docs/validation.md).
  if (warmed_gemms_.emplace(g.m, g.n, g.k, static_cast<int>(g.dtype), static_cast<int>(g.out_dtype)).second) {
    RETURN_IF_ERROR(gemm());
  }
  RETURN_IF_ERROR(CudaStatus(cudaEventRecord(start_, stream_), "cudaEventRecord"));
  for (int64_t i = 0; i < g.count; ++i) RETURN_IF_ERROR(gemm());
  RETURN_IF_ERROR(CudaStatus(cudaEventRecord(stop_, stream_), "cudaEventRecord"));
  RETURN_IF_ERROR(WaitEvent(stop_, {}, timeout_seconds, "a GEMM"));
  return ElapsedSeconds();
}

MemoryMeasurement CudaBackend::Measure() {
  MemoryMeasurement m;
  m.plan_peak_bytes = plan_peak_;
  m.scratch_peak_bytes = scratch_peak_;
  if (pool_ != nullptr && pool_used_) {
    unsigned long long used_high = 0;  // cuuint64_t
    unsigned long long reserved_high = 0;
    if (cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &used_high) == cudaSuccess &&
        cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &reserved_high) == cudaSuccess) {
      // The pool's own accounting, allocation rounding included.
      m.plan_peak_bytes = static_cast<int64_t>(used_high);
      m.reserved_peak_bytes = static_cast<int64_t>(reserved_high);
    }
    cudaGetLastError();
  }
  if (free_min_ >= 0) m.free_min_bytes = free_min_;
  if (absl::StatusOr<DeviceMemoryInfo> now = QueryMemory(); now.ok()) m.free_now_bytes = now->free_bytes;
  return m;
}

}  // namespace memplan::executor

extern "C" __attribute__((visibility("default"))) int memplan_create_cuda_backend(
    int abi_version, memplan::executor::Coordinator* coordinator,
    const memplan::executor::CudaBackendOptions* options, memplan::executor::Backend** backend, char* error,
    size_t error_size) {
  auto fail = [&](std::string_view message) {
    std::snprintf(error, error_size, "%.*s", static_cast<int>(message.size()), message.data());
    return 1;
  };
  if (abi_version != memplan::executor::kCudaBackendAbiVersion) {
    return fail("the CUDA backend module belongs to another memplan build (ABI version mismatch)");
  }
  auto made = std::make_unique<memplan::executor::CudaBackend>(*coordinator);
  if (absl::Status started = made->Start(*options); !started.ok()) return fail(memplan::FromAbsl(started.message()));
  *backend = made.release();
  return 0;
}
