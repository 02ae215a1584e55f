#include "tests/sharded_fixture.h"

#include <utility>

#include "analyzer/plan_families.h"
#include "gtest/gtest.h"
#include "parsers/family_inputs_parser.h"
#include "parsers/source_text.h"
#include "simulator/hardware_loader.h"
#include "simulator/rank.h"
#include "tests/test_util.h"

namespace memplan::test {

ShardedProgram LoadShardedProgram(const std::string& program) {
  const std::string dir = SourcePath("samples/sharded/" + program);
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(dir, {});
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  ShardedProgram out{*std::move(loaded), {}, {}};
  out.arguments = *ir::EntryArguments(out.loaded.program.module);
  auto source = parsers::SourceText::FromFile(dir + "/families.yaml");
  EXPECT_TRUE(source.ok());
  out.inputs = *parsers::ParseFamilyInputs(*source);
  return out;
}

simulator::Hardware H100() { return *simulator::LoadHardware("h100"); }

ir::ResolvedPlan FamilyPlan(const ShardedProgram& p, std::vector<ir::MeshAxis> axes) {
  ir::Mesh mesh;
  mesh.axes = std::move(axes);
  absl::StatusOr<ir::SpecPlan> spec = analyzer::BuildFamilyPlan(p.arguments, mesh, p.inputs);
  EXPECT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<ir::ResolvedPlan> plan = analyzer::LowerSpecPlan(*spec);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return *plan;
}

}  // namespace memplan::test
