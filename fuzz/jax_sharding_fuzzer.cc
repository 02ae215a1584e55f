// libFuzzer target: JAX meshes and shardings (parsers/jax_sharding_parser.h).
// The whole input is read as a mesh, as a device list and as a spec; when
// it holds a newline, the first line is the mesh and the rest the spec,
// which then goes through the spec checks, JAX's lowering, the layout and
// both views (fuzz/shard_fuzz_check.h).
#include <cstddef>
#include <cstdint>

#include "fuzz/shard_fuzz_check.h"
#include "ir/partition_spec.h"
#include "parsers/jax_sharding_parser.h"

namespace {

using namespace memplan;
constexpr std::string_view kTarget = "jax_sharding_fuzzer";

void LowerAndLayOut(const ir::JaxNamedSharding& named, const ir::Shape& shape, const std::string& text) {
  absl::StatusOr<ir::HloSharding> hlo = ir::PartitionSpecToHloSharding(named, static_cast<int64_t>(shape.dims.size()));
  if (!hlo.ok()) return;
  if (named.mesh.device_count() > fuzz::kFuzzMaxLayoutDevices) return;
  fuzz::CheckHloSharding(kTarget, *hlo);
  absl::StatusOr<ir::ShardLayout> layout = ir::XlaShardLayout(*hlo, shape, named.mesh.DeviceIds(), 1);
  if (!layout.ok()) fuzz::ShardFail(kTarget, "a lowered spec has no layout", text + "\n" + std::string(layout.status().message()));
  viz::ShardReportInput report;
  report.notation = "PartitionSpec";
  report.text = text;
  report.mesh = named.mesh;
  report.hlo_sharding = *hlo;
  report.layouts.push_back(*std::move(layout));
  fuzz::CheckViews(kTarget, report);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto whole = parsers::SourceText::FromString("fuzz-jax.txt", bytes);
  absl::StatusOr<parsers::ParsedMesh> mesh = parsers::ParseMeshText(*whole);
  if (!mesh.ok()) fuzz::CheckLocated(kTarget, mesh.status(), "fuzz-jax.txt");
  absl::StatusOr<std::vector<int64_t>> ids = parsers::ParseDeviceList(*whole);
  if (!ids.ok()) fuzz::CheckLocated(kTarget, ids.status(), "fuzz-jax.txt");
  absl::StatusOr<parsers::ParsedJaxSharding> spec = parsers::ParseJaxShardingText(*whole);
  if (!spec.ok()) {
    fuzz::CheckLocated(kTarget, spec.status(), "fuzz-jax.txt");
  } else if (spec->mesh) {
    ir::JaxNamedSharding named{spec->mesh->mesh, spec->mesh->axis_types, spec->spec, spec->memory_kind,
                               spec->logical_device_ids};
    const ir::Shape shape = spec->shape ? *spec->shape : fuzz::FuzzShape(spec->spec.dims.size());
    if (shape.IsArray() && shape.dims.size() <= 8 && shape.ElementCount() <= (1 << 20) &&
        parsers::CheckPartitionSpec(*whole, *spec, named.mesh, static_cast<int64_t>(shape.dims.size())).ok()) {
      LowerAndLayOut(named, shape, std::string(bytes));
    }
  }

  const size_t newline = bytes.find('\n');
  if (newline == std::string_view::npos) return 0;
  auto mesh_text = parsers::SourceText::FromString("fuzz-mesh.txt", bytes.substr(0, newline));
  auto spec_text = parsers::SourceText::FromString("fuzz-spec.txt", bytes.substr(newline + 1));
  absl::StatusOr<parsers::ParsedMesh> m = parsers::ParseMeshText(*mesh_text);
  absl::StatusOr<parsers::ParsedJaxSharding> s = parsers::ParseJaxShardingText(*spec_text);
  if (!m.ok()) fuzz::CheckLocated(kTarget, m.status(), "fuzz-mesh.txt");
  if (!s.ok()) fuzz::CheckLocated(kTarget, s.status(), "fuzz-spec.txt");
  if (!m.ok() || !s.ok()) return 0;
  const ir::Shape shape = fuzz::FuzzShape(s->spec.dims.size());
  const absl::Status checked = parsers::CheckPartitionSpec(*spec_text, *s, m->mesh, static_cast<int64_t>(shape.dims.size()));
  if (!checked.ok()) {
    fuzz::CheckLocated(kTarget, checked, "fuzz-spec.txt");
    return 0;
  }
  ir::JaxNamedSharding named{m->mesh, m->axis_types, s->spec, s->memory_kind, s->logical_device_ids};
  LowerAndLayOut(named, shape, std::string(bytes));
  return 0;
}
