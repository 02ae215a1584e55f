// A rank's report as it travels to the other ranks (compact JSON). Not a
// published format: views render the reports.
#ifndef MEMPLAN_EXECUTOR_REPORT_WIRE_H_
#define MEMPLAN_EXECUTOR_REPORT_WIRE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "executor/report.h"

namespace memplan::executor {

std::string RankReportToWire(const RankReport& report);
absl::StatusOr<RankReport> RankReportFromWire(std::string_view wire);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_REPORT_WIRE_H_
