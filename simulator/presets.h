// The built-in hardware presets: simulator/presets/*.yaml, compiled into the
// binary (embed_presets.cmake) so that `memplan hw show NAME` prints the very
// text the loader reads.
#ifndef MEMPLAN_SIMULATOR_PRESETS_H_
#define MEMPLAN_SIMULATOR_PRESETS_H_

#include <span>
#include <string_view>

namespace memplan::simulator {

struct Preset {
  std::string_view name;  // the file name without .yaml: "h100"
  std::string_view yaml;  // the file's text
};

// Sorted by name.
std::span<const Preset> BuiltinPresets();

// The preset called `name` (case ignored), or nullptr.
const Preset* FindPreset(std::string_view name);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_PRESETS_H_
