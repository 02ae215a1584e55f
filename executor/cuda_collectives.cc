// The CUDA backend's collectives (see cuda_backend.h): NCCL communicators
// made nonblocking from unique ids shared over the coordinator, and
// collectives enqueued and awaited against deadlines.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "executor/cuda_backend.h"

namespace memplan::executor {
namespace {

ncclDataType_t NcclType(WireType type) {
  switch (type) {
    case WireType::kF32: return ncclFloat32;
    case WireType::kF64: return ncclFloat64;
    case WireType::kF16: return ncclFloat16;
    case WireType::kBF16: return ncclBfloat16;
    case WireType::kS8: return ncclInt8;
    case WireType::kU8: return ncclUint8;
    case WireType::kS32: return ncclInt32;
    case WireType::kU32: return ncclUint32;
    case WireType::kS64: return ncclInt64;
    case WireType::kU64: return ncclUint64;
  }
  return ncclUint8;
}

}  // namespace

std::string NcclMessage(ncclResult_t code, ncclComm_t comm) {
  std::string message = ncclGetErrorString(code);
  const char* last = comm != nullptr ? ncclGetLastError(comm) : nullptr;
  if (last != nullptr && last[0] != '\0') StrAppend(&message, " (", last, ")");
  return message;
}

absl::Status CudaBackend::Enqueued(ncclResult_t result, ncclComm_t comm, double timeout_seconds,
                                   std::string_view what) {
  if (result != ncclSuccess && result != ncclInProgress) {
    const std::string message = NcclMessage(result, comm);
    return absl::InternalError(StrCat(what, ": NCCL: ", message));
  }
  if (result == ncclSuccess) return absl::OkStatus();
  return Poll(
      [&]() -> absl::StatusOr<bool> {
        ncclResult_t state = ncclInProgress;
        ncclCommGetAsyncError(comm, &state);
        return state != ncclInProgress;
      },
      {comm}, timeout_seconds, what);
}

absl::Status CudaBackend::Connect(const std::vector<std::vector<int>>& groups, double timeout_seconds) {
  groups_ = groups;
  comms_.assign(groups.size(), nullptr);
  const int rank = coordinator_.rank();
  // The first member of each group makes its unique id; every rank learns
  // the ids of its groups through the coordinator.
  std::string mine;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty() || groups[g][0] != rank) continue;
    ncclUniqueId id;
    const ncclResult_t made = ncclGetUniqueId(&id);
    if (made != ncclSuccess) return absl::InternalError(StrCat("ncclGetUniqueId: ", ncclGetErrorString(made)));
    const uint32_t index = static_cast<uint32_t>(g);
    mine.append(reinterpret_cast<const char*>(&index), sizeof(index));
    mine.append(reinterpret_cast<const char*>(&id), sizeof(id));
  }
  ASSIGN_OR_RETURN(std::vector<std::string> all, coordinator_.AllGather(mine, timeout_seconds));
  std::vector<ncclUniqueId> ids(groups.size());
  for (const std::string& records : all) {
    const size_t record = sizeof(uint32_t) + sizeof(ncclUniqueId);
    for (size_t at = 0; at + record <= records.size(); at += record) {
      uint32_t index = 0;
      std::memcpy(&index, records.data() + at, sizeof(index));
      if (index < ids.size()) std::memcpy(&ids[index], records.data() + at + sizeof(index), sizeof(ncclUniqueId));
    }
  }
  // Every communicator of this rank in one group call: ranks in several
  // groups cannot then wait on each other in different orders.
  std::vector<ncclComm_t> mine_comms;
  ncclResult_t result = ncclGroupStart();
  for (size_t g = 0; g < groups.size() && result == ncclSuccess; ++g) {
    const auto at = std::find(groups[g].begin(), groups[g].end(), rank);
    if (at == groups[g].end()) continue;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    result = ncclCommInitRankConfig(&comms_[g], static_cast<int>(groups[g].size()), ids[g],
                                    static_cast<int>(at - groups[g].begin()), &config);
    if (result == ncclInProgress) result = ncclSuccess;
    mine_comms.push_back(comms_[g]);
  }
  const ncclResult_t ended = ncclGroupEnd();
  if (result != ncclSuccess || (ended != ncclSuccess && ended != ncclInProgress)) {
    AbortAll();
    return absl::InternalError(StrCat("ncclCommInitRankConfig: ",
                                      ncclGetErrorString(result != ncclSuccess ? result : ended)));
  }
  return Poll(
      [&]() -> absl::StatusOr<bool> {
        for (ncclComm_t comm : mine_comms) {
          ncclResult_t state = ncclInProgress;
          ncclCommGetAsyncError(comm, &state);
          if (state == ncclInProgress) return false;
        }
        return true;
      },
      mine_comms, timeout_seconds, "making the NCCL communicators");
}

absl::Status CudaBackend::LaunchCollective(const CollectiveCall& call, ncclComm_t comm, const void* input) {
  const int n = static_cast<int>(groups_[call.group_index].size());
  const ncclDataType_t type = NcclType(call.type);
  const size_t total = static_cast<size_t>(call.bytes / WireBytes(call.type));
  const size_t chunk = total / static_cast<size_t>(n);
  const size_t width = static_cast<size_t>(WireBytes(call.type));
  const std::string what = StrCat(CollectiveName(call.kind), " of ", call.bytes, " bytes on a group of ", n);
  switch (call.kind) {
    case CollectiveKind::kAllReduce:
      return Enqueued(ncclAllReduce(input, call.output, total, type, ncclSum, comm, stream_), comm,
                      call.timeout_seconds, what);
    case CollectiveKind::kAllGather:
      return Enqueued(ncclAllGather(input, call.output, chunk, type, comm, stream_), comm, call.timeout_seconds, what);
    case CollectiveKind::kReduceScatter:
      return Enqueued(ncclReduceScatter(input, call.output, chunk, type, ncclSum, comm, stream_), comm,
                      call.timeout_seconds, what);
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kSendRecv: {
      int position = 0;
      ncclCommUserRank(comm, &position);
      RETURN_IF_ERROR(Enqueued(ncclGroupStart(), comm, call.timeout_seconds, what));
      if (call.kind == CollectiveKind::kAllToAll) {
        for (int peer = 0; peer < n; ++peer) {
          const char* send = static_cast<const char*>(input) + peer * chunk * width;
          char* receive = static_cast<char*>(call.output) + peer * chunk * width;
          RETURN_IF_ERROR(Enqueued(ncclSend(send, chunk, type, peer, comm, stream_), comm, call.timeout_seconds, what));
          RETURN_IF_ERROR(Enqueued(ncclRecv(receive, chunk, type, peer, comm, stream_), comm, call.timeout_seconds, what));
        }
      } else {
        RETURN_IF_ERROR(Enqueued(ncclSend(input, total, type, (position + 1) % n, comm, stream_), comm,
                                 call.timeout_seconds, what));
        RETURN_IF_ERROR(Enqueued(ncclRecv(call.output, total, type, (position + n - 1) % n, comm, stream_), comm,
                                 call.timeout_seconds, what));
      }
      return Enqueued(ncclGroupEnd(), comm, call.timeout_seconds, what);
    }
  }
  return absl::InternalError("unknown collective");
}

absl::StatusOr<double> CudaBackend::Collective(const CollectiveCall& call) {
  if (aborted_) {
    return absl::FailedPreconditionError("the NCCL communicators were aborted after an earlier failure");
  }
  if (call.group_index < 0 || call.group_index >= static_cast<int>(comms_.size()) ||
      comms_[call.group_index] == nullptr) {
    return absl::InternalError("collective on a group this rank has no communicator for");
  }
  ncclComm_t comm = comms_[call.group_index];
  const int64_t in_bytes = call.kind == CollectiveKind::kAllGather
                               ? call.bytes / static_cast<int64_t>(groups_[call.group_index].size())
                               : call.bytes;
  const int64_t out_bytes = call.kind == CollectiveKind::kReduceScatter
                                ? call.bytes / static_cast<int64_t>(groups_[call.group_index].size())
                                : call.bytes;
  // NCCL has no in-place all-to-all or send/recv: send from a copy.
  const char* in = static_cast<const char*>(call.input);
  const char* out = static_cast<const char*>(call.output);
  const bool overlap = in < out + out_bytes && out < in + in_bytes;
  const void* input = call.input;
  void* copy = nullptr;
  if (overlap && (call.kind == CollectiveKind::kAllToAll || call.kind == CollectiveKind::kSendRecv)) {
    ASSIGN_OR_RETURN(copy, Allocate(in_bytes, MemoryPool::kScratch));
    RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(copy, call.input, static_cast<size_t>(in_bytes),
                                               cudaMemcpyDeviceToDevice, stream_),
                               "cudaMemcpyAsync"));
    input = copy;
  }
  auto run = [&]() -> absl::StatusOr<double> {
    const int iterations = std::max(1, call.iterations);
    RETURN_IF_ERROR(CudaStatus(cudaEventRecord(start_, stream_), "cudaEventRecord"));
    for (int i = 0; i < iterations; ++i) RETURN_IF_ERROR(LaunchCollective(call, comm, input));
    RETURN_IF_ERROR(CudaStatus(cudaEventRecord(stop_, stream_), "cudaEventRecord"));
    RETURN_IF_ERROR(WaitEvent(stop_, {comm}, call.timeout_seconds,
                              StrCat(CollectiveName(call.kind), " of ", call.bytes, " bytes")));
    ASSIGN_OR_RETURN(double seconds, ElapsedSeconds());
    return seconds / iterations;
  };
  absl::StatusOr<double> seconds = run();
  if (copy != nullptr && !aborted_) RETURN_IF_ERROR(Free(copy));
  return seconds;
}

}  // namespace memplan::executor
