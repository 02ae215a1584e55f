// The one way every command reads `--hw FILE|NAME`: a built-in preset by
// name, or a hardware file (which may `extends:` a preset or another file).
#ifndef MEMPLAN_SIMULATOR_HARDWARE_LOADER_H_
#define MEMPLAN_SIMULATOR_HARDWARE_LOADER_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "simulator/hardware.h"

namespace memplan::simulator {

// `spec` is a preset name ("h100", case ignored) or a path. A path is taken
// as a file when it exists, contains '/', or ends in .yaml or .yml.
// InvalidArgument: "file:line:col: error: ..." for a bad file, the list of
// presets for an unknown name, the missing fields for an incomplete result.
absl::StatusOr<Hardware> LoadHardware(std::string_view spec);

// The same for text already in memory, as if read from `file_name`
// (relative `extends:` paths resolve against its directory).
absl::StatusOr<Hardware> LoadHardwareText(std::string_view text, const std::string& file_name);

// "a100, b200, h100, h200".
std::string PresetNames();

// The preset that lists `device` (as nvidia-smi and nccl-tests print it,
// e.g. "NVIDIA H100 80GB HBM3") among its device_names; nullopt if none.
std::optional<std::string> PresetForDevice(std::string_view device);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_HARDWARE_LOADER_H_
