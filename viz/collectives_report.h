// Views of collective measurements: `memplan bench-collectives` as an
// nccl-tests-style table and as JSON ("memplan.collectives.v1",
// docs/collectives-json.md), and the one JSON record shape both it and
// `memplan validate --format=json` use for a measured collective, so that
// `memplan calibrate` reads either.
#ifndef MEMPLAN_VIZ_COLLECTIVES_REPORT_H_
#define MEMPLAN_VIZ_COLLECTIVES_REPORT_H_

#include <cstdint>
#include <string>

#include "executor/report.h"
#include "llvm/Support/JSON.h"

namespace memplan::viz {

inline constexpr const char* kCollectivesSchema = "memplan.collectives.v1";

// Writes the members of one record (inside an object the caller opened):
// collective, bytes, count, dtype, time_us, algbw_gbps, busbw_gbps, wrong.
void WriteCollectiveRecord(llvm::json::OStream& j, executor::CollectiveKind kind, int64_t bytes,
                           executor::WireType type, int ranks, double seconds, int64_t wrong);

// nccl-tests' time column: "%7.2f" below 100 us, "%7.1f" below 10 ms,
// "%7.0f" above.
std::string NcclTestsTime(double microseconds);

std::string RenderCollectiveBenchText(const executor::CollectiveBenchReport& report);
std::string RenderCollectiveBenchJson(const executor::CollectiveBenchReport& report);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_COLLECTIVES_REPORT_H_
