// Hardware files (YAML; the schema is in docs/hardware.md). A file may
// extend a preset or another file and change only some fields, so reading
// gives an overlay; simulator/hardware_loader.h resolves `extends` and
// checks the result is complete.
#ifndef MEMPLAN_SIMULATOR_HARDWARE_YAML_H_
#define MEMPLAN_SIMULATOR_HARDWARE_YAML_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/collective.h"
#include "simulator/hardware.h"

namespace memplan::simulator {

// What one file says; absent fields are nullopt.
struct HardwareOverlay {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<std::string> extends;
  std::string extends_location;  // "file:line:col" of the extends value
  std::optional<std::vector<std::string>> device_names;
  std::optional<int64_t> hbm_bytes;
  std::optional<double> hbm_bandwidth;
  std::array<std::optional<double>, kNumPrecisions> peak_flops;
  std::optional<int64_t> gpus_per_node;
  std::optional<double> nvlink_bandwidth;
  std::optional<double> nvlink_latency;
  std::optional<double> network_bandwidth;
  std::optional<double> network_latency;
  std::map<std::pair<Link, ir::CollectiveKind>, AlphaBeta> collectives;
  std::optional<double> matmul_efficiency;
  std::optional<double> vector_efficiency;
  std::optional<double> memory_efficiency;
};

// Parses a hardware file. InvalidArgument "file:line:col: error: ..." (with
// the line and a caret) for YAML syntax errors, unknown or repeated keys,
// and values that are not what the key takes.
absl::StatusOr<HardwareOverlay> ParseHardwareYaml(std::string_view text,
                                                  const std::string& file_name);

// `base` with every field the overlay sets replaced (calibrated collectives
// are added to, or replace, the base's).
Hardware ApplyOverlay(Hardware base, const HardwareOverlay& overlay);

// A complete hardware file for `hw`, in the schema's order, that
// ParseHardwareYaml reads back to the same values.
std::string HardwareToYaml(const Hardware& hw);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_HARDWARE_YAML_H_
