#include "executor/report.h"

#include <cmath>

namespace memplan::executor {

double PeakErrorPercent(const RankReport& report) {
  if (report.planned_peak_bytes == 0) return report.measured_peak_bytes == 0 ? 0.0 : 100.0;
  return 100.0 * static_cast<double>(report.measured_peak_bytes - report.planned_peak_bytes) /
         static_cast<double>(report.planned_peak_bytes);
}

ValidationVerdict Judge(const ValidationReport& report, std::optional<double> max_peak_error_percent) {
  ValidationVerdict verdict;
  for (const RankReport& rank : report.ranks) {
    switch (rank.outcome) {
      case RankOutcome::kOk:
        if (max_peak_error_percent && std::fabs(PeakErrorPercent(rank)) > *max_peak_error_percent) {
          ++verdict.ranks_over_peak_error;
        }
        break;
      case RankOutcome::kDoesNotFit: ++verdict.ranks_not_fitting; break;
      case RankOutcome::kNotRun: break;  // another rank's failure says why
      default: ++verdict.ranks_failed; break;
    }
    for (const OpMeasurement& op : rank.ops) verdict.wrong_elements += op.wrong;
  }
  return verdict;
}

}  // namespace memplan::executor
