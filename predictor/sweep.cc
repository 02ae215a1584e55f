#include "predictor/sweep.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace memplan::predictor {

absl::StatusOr<std::vector<SweepRow>> PredictSweep(const Predictor& predictor,
                                                    const std::vector<SweepCandidate>& candidates) {
  std::vector<SweepRow> rows;
  rows.reserve(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    const SweepCandidate& c = candidates[i];
    absl::StatusOr<Prediction> p = predictor.Predict(c.plan);
    if (!p.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          c.source.empty() ? c.plan.label : c.source, ": ", p.status().message()));
    }
    SweepRow row;
    row.label = c.plan.label;
    row.family = c.family;
    row.source = c.source;
    row.index = static_cast<int64_t>(i);
    row.prediction = *std::move(p);
    // The table needs the totals, not every instruction's sharding.
    row.prediction.instruction_shardings = nullptr;
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) {
    return std::tie(a.prediction.max_device_footprint_bytes, a.label, a.index) <
           std::tie(b.prediction.max_device_footprint_bytes, b.label, b.index);
  });
  return rows;
}

}  // namespace memplan::predictor
