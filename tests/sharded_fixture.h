// A program of the sharded corpus (samples/sharded/<program>) loaded for
// the simulator's tests: the single-device program, its entry arguments and
// its families.yaml, and plans of the standard families built from them.
// Shared by rank_test.cc and step_test.cc. Failures are gtest failures.
#ifndef MEMPLAN_TESTS_SHARDED_FIXTURE_H_
#define MEMPLAN_TESTS_SHARDED_FIXTURE_H_

#include <string>
#include <vector>

#include "ir/entry_arguments.h"
#include "ir/plan.h"
#include "ir/spec_plan.h"
#include "parsers/load_program.h"
#include "simulator/hardware.h"

namespace memplan::test {

struct ShardedProgram {
  parsers::LoadedProgram loaded;
  std::vector<ir::EntryArgument> arguments;
  ir::FamilyInputs inputs;  // families.yaml
  const ir::Module& module() const { return loaded.program.module; }
};

// samples/sharded/`program` (a directory name such as "mlp_train_step").
ShardedProgram LoadShardedProgram(const std::string& program);

// The H100 SXM preset.
simulator::Hardware H100();

// The family plan (analyzer::BuildFamilyPlan) of `p` on a mesh of `axes`,
// lowered to per-parameter shardings.
ir::ResolvedPlan FamilyPlan(const ShardedProgram& p, std::vector<ir::MeshAxis> axes);

}  // namespace memplan::test

#endif  // MEMPLAN_TESTS_SHARDED_FIXTURE_H_
