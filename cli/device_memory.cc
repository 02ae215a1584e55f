#include "cli/device_memory.h"

#include <charconv>

#include "ir/strings.h"
#include "simulator/hardware_loader.h"
#include "simulator/presets.h"

namespace memplan::cli {
namespace {

bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// N of "<model>-<N>GB" (GB in any case), or nullopt.
std::optional<int64_t> GigabytesInName(std::string_view name) {
  const size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || name.size() < dash + 4) return std::nullopt;
  for (size_t i = 0; i < dash; ++i) {
    if (!IsAlnum(name[i])) return std::nullopt;
  }
  const std::string_view unit = name.substr(name.size() - 2);
  if ((unit[0] != 'G' && unit[0] != 'g') || (unit[1] != 'B' && unit[1] != 'b')) {
    return std::nullopt;
  }
  const std::string_view digits = name.substr(dash + 1, name.size() - 2 - dash - 1);
  int64_t gib = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), gib);
  if (ec != std::errc() || end != digits.data() + digits.size() || gib <= 0 || gib > 1 << 20) {
    return std::nullopt;
  }
  return gib << 30;
}

}  // namespace

std::optional<int64_t> DeviceMemoryBytes(std::string_view name) {
  if (simulator::FindPreset(name) != nullptr) {
    absl::StatusOr<simulator::Hardware> hw = simulator::LoadHardware(name);
    if (hw.ok() && hw->hbm_bytes > 0) return hw->hbm_bytes;
    return std::nullopt;
  }
  return GigabytesInName(name);
}

std::string DeviceMemoryNames() {
  return StrCat("a hardware preset (", simulator::PresetNames(),
                ": its hbm_bytes) or a model with its memory in GB (H100-80GB: 80 GiB)");
}

parsers::DeviceCatalog DeviceMemoryCatalog() {
  return {DeviceMemoryBytes, DeviceMemoryNames()};
}

}  // namespace memplan::cli
