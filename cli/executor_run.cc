#include "cli/executor_run.h"

#include "cli/errors.h"
#include "executor/cuda_backend_loader.h"
#include "executor/host_backend.h"
#include "ir/strings.h"
#include "parsers/byte_count.h"

namespace memplan::cli {

void ReportExecutorError(const executor::Coordinator* coordinator, std::string_view message) {
  const std::string prefix =
      coordinator != nullptr && coordinator->size() > 1 ? StrCat("memplan (rank ", coordinator->rank(), "): ")
                                                        : std::string("memplan: ");
  PrintPrefixed(prefix, message);
}

void ReportExecutorError(const executor::Coordinator* coordinator, const absl::Status& status) {
  ReportExecutorError(coordinator, FromAbsl(status.message()));
}

absl::StatusOr<executor::BackendFactory> BackendFactoryFor(const ExecutorFlags& flags,
                                                           executor::MpiSession& session) {
  if (flags.backend == ExecutorBackend::kHost) {
    executor::HostBackendOptions options;
    if (!flags.device_memory.empty()) {
      const std::optional<int64_t> bytes = parsers::ParseByteCount(flags.device_memory);
      if (!bytes || *bytes <= 0) {
        return absl::InvalidArgumentError(StrCat("--device-memory: expected a byte count such as 16GiB; got '",
                                                 flags.device_memory, "'"));
      }
      options.device_memory_bytes = *bytes;
    }
    executor::MpiSession* s = &session;
    return executor::BackendFactory([s, options]() -> absl::StatusOr<std::unique_ptr<executor::Backend>> {
      return std::unique_ptr<executor::Backend>(new executor::HostBackend(*s, options));
    });
  }
  if (!flags.device_memory.empty()) {
    return absl::InvalidArgumentError("--device-memory is for --backend=host; a GPU's memory is what it is");
  }
  executor::CudaBackendOptions options;
  options.device = flags.device;
  executor::MpiSession* s = &session;
  return executor::BackendFactory([s, options]() { return executor::LoadCudaBackend(*s, options); });
}

}  // namespace memplan::cli
