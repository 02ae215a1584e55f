// memplan cost: FLOPs, bytes and compute time of a program on one device.
#include <cstdio>

#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/load_or_report.h"
#include "cli/output_file.h"
#include "cli/simulator_commands.h"
#include "ir/strings.h"
#include "parsers/load_program.h"
#include "simulator/compute_cost.h"
#include "simulator/hardware_loader.h"
#include "viz/cost_report.h"
#include "viz/describe.h"

namespace memplan::cli {

int RunCost(const CostFlags& flags) {
  simulator::ComputeOptions options;
  if (flags.f32_dots == "tf32") {
    options.f32_dot = simulator::Precision::kTf32;
  } else if (flags.f32_dots == "f32") {
    options.f32_dot = simulator::Precision::kF32;
  } else {
    return Fail(StrCat("--f32-dots=", flags.f32_dots, ": expected tf32 or f32"));
  }
  if (flags.top < 0) return Fail("--top: expected 0 (all) or more");
  absl::StatusOr<simulator::Hardware> hw = simulator::LoadHardware(flags.hw);
  if (!hw.ok()) return Fail(FromAbsl(hw.status().message()));
  std::optional<parsers::LoadedProgram> loaded = LoadOrReport(flags.path, flags.module);
  if (!loaded) return kExitBadInput;
  const ir::Module& module = loaded->program.module;
  if (module.entry_computation() == nullptr) {
    return Fail(StrCat(flags.path, ": the input gives no entry computation to cost; read the "
                                   "module's HLO text or HloProto"));
  }
  const simulator::ComputeCost cost = simulator::AnalyzeCompute(module, *hw, options);
  const viz::CostReportInput input{module, loaded->program.module_name, cost, *hw, options,
                                   flags.top};
  const std::string report = flags.format == CostFormat::kJson ? viz::RenderCostJson(input)
                                                                : viz::RenderCostText(input);
  if (absl::Status s = WriteOutput(flags.output, report); !s.ok()) {
    return Fail(FromAbsl(s.message()));
  }
  PrintModuleChoice(*loaded);
  return kExitOk;
}

}  // namespace memplan::cli
