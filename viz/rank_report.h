// `memplan rank`: the candidates that fit the memory budget, fastest first,
// then those over it and those that could not be priced, each with the
// reason; as text and JSON (memplan.rank.v1, docs/cost-model.md).
#ifndef MEMPLAN_VIZ_RANK_REPORT_H_
#define MEMPLAN_VIZ_RANK_REPORT_H_

#include <string>

#include "simulator/rank.h"
#include "simulator/step_time.h"

namespace memplan::viz {

struct RankReportInput {
  std::string module_name;
  std::string hardware;  // the hardware's name
  simulator::OverlapModel overlap = simulator::OverlapModel::kPerCollective;
  const simulator::Ranking& ranking;
};

std::string RenderRankText(const RankReportInput& input);
std::string RenderRankJson(const RankReportInput& input);

// Why nothing fits, for stderr: "no candidate fits the budget of 1.00 GiB;
// the smallest footprint is 1.20 GiB (fsdp8)", or that none could be priced.
std::string DescribeNothingFits(const simulator::Ranking& ranking);

// The reason a candidate was skipped, in words.
std::string DescribeSkip(const simulator::SkippedCandidate& skipped);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_RANK_REPORT_H_
