// Views of a program's compute cost (`memplan cost`): totals as XLA counts
// them, what runs with loop trip counts, the roofline time, and the
// instructions that take the most time; as text and JSON.
#ifndef MEMPLAN_VIZ_COST_REPORT_H_
#define MEMPLAN_VIZ_COST_REPORT_H_

#include <string>

#include "ir/module.h"
#include "simulator/compute_cost.h"
#include "simulator/hardware.h"

namespace memplan::viz {

struct CostReportInput {
  const ir::Module& module;
  std::string module_name;
  const simulator::ComputeCost& cost;
  const simulator::Hardware& hardware;
  const simulator::ComputeOptions& options;
  int top = 10;  // instructions listed; 0: all with time
};

std::string RenderCostText(const CostReportInput& input);

// "schema": "memplan.cost.v1" (docs/cost-model.md).
std::string RenderCostJson(const CostReportInput& input);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_COST_REPORT_H_
