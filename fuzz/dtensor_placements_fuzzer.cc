// libFuzzer target: PyTorch DTensor placements (parsers/dtensor_parser.h):
// parsed, laid out on their own mesh (or one of 2 devices per placement)
// over a small array, both views checked, and the XLA equivalent through
// the checks of fuzz/shard_fuzz_check.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "fuzz/shard_fuzz_check.h"
#include "ir/dtensor.h"
#include "parsers/dtensor_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  constexpr std::string_view kTarget = "dtensor_placements_fuzzer";
  constexpr std::string_view kName = "fuzz-placements.txt";
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto source = parsers::SourceText::FromString(std::string(kName), bytes);
  absl::StatusOr<parsers::ParsedPlacements> parsed = parsers::ParseDTensorPlacements(*source);
  if (!parsed.ok()) {
    fuzz::CheckLocated(kTarget, parsed.status(), kName);
    return 0;
  }
  ir::Mesh mesh;
  if (parsed->mesh) {
    mesh = parsed->mesh->mesh;
  } else {
    if (parsed->placements.size() > 12) return 0;
    for (size_t i = 0; i < parsed->placements.size(); ++i) mesh.axes.push_back({"d" + std::to_string(i), 2});
  }
  if (mesh.device_count() > fuzz::kFuzzMaxLayoutDevices) return 0;
  int64_t rank = 1;
  for (const ir::Placement& p : parsed->placements) rank = std::max<int64_t>(rank, p.dim < 0 ? -p.dim : p.dim + 1);
  if (rank > 8) return 0;
  const ir::Shape shape = fuzz::FuzzShape(static_cast<size_t>(rank));
  absl::StatusOr<ir::ShardLayout> layout = ir::DTensorShardLayout(mesh, parsed->placements, shape);
  absl::StatusOr<std::optional<ir::HloSharding>> hlo = ir::DTensorToHloSharding(mesh, parsed->placements, rank);
  if (layout.ok() != hlo.ok()) fuzz::ShardFail(kTarget, "layout and XLA equivalent disagree on validity", std::string(bytes));
  if (!layout.ok()) return 0;
  // Every element is held by `copies` devices; the chunks cover the array.
  int64_t held = 0;
  for (const ir::DeviceShard& shard : layout->devices) held += shard.held_elements;
  if (held != shape.ElementCount() * layout->copies) fuzz::ShardFail(kTarget, "chunks do not cover the array", std::string(bytes));
  viz::ShardReportInput report;
  report.notation = "DTensor";
  report.text = std::string(bytes);
  report.mesh = mesh;
  report.placements = parsed->placements;
  if (*hlo) report.hlo_sharding = **hlo;
  report.layouts.push_back(*std::move(layout));
  fuzz::CheckViews(kTarget, report);
  if (*hlo) fuzz::CheckHloSharding(kTarget, **hlo);
  return 0;
}
