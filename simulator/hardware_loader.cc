#include "simulator/hardware_loader.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "simulator/hardware_yaml.h"
#include "simulator/presets.h"

namespace memplan::simulator {
namespace {

constexpr int kMaxExtendsDepth = 8;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool LooksLikePath(std::string_view spec) {
  std::error_code ec;
  return spec.find('/') != std::string_view::npos || EndsWith(spec, ".yaml") ||
         EndsWith(spec, ".yml") || std::filesystem::is_regular_file(std::string(spec), ec);
}

constexpr std::uintmax_t kMaxHardwareFileBytes = 1 << 20;

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return absl::InvalidArgumentError(StrCat(path, ": cannot read the hardware file: no such file"));
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    return absl::InvalidArgumentError(
        StrCat(path, ": cannot read the hardware file: not a regular file"));
  }
  if (std::filesystem::file_size(path, ec) > kMaxHardwareFileBytes) {
    return absl::InvalidArgumentError(
        StrCat(path, ": not a hardware file (larger than 1 MiB)"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(StrCat(path, ": cannot read the hardware file"));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<Hardware> Resolve(std::string_view text, const std::string& file_name,
                                 int depth);

// `spec` as named from `from_file` (a path relative to its directory).
absl::StatusOr<Hardware> ResolveSpec(std::string_view spec, const std::string& from_file,
                                     int depth) {
  if (!LooksLikePath(spec) || (FindPreset(spec) != nullptr && !std::filesystem::exists(
                                                                    std::string(spec)))) {
    const Preset* preset = FindPreset(spec);
    if (preset == nullptr) {
      return absl::InvalidArgumentError(StrCat("unknown hardware '", spec,
                                               "': expected a hardware file or one of ",
                                               PresetNames()));
    }
    return Resolve(preset->yaml, StrCat("<preset ", preset->name, ">"), depth);
  }
  std::filesystem::path path(spec);
  if (path.is_relative() && !from_file.empty() && from_file.front() != '<') {
    path = std::filesystem::path(from_file).parent_path() / path;
  }
  ASSIGN_OR_RETURN(const std::string text, ReadFile(path.string()));
  return Resolve(text, path.string(), depth);
}

absl::StatusOr<Hardware> Resolve(std::string_view text, const std::string& file_name,
                                 int depth) {
  ASSIGN_OR_RETURN(const HardwareOverlay overlay, ParseHardwareYaml(text, file_name));
  Hardware base;
  if (overlay.extends) {
    if (depth >= kMaxExtendsDepth) {
      return absl::InvalidArgumentError(
          StrCat(overlay.extends_location, ": error: 'extends' nests more than ",
                 kMaxExtendsDepth, " files deep (do they extend each other?)"));
    }
    absl::StatusOr<Hardware> resolved = ResolveSpec(*overlay.extends, file_name, depth + 1);
    if (!resolved.ok()) {
      return absl::InvalidArgumentError(
          StrCat(overlay.extends_location, ": error: in 'extends: ", *overlay.extends, "': ",
                 resolved.status().message()));
    }
    base = *std::move(resolved);
  }
  return ApplyOverlay(std::move(base), overlay);
}

absl::StatusOr<Hardware> Complete(absl::StatusOr<Hardware> hw, const std::string& file_name) {
  if (!hw.ok()) return hw;
  const std::vector<std::string> missing = MissingHardwareFields(*hw);
  if (missing.empty()) return hw;
  std::string list;
  for (const std::string& m : missing) StrAppend(&list, list.empty() ? "" : ", ", m);
  return absl::InvalidArgumentError(
      StrCat(file_name, ":1:1: error: incomplete hardware description: missing ", list,
             "; give them, or start from a preset with 'extends: NAME' (", PresetNames(), ")"));
}

}  // namespace

std::string PresetNames() {
  std::string out;
  for (const Preset& p : BuiltinPresets()) StrAppend(&out, out.empty() ? "" : ", ", p.name);
  return out;
}

absl::StatusOr<Hardware> LoadHardware(std::string_view spec) {
  if (spec.empty()) {
    return absl::InvalidArgumentError(
        StrCat("expected a hardware file or preset name (", PresetNames(), ")"));
  }
  return Complete(ResolveSpec(spec, "", 0), std::string(spec));
}

absl::StatusOr<Hardware> LoadHardwareText(std::string_view text, const std::string& file_name) {
  return Complete(Resolve(text, file_name, 0), file_name);
}

std::optional<std::string> PresetForDevice(std::string_view device) {
  while (!device.empty() && device.back() == ' ') device.remove_suffix(1);
  // `memplan bench-collectives` adds " (device 0 of 8, ...)".
  if (const size_t paren = device.find(" ("); paren != std::string_view::npos) {
    device = device.substr(0, paren);
  }
  for (const Preset& p : BuiltinPresets()) {
    absl::StatusOr<HardwareOverlay> overlay = ParseHardwareYaml(p.yaml, std::string(p.name));
    if (!overlay.ok() || !overlay->device_names) continue;
    for (const std::string& name : *overlay->device_names) {
      if (name == device) return std::string(p.name);
    }
  }
  return std::nullopt;
}

}  // namespace memplan::simulator
