// Views of the simulator's results: the hardware presets (`memplan hw
// list`) and a calibration (`memplan calibrate`), as text and JSON.
#ifndef MEMPLAN_VIZ_SIMULATOR_REPORTS_H_
#define MEMPLAN_VIZ_SIMULATOR_REPORTS_H_

#include <span>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "simulator/calibration.h"
#include "simulator/hardware.h"

namespace memplan::viz {

// One line per hardware: name, HBM, HBM bandwidth, dense bf16 peak, NVLink
// and network bandwidth per GPU, GPUs per node, description.
std::string RenderHardwareList(std::span<const simulator::Hardware> hardware);

struct CalibrationReportInput {
  const simulator::Calibration& calibration;
  std::string base;          // the base hardware's name or file
  std::string base_reason;   // how it was chosen: "given", "detected from NVIDIA H100 80GB HBM3"
  std::vector<std::string> sources;  // the measurement files
  const ir::Diagnostics* warnings = nullptr;  // recoverable input problems
};

// Runs (how each was read), fits (alpha, bandwidth, against the base, with
// their residuals) and notes.
std::string RenderCalibrationText(const CalibrationReportInput& input);

// The same as JSON ("schema": "memplan.calibration.v1", docs/cost-model.md).
std::string RenderCalibrationJson(const CalibrationReportInput& input);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_SIMULATOR_REPORTS_H_
