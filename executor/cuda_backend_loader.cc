#include "executor/cuda_backend_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "ir/strings.h"

namespace memplan::executor {
namespace {

constexpr const char* kModuleName = "libmemplan_cuda.so";

// Where to look, in order.
std::vector<std::string> Candidates() {
  std::vector<std::string> paths;
  if (const char* explicit_path = std::getenv("MEMPLAN_CUDA_BACKEND")) {
    paths.push_back(explicit_path);
    return paths;
  }
  char self[PATH_MAX];
  const ssize_t length = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length > 0) {
    std::string dir(self, static_cast<size_t>(length));
    dir = dir.substr(0, dir.rfind('/'));
    paths.push_back(StrCat(dir, "/", kModuleName));
    paths.push_back(StrCat(dir, "/../lib/memplan/", kModuleName));
  }
#ifdef MEMPLAN_CUDA_BACKEND_BUILD_PATH
  paths.push_back(MEMPLAN_CUDA_BACKEND_BUILD_PATH);
#endif
  return paths;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> LoadCudaBackend(Coordinator& coordinator,
                                                         const CudaBackendOptions& options) {
#ifndef MEMPLAN_CUDA_BACKEND_BUILT
  if (std::getenv("MEMPLAN_CUDA_BACKEND") == nullptr) {
    return absl::FailedPreconditionError(
        "this memplan was built without the CUDA backend (CMake did not find the CUDA toolkit with cuBLAS "
        "and NCCL, or MEMPLAN_WITH_CUDA was OFF); rebuild on a machine with them, or use the host backend");
  }
#endif
  std::string tried;
  void* module = nullptr;
  for (const std::string& path : Candidates()) {
    if (::access(path.c_str(), F_OK) != 0) {
      StrAppend(&tried, tried.empty() ? "" : ", ", path);
      continue;
    }
    // Never closed: the backend's code must outlive every object it made.
    module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) {
      return absl::FailedPreconditionError(
          StrCat("cannot load the CUDA backend ", path, ": ", ::dlerror(),
                 " (is the CUDA runtime with cuBLAS and NCCL installed and on the library path?)"));
    }
    break;
  }
  if (module == nullptr) {
    return absl::FailedPreconditionError(StrCat("the CUDA backend module ", kModuleName,
                                                " is not installed (looked at ", tried, ")"));
  }
  auto create = reinterpret_cast<CreateCudaBackendFunction>(::dlsym(module, kCudaBackendEntryPoint));
  if (create == nullptr) {
    return absl::FailedPreconditionError(
        StrCat("the CUDA backend module has no ", kCudaBackendEntryPoint, ": it is not memplan's"));
  }
  char error[2048] = {0};
  Backend* backend = nullptr;
  if (create(kCudaBackendAbiVersion, &coordinator, &options, &backend, error, sizeof(error)) != 0 ||
      backend == nullptr) {
    return absl::FailedPreconditionError(error[0] ? error : "the CUDA backend failed to start");
  }
  return std::unique_ptr<Backend>(backend);
}

}  // namespace memplan::executor
