#include "executor/collective_bench.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "executor/collective_data.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::executor {
namespace {

struct Measured {
  double seconds = 0;
  int64_t wrong = 0;
};

// One size of one collective on this rank.
absl::StatusOr<Measured> MeasureOne(Coordinator& coordinator, Backend& backend,
                                    const CollectiveBenchOptions& options, CollectiveKind kind, int64_t bytes) {
  const int n = coordinator.size();
  const WireType type = WireLayoutFor(options.dtype).type;
  const CollectiveData data(kind, type, n, coordinator.rank());
  CollectiveOp op;
  op.kind = kind;
  op.bytes = bytes;
  op.group.resize(static_cast<size_t>(n));
  const int64_t in_bytes = CollectiveInputBytes(op);
  const int64_t out_bytes = CollectiveOutputBytes(op);
  ASSIGN_OR_RETURN(void* input, backend.Allocate(in_bytes, MemoryPool::kScratch));
  absl::StatusOr<void*> output = backend.Allocate(out_bytes, MemoryPool::kScratch);
  if (!output.ok()) {
    backend.Free(input).IgnoreError();
    return output.status();
  }
  auto run = [&]() -> absl::StatusOr<Measured> {
    std::vector<char> host(static_cast<size_t>(std::max(in_bytes, out_bytes)));
    data.FillInput(host.data(), data.InputElements(bytes));
    RETURN_IF_ERROR(backend.CopyToDevice(input, host.data(), in_bytes));
    CollectiveCall call;
    call.kind = kind;
    call.type = type;
    call.bytes = bytes;
    call.group_index = 0;
    call.input = input;
    call.output = *output;
    call.timeout_seconds = options.timeout_seconds;
    call.iterations = 1;
    RETURN_IF_ERROR(backend.Collective(call).status());
    RETURN_IF_ERROR(backend.CopyToHost(host.data(), *output, out_bytes));
    Measured m;
    m.wrong = data.CountWrong(host.data(), bytes);
    if (options.warmup > 0) {
      call.iterations = options.warmup;
      RETURN_IF_ERROR(backend.Collective(call).status());
    }
    call.iterations = std::max(1, options.iterations);
    ASSIGN_OR_RETURN(m.seconds, backend.Collective(call));
    return m;
  };
  absl::StatusOr<Measured> measured = run();
  backend.Free(input).IgnoreError();
  backend.Free(*output).IgnoreError();
  return measured;
}

}  // namespace

std::vector<int64_t> SweepSizes(const CollectiveBenchOptions& options, CollectiveKind kind, int ranks) {
  const int64_t element = WireBytes(WireLayoutFor(options.dtype).type) * WireLayoutFor(options.dtype).per_element;
  const bool split = kind != CollectiveKind::kAllReduce && kind != CollectiveKind::kSendRecv;
  const int64_t unit = split ? element * std::max(1, ranks) : element;
  std::vector<int64_t> sizes;
  const int64_t factor = std::max<int64_t>(2, options.factor);
  for (int64_t s = std::max<int64_t>(1, options.min_bytes); s <= options.max_bytes;) {
    const int64_t rounded = std::max(unit, s / unit * unit);
    if (sizes.empty() || sizes.back() != rounded) sizes.push_back(rounded);
    if (s > options.max_bytes / factor) break;
    s *= factor;
  }
  return sizes;
}

absl::StatusOr<CollectiveBenchReport> RunCollectiveBench(Coordinator& coordinator, Backend& backend,
                                                         const CollectiveBenchOptions& options) {
  const int n = coordinator.size();
  std::vector<int> everyone(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) everyone[r] = r;
  absl::Status connected = backend.Connect({everyone}, options.timeout_seconds);
  ASSIGN_OR_RETURN(std::vector<std::string> ready,
                   coordinator.AllGather(connected.ok() ? "ok" : std::string(connected.message()),
                                         options.timeout_seconds));
  for (int r = 0; r < n; ++r) {
    if (ready[r] != "ok") return absl::InternalError(StrCat("rank ", r, ": connecting the ranks: ", ready[r]));
  }
  CollectiveBenchReport report;
  report.backend = backend.Name();
  report.device = backend.DeviceDescription();
  report.transport = coordinator.Transport();
  report.ranks = n;
  report.iterations = std::max(1, options.iterations);
  report.warmup = std::max(0, options.warmup);
  const WireType type = WireLayoutFor(options.dtype).type;
  for (CollectiveKind kind : options.kinds) {
    for (int64_t bytes : SweepSizes(options, kind, n)) {
      absl::StatusOr<Measured> mine = MeasureOne(coordinator, backend, options, kind, bytes);
      const std::string wire = mine.ok() ? StrCat("ok ", mine->seconds, " ", mine->wrong)
                                         : StrCat("error ", mine.status().message());
      ASSIGN_OR_RETURN(std::vector<std::string> all, coordinator.AllGather(wire, options.timeout_seconds));
      CollectiveBenchRow row;
      row.kind = kind;
      row.bytes = bytes;
      row.type = type;
      for (int r = 0; r < n; ++r) {
        if (all[r].rfind("ok ", 0) != 0) {
          return absl::InternalError(StrCat("rank ", r, ": ", CollectiveName(kind), " of ", bytes, " bytes: ",
                                            all[r].substr(std::min<size_t>(6, all[r].size()))));
        }
        char* end = nullptr;
        row.seconds += std::strtod(all[r].c_str() + 3, &end) / n;
        row.wrong += std::strtoll(end, nullptr, 10);
      }
      report.rows.push_back(row);
    }
  }
  return report;
}

}  // namespace memplan::executor
