#include "executor/host_backend.h"

#include <chrono>
#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "executor/collective_data.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::executor {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// MemAvailable from /proc/meminfo, in bytes; 0 when unknown.
int64_t MemAvailable() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

// Sums of IEEE half and bfloat16 elements (MPI has no such types).
template <float (*Load)(uint16_t), uint16_t (*Store)(float)>
void SumSixteenBit(void* in, void* inout, int* length, MPI_Datatype*) {
  const uint16_t* a = static_cast<const uint16_t*>(in);
  uint16_t* b = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *length; ++i) b[i] = Store(Load(a[i]) + Load(b[i]));
}

MPI_Datatype MpiType(WireType type) {
  switch (type) {
    case WireType::kF32: return MPI_FLOAT;
    case WireType::kF64: return MPI_DOUBLE;
    case WireType::kF16: case WireType::kBF16: return MPI_UINT16_T;
    case WireType::kS8: return MPI_INT8_T;
    case WireType::kU8: return MPI_UINT8_T;
    case WireType::kS32: return MPI_INT32_T;
    case WireType::kU32: return MPI_UINT32_T;
    case WireType::kS64: return MPI_INT64_T;
    case WireType::kU64: return MPI_UINT64_T;
  }
  return MPI_BYTE;
}

absl::Status MpiCall(int code, std::string_view what) {
  if (code == MPI_SUCCESS) return absl::OkStatus();
  return absl::InternalError(StrCat(what, ": ", MpiErrorString(code)));
}

}  // namespace

int64_t DefaultHostDeviceMemory(int ranks_on_host) {
  const int64_t available = MemAvailable();
  return ranks_on_host > 0 ? available / ranks_on_host : available;
}

HostBackend::HostBackend(MpiSession& session, const HostBackendOptions& options) : session_(session) {
  capacity_ = options.device_memory_bytes;
  if (capacity_ <= 0) {
    int on_host = 1;
    if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) on_host = std::max(1, std::atoi(local));
    capacity_ = DefaultHostDeviceMemory(on_host);
  }
  if (session_.uses_mpi()) {
    MPI_Op_create(&SumSixteenBit<HalfToFloat, FloatToHalf>, /*commute=*/1, &half_sum_);
    MPI_Op_create(&SumSixteenBit<Bfloat16ToFloat, FloatToBfloat16>, /*commute=*/1, &bfloat16_sum_);
  }
}

HostBackend::~HostBackend() {
  for (auto& [ptr, block] : blocks_) std::free(ptr);
  if (half_sum_ != MPI_OP_NULL) MPI_Op_free(&half_sum_);
  if (bfloat16_sum_ != MPI_OP_NULL) MPI_Op_free(&bfloat16_sum_);
}

std::string HostBackend::DeviceDescription() const {
  char size[32];
  std::snprintf(size, sizeof(size), "%.2f GiB", static_cast<double>(capacity_) / (1 << 30));
  return StrCat("host memory as a device of ", size, " (", capacity_, " bytes)");
}

absl::StatusOr<DeviceMemoryInfo> HostBackend::QueryMemory() {
  return DeviceMemoryInfo{capacity_ - plan_in_use_ - scratch_in_use_, capacity_};
}

absl::Status HostBackend::Connect(const std::vector<std::vector<int>>& groups, double timeout_seconds) {
  groups_ = groups;
  if (!session_.uses_mpi()) {
    for (const std::vector<int>& group : groups) {
      if (group.size() != 1 || group[0] != 0) {
        return absl::FailedPreconditionError(
            "a group of several ranks needs several processes: start them with mpirun");
      }
    }
    comms_.assign(groups.size(), MPI_COMM_NULL);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(comms_, session_.SplitGroups(groups));
  return absl::OkStatus();
}

absl::StatusOr<void*> HostBackend::Allocate(int64_t bytes, MemoryPool pool) {
  const int64_t in_use = plan_in_use_ + scratch_in_use_;
  if (bytes < 0 || bytes > capacity_ - in_use) {
    return absl::ResourceExhaustedError(StrCat("out of device memory: ", bytes, " bytes requested with ", in_use,
                                               " of ", capacity_, " in use"));
  }
  void* ptr = std::malloc(static_cast<size_t>(std::max<int64_t>(bytes, 1)));
  if (ptr == nullptr) {
    return absl::ResourceExhaustedError(StrCat("out of host memory: malloc(", bytes, ") failed"));
  }
  const bool plan = pool != MemoryPool::kScratch;
  blocks_[ptr] = {bytes, plan};
  if (plan) {
    plan_in_use_ += bytes;
    plan_peak_ = std::max(plan_peak_, plan_in_use_);
  } else {
    scratch_in_use_ += bytes;
    scratch_peak_ = std::max(scratch_peak_, scratch_in_use_);
  }
  return ptr;
}

absl::Status HostBackend::Free(void* ptr) {
  auto it = blocks_.find(ptr);
  if (it == blocks_.end()) return absl::InternalError("freeing memory this backend did not allocate");
  (it->second.plan ? plan_in_use_ : scratch_in_use_) -= it->second.bytes;
  blocks_.erase(it);
  std::free(ptr);
  return absl::OkStatus();
}

absl::Status HostBackend::Touch(void* ptr, int64_t bytes) {
  std::memset(ptr, 0, static_cast<size_t>(bytes));
  return absl::OkStatus();
}

absl::Status HostBackend::CopyToDevice(void* device, const void* host, int64_t bytes) {
  std::memcpy(device, host, static_cast<size_t>(bytes));
  return absl::OkStatus();
}

absl::Status HostBackend::CopyToHost(void* host, const void* device, int64_t bytes) {
  std::memcpy(host, device, static_cast<size_t>(bytes));
  return absl::OkStatus();
}

absl::StatusOr<double> HostBackend::Gemm(const GemmOp& gemm, const void* a, const void* b, void* c,
                                         double timeout_seconds) {
  const Clock::time_point start = Clock::now();
  RETURN_IF_ERROR(HostGemm(gemm, a, b, c));
  return SecondsSince(start);
}

namespace {

// The buffer MPI sends from. MPI's in-place forms differ from NCCL's: an
// all-reduce on one buffer stays in place (MPI_IN_PLACE), other
// overlapping buffers run from a copy of the input in `staged`.
const void* SendBuffer(const CollectiveCall& call, int64_t in_bytes, int64_t out_bytes,
                       std::vector<char>& staged) {
  const char* in = static_cast<const char*>(call.input);
  const char* out = static_cast<const char*>(call.output);
  const bool overlap = in < out + out_bytes && out < in + in_bytes;
  if (call.kind == CollectiveKind::kAllReduce && in == out) return MPI_IN_PLACE;
  if (!overlap) return call.input;
  staged.assign(in, in + in_bytes);
  return staged.data();
}

// One collective's MPI arguments: element counts are of `type`.
struct MpiCollective {
  const void* send;
  MPI_Datatype type;
  MPI_Op sum;
  MPI_Comm comm;
  int total;  // elements in the whole buffer
  int chunk;  // elements per rank
  int n;      // ranks in the group
};

// Starts the nonblocking collective; returns how many requests it started.
absl::StatusOr<int> StartCollective(const CollectiveCall& call, const MpiCollective& m, MPI_Request requests[2]) {
  switch (call.kind) {
    case CollectiveKind::kAllReduce:
      RETURN_IF_ERROR(MpiCall(MPI_Iallreduce(m.send, call.output, m.total, m.type, m.sum, m.comm, &requests[0]),
                              "MPI_Iallreduce"));
      return 1;
    case CollectiveKind::kAllGather:
      RETURN_IF_ERROR(MpiCall(MPI_Iallgather(m.send, m.chunk, m.type, call.output, m.chunk, m.type, m.comm,
                                             &requests[0]),
                              "MPI_Iallgather"));
      return 1;
    case CollectiveKind::kReduceScatter:
      RETURN_IF_ERROR(MpiCall(MPI_Ireduce_scatter_block(m.send, call.output, m.chunk, m.type, m.sum, m.comm,
                                                        &requests[0]),
                              "MPI_Ireduce_scatter_block"));
      return 1;
    case CollectiveKind::kAllToAll:
      RETURN_IF_ERROR(MpiCall(MPI_Ialltoall(m.send, m.chunk, m.type, call.output, m.chunk, m.type, m.comm,
                                            &requests[0]),
                              "MPI_Ialltoall"));
      return 1;
    case CollectiveKind::kSendRecv: {
      int position = 0;
      MPI_Comm_rank(m.comm, &position);
      const int next = (position + 1) % m.n;
      const int previous = (position + m.n - 1) % m.n;
      RETURN_IF_ERROR(MpiCall(MPI_Irecv(call.output, m.total, m.type, previous, 0, m.comm, &requests[0]),
                              "MPI_Irecv"));
      RETURN_IF_ERROR(MpiCall(MPI_Isend(m.send, m.total, m.type, next, 0, m.comm, &requests[1]), "MPI_Isend"));
      return 2;
    }
  }
  return absl::InternalError("unknown collective kind");
}

}  // namespace

absl::Status HostBackend::RunCollectiveOnce(const CollectiveCall& call) {
  const std::vector<int>& group = groups_[call.group_index];
  const int n = static_cast<int>(group.size());
  const int width = WireBytes(call.type);
  const int64_t total = call.bytes / width;
  const int64_t chunk = total / n;
  const int64_t in_bytes = call.kind == CollectiveKind::kAllGather ? call.bytes / n : call.bytes;
  const int64_t out_bytes = call.kind == CollectiveKind::kReduceScatter ? call.bytes / n : call.bytes;
  MPI_Comm comm = comms_[call.group_index];
  if (comm == MPI_COMM_NULL) {
    // One rank alone (no MPI): every collective is a copy.
    if (n != 1) return absl::InternalError("collective on a group this rank is not in");
    if (call.output != call.input) std::memmove(call.output, call.input, static_cast<size_t>(std::min(in_bytes, out_bytes)));
    return absl::OkStatus();
  }
  if (total > INT_MAX) {
    return absl::FailedPreconditionError(
        StrCat("the host backend's MPI collectives take at most ", INT_MAX, " elements; this one has ", total));
  }
  MPI_Op sum = MPI_SUM;
  if (call.type == WireType::kF16) sum = half_sum_;
  if (call.type == WireType::kBF16) sum = bfloat16_sum_;
  std::vector<char> staged;
  const MpiCollective m{SendBuffer(call, in_bytes, out_bytes, staged), MpiType(call.type), sum, comm,
                        static_cast<int>(total), static_cast<int>(chunk), n};
  MPI_Request requests[2];
  ASSIGN_OR_RETURN(const int num_requests, StartCollective(call, m, requests));
  const std::string what = StrCat(CollectiveName(call.kind), " of ", call.bytes, " bytes on a group of ", n);
  for (int i = 0; i < num_requests; ++i) {
    RETURN_IF_ERROR(session_.Wait(&requests[i], call.timeout_seconds, what));
  }
  return absl::OkStatus();
}

absl::StatusOr<double> HostBackend::Collective(const CollectiveCall& call) {
  if (call.group_index < 0 || call.group_index >= static_cast<int>(groups_.size())) {
    return absl::InternalError("collective on a group that was not connected");
  }
  const int iterations = std::max(1, call.iterations);
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < iterations; ++i) RETURN_IF_ERROR(RunCollectiveOnce(call));
  return SecondsSince(start) / iterations;
}

MemoryMeasurement HostBackend::Measure() {
  MemoryMeasurement m;
  m.plan_peak_bytes = plan_peak_;
  m.scratch_peak_bytes = scratch_peak_;
  m.free_now_bytes = capacity_ - plan_in_use_ - scratch_in_use_;
  return m;
}

}  // namespace memplan::executor
