// A plan in PartitionSpec form, before lowering: the mesh and a spec per
// entry argument, as a plan file writes it (docs/plan-format.md). What
// `memplan plan --family` derives (analyzer/plan_families.h) and the plan
// writer (parsers/plan_writer.h) prints; parsers/plan_parser.h reads it back
// into an ir::ResolvedPlan.
#ifndef MEMPLAN_IR_SPEC_PLAN_H_
#define MEMPLAN_IR_SPEC_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/mesh.h"
#include "ir/partition_spec.h"
#include "ir/shape.h"

namespace memplan::ir {

struct SpecPlanArgument {
  int64_t parameter = 0;
  std::string name;  // pytree path; empty: the plan names the parameter number
  Shape shape;
  PartitionSpec spec;  // one entry per dimension
  bool donated = false;
};

struct SpecPlan {
  Mesh mesh;
  std::vector<SpecPlanArgument> arguments;  // in parameter order
  std::string label;                        // "dp2_tp4"
};

// How a tensor-parallel rule shards what its glob matches (PyTorch's
// ParallelStyles, for weights stored [..., in, out] as JAX stores them).
enum class TpStyle {
  kColwise,   // ColwiseParallel: the last dimension over `tp`
  kRowwise,   // RowwiseParallel: the second-to-last dimension over `tp`
  kSequence,  // SequenceParallel: a data argument's dimension 1 (the
              // sequence) over `tp`; a parameter stays replicated
};

struct TpRule {
  std::string glob;
  TpStyle style = TpStyle::kColwise;
};

// What `memplan plan --family` derives candidates from (a program's
// families.yaml; samples/sharded/README.md has the rules).
struct FamilyInputs {
  // Top-level argument names (the pytree path up to the first '[') of the
  // data; every other argument is a parameter.
  std::vector<std::string> data;
  // fsdp shards parameters with at least this many elements.
  int64_t min_fsdp_elements = int64_t{1} << 18;
  std::vector<TpRule> tp;       // parameter glob -> style
  std::vector<std::string> ep;  // parameter globs sharded on dim 0 over `ep`
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_SPEC_PLAN_H_
