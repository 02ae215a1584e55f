// Views of a jaxpr's liveness (`memplan analyze FILE.jaxpr.txt`) and of
// Alpa's stage table (`memplan analyze seed003.txt`): aligned text and JSON
// (schema in docs/jaxpr.md). Pure functions of their inputs.
#ifndef MEMPLAN_VIZ_JAXPR_REPORT_H_
#define MEMPLAN_VIZ_JAXPR_REPORT_H_

#include <string>
#include <vector>

#include "analyzer/alpa_stage_memory.h"
#include "analyzer/jaxpr_flops.h"
#include "analyzer/jaxpr_liveness.h"
#include "analyzer/jaxpr_schedule.h"
#include "ir/alpa_stage_profile.h"
#include "ir/jaxpr.h"
#include "llvm/Support/raw_ostream.h"

namespace memplan::viz {

struct JaxprReportInput {
  const ir::JaxprModule& module;
  const analyzer::JaxprSchedule& schedule;
  const analyzer::JaxprLiveness& liveness;
  const analyzer::JaxprFlops& flops;
  int top = 10;  // rows of the live-at-peak table (0: all)
};

std::string RenderJaxprText(const JaxprReportInput& input);
void WriteJaxprJson(const JaxprReportInput& input, llvm::raw_ostream& os);

struct AlpaReportInput {
  const ir::AlpaStageDocument& document;
  const std::vector<analyzer::AlpaStageMemory>& stages;  // one per profile
};

std::string RenderAlpaText(const AlpaReportInput& input);
void WriteAlpaJson(const AlpaReportInput& input, llvm::raw_ostream& os);

// What runs at `step`: "dot_general (model.py:12 dense) in named_call
// stage_0_1_acc_grad_00"; "" for a step out of range.
std::string DescribeJaxprStep(const ir::JaxprModule& module, const analyzer::JaxprSchedule& schedule,
                              int32_t step);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_JAXPR_REPORT_H_
