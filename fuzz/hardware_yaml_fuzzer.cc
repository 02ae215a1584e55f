// libFuzzer target: hardware files (`--hw FILE`). Beyond "no crash, no
// sanitizer report, no hang" it aborts when a promise breaks:
//   - an error names the input ("fuzz-hw.yaml:line:col: ...");
//   - a file that loads writes back (HardwareToYaml) as YAML that loads to
//     the same values.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "simulator/hardware_loader.h"
#include "simulator/hardware_yaml.h"

namespace {

constexpr std::string_view kName = "fuzz-hw.yaml";

[[noreturn]] void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "hardware_yaml_fuzzer: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

bool SameValues(const memplan::simulator::Hardware& a, const memplan::simulator::Hardware& b) {
  return a.name == b.name && a.description == b.description &&
         a.device_names == b.device_names && a.hbm_bytes == b.hbm_bytes &&
         a.hbm_bandwidth == b.hbm_bandwidth && a.peak_flops == b.peak_flops &&
         a.gpus_per_node == b.gpus_per_node && a.nvlink.bandwidth == b.nvlink.bandwidth &&
         a.nvlink.latency == b.nvlink.latency && a.network.bandwidth == b.network.bandwidth &&
         a.network.latency == b.network.latency && a.collectives.size() == b.collectives.size() &&
         a.efficiency.matmul == b.efficiency.matmul && a.efficiency.vector == b.efficiency.vector &&
         a.efficiency.memory == b.efficiency.memory;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<simulator::Hardware> hw = simulator::LoadHardwareText(text, std::string(kName));
  if (!hw.ok()) {
    const std::string_view message(hw.status().message().data(), hw.status().message().size());
    if (message.substr(0, kName.size() + 1) != std::string(kName) + ":") {
      Fail("error does not name the input", message);
    }
    return 0;
  }
  const std::string yaml = simulator::HardwareToYaml(*hw);
  absl::StatusOr<simulator::Hardware> back = simulator::LoadHardwareText(yaml, "back.yaml");
  if (!back.ok()) Fail("written YAML does not load", yaml + "\n" + std::string(back.status().message()));
  if (!SameValues(*hw, *back)) Fail("written YAML loads to other values", yaml);
  return 0;
}
