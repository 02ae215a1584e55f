// memplan hw list / show.
#include <cstdio>
#include <vector>

#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/output_file.h"
#include "cli/simulator_commands.h"
#include "ir/strings.h"
#include "simulator/hardware_loader.h"
#include "simulator/hardware_yaml.h"
#include "simulator/presets.h"
#include "viz/simulator_reports.h"

namespace memplan::cli {
namespace {

int Usage() {
  return Fail("expected 'memplan hw list' or 'memplan hw show NAME|FILE' (see memplan hw --help)");
}

int Write(const std::string& output, std::string_view text) {
  if (absl::Status s = WriteOutput(output, text); !s.ok()) return Fail(FromAbsl(s.message()));
  return kExitOk;
}

}  // namespace

int RunHw(const HwFlags& flags) {
  if (flags.args.empty()) return Usage();
  const std::string& action = flags.args[0];
  if (action == "list") {
    if (flags.args.size() != 1) return Usage();
    std::vector<simulator::Hardware> all;
    for (const simulator::Preset& p : simulator::BuiltinPresets()) {
      absl::StatusOr<simulator::Hardware> hw = simulator::LoadHardware(p.name);
      if (!hw.ok()) return Fail(FromAbsl(hw.status().message()));
      all.push_back(*std::move(hw));
    }
    return Write(flags.output, viz::RenderHardwareList(all));
  }
  if (action == "show") {
    if (flags.args.size() != 2) return Usage();
    const std::string& spec = flags.args[1];
    absl::StatusOr<simulator::Hardware> hw = simulator::LoadHardware(spec);
    if (!hw.ok()) return Fail(FromAbsl(hw.status().message()));
    if (const simulator::Preset* preset = simulator::FindPreset(spec);
        preset != nullptr && hw->name == preset->name) {
      return Write(flags.output, preset->yaml);  // the file itself, comments and all
    }
    return Write(flags.output,
                 StrCat("# as memplan reads it: 'extends' resolved, units canonical\n",
                        simulator::HardwareToYaml(*hw)));
  }
  return Usage();
}

}  // namespace memplan::cli
