// A GPU and its interconnect as data: what the cost model needs to price
// compute and communication. Read from YAML (simulator/hardware_yaml.h,
// docs/hardware.md); built-in presets in simulator/presets/.
//
// Units are SI base units throughout: bytes, bytes per second, seconds,
// FLOP per second. Bandwidths are per GPU and per direction.
#ifndef MEMPLAN_SIMULATOR_HARDWARE_H_
#define MEMPLAN_SIMULATOR_HARDWARE_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/collective.h"

namespace memplan::simulator {

// The precisions a datasheet quotes dense peak rates for.
enum class Precision : uint8_t { kF64, kF32, kTf32, kBf16, kF16, kFp8, kInt8 };
inline constexpr int kNumPrecisions = 7;
inline constexpr Precision kAllPrecisions[kNumPrecisions] = {
    Precision::kF64,  Precision::kF32, Precision::kTf32, Precision::kBf16,
    Precision::kF16,  Precision::kFp8, Precision::kInt8};

// "f64", "f32", "tf32", "bf16", "f16", "fp8", "int8".
std::string_view PrecisionName(Precision p);
std::optional<Precision> PrecisionFromName(std::string_view name);

// The two kinds of link a collective can run on: NVLink inside a node, the
// network (one NIC per GPU) between nodes.
enum class Link : uint8_t { kNvlink, kNetwork };
inline constexpr Link kAllLinks[] = {Link::kNvlink, Link::kNetwork};
std::string_view LinkName(Link link);  // "nvlink", "network"
std::optional<Link> LinkFromName(std::string_view name);

struct LinkSpec {
  double bandwidth = 0;  // bytes/s per GPU per direction
  double latency = 0;    // seconds per collective step (alpha)
};

// One collective's alpha-beta on one link, fitted from measurements
// (`memplan calibrate`): time = alpha * steps + bus_bytes / bandwidth.
struct AlphaBeta {
  double alpha = 0;      // seconds per step
  double bandwidth = 0;  // bus bandwidth, bytes/s
};

// Achieved / peak, per op class: the roofline's efficiency factors.
struct Efficiency {
  double matmul = 0.7;  // dot and convolution against the dense Tensor Core peak
  double vector = 0.5;  // elementwise and reductions against the f32 peak
  double memory = 0.8;  // HBM traffic against hbm_bandwidth
};

struct Hardware {
  std::string name;         // "h100"
  std::string description;  // one line
  // Device names as nvidia-smi and nccl-tests print them ("NVIDIA H100 80GB
  // HBM3"), to recognise which hardware a measurement came from.
  std::vector<std::string> device_names;

  int64_t hbm_bytes = 0;
  double hbm_bandwidth = 0;                         // bytes/s
  std::array<double, kNumPrecisions> peak_flops{};  // dense FLOP/s; 0: not supported

  int64_t gpus_per_node = 0;
  LinkSpec nvlink;
  LinkSpec network;
  // Calibrated alpha-beta per (link, collective); absent ones use the link.
  std::map<std::pair<Link, ir::CollectiveKind>, AlphaBeta> collectives;
  Efficiency efficiency;

  const LinkSpec& link(Link l) const { return l == Link::kNvlink ? nvlink : network; }

  // Alpha and bus bandwidth for `kind` on `l`: the calibrated values if any,
  // else the link's latency and bandwidth.
  AlphaBeta ParamsFor(Link l, ir::CollectiveKind kind) const;

  // Peak for `p`, or the closest wider precision a device runs it at when
  // the datasheet has none (fp8 on A100 runs as bf16).
  double PeakFlops(Precision p) const;
};

// The fields a complete hardware description must have that `hw` lacks,
// as YAML paths ("device.hbm_bytes", "links.network.bandwidth").
std::vector<std::string> MissingHardwareFields(const Hardware& hw);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_HARDWARE_H_
