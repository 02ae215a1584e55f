#include "simulator/hardware.h"

namespace memplan::simulator {

std::string_view PrecisionName(Precision p) {
  switch (p) {
    case Precision::kF64:
      return "f64";
    case Precision::kF32:
      return "f32";
    case Precision::kTf32:
      return "tf32";
    case Precision::kBf16:
      return "bf16";
    case Precision::kF16:
      return "f16";
    case Precision::kFp8:
      return "fp8";
    case Precision::kInt8:
      return "int8";
  }
  return "unknown";
}

std::optional<Precision> PrecisionFromName(std::string_view name) {
  for (Precision p : kAllPrecisions) {
    if (PrecisionName(p) == name) return p;
  }
  return std::nullopt;
}

std::string_view LinkName(Link link) { return link == Link::kNvlink ? "nvlink" : "network"; }

std::optional<Link> LinkFromName(std::string_view name) {
  if (name == "nvlink") return Link::kNvlink;
  if (name == "network") return Link::kNetwork;
  return std::nullopt;
}

AlphaBeta Hardware::ParamsFor(Link l, ir::CollectiveKind kind) const {
  if (auto it = collectives.find({l, kind}); it != collectives.end()) return it->second;
  const LinkSpec& spec = link(l);
  return {spec.latency, spec.bandwidth};
}

double Hardware::PeakFlops(Precision p) const {
  const double own = peak_flops[static_cast<int>(p)];
  if (own > 0) return own;
  // Fall back along what the hardware would run instead.
  switch (p) {
    case Precision::kFp8:
    case Precision::kInt8:
      return PeakFlops(Precision::kBf16);
    case Precision::kBf16:
    case Precision::kF16:
    case Precision::kTf32:
      return peak_flops[static_cast<int>(Precision::kF32)];
    default:
      return own;
  }
}

std::vector<std::string> MissingHardwareFields(const Hardware& hw) {
  std::vector<std::string> missing;
  if (hw.name.empty()) missing.push_back("name");
  if (hw.hbm_bytes <= 0) missing.push_back("device.hbm_bytes");
  if (hw.hbm_bandwidth <= 0) missing.push_back("device.hbm_bandwidth");
  if (hw.peak_flops[static_cast<int>(Precision::kF32)] <= 0) {
    missing.push_back("device.peak_flops.f32");
  }
  if (hw.gpus_per_node <= 0) missing.push_back("node.gpus_per_node");
  if (hw.nvlink.bandwidth <= 0) missing.push_back("links.nvlink.bandwidth");
  if (hw.network.bandwidth <= 0) missing.push_back("links.network.bandwidth");
  return missing;
}

}  // namespace memplan::simulator
