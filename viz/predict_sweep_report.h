// `memplan predict --plans/--family`: one table of candidate plans of a
// program ordered by predicted max device footprint (predictor/sweep.h),
// with the candidates the family rules could not build; as text and JSON
// (memplan.predict_sweep.v1, docs/prediction.md "Sweeps").
#ifndef MEMPLAN_VIZ_PREDICT_SWEEP_REPORT_H_
#define MEMPLAN_VIZ_PREDICT_SWEEP_REPORT_H_

#include <string>
#include <vector>

#include "analyzer/memory_stats.h"
#include "predictor/sweep.h"
#include "simulator/rank.h"

namespace memplan::viz {

struct PredictSweepInput {
  std::string module_name;
  analyzer::MemoryStats unsharded;  // the program as compiled
  const std::vector<predictor::SweepRow>& rows;  // ordered, smallest first
  const std::vector<simulator::SkippedCandidate>& skipped;
};

std::string RenderPredictSweepText(const PredictSweepInput& input);
std::string RenderPredictSweepJson(const PredictSweepInput& input);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_PREDICT_SWEEP_REPORT_H_
