// Plan files (docs/plan-format.md): a mesh and a sharding per entry argument,
// in YAML (block or flow style) or JSON, read with LLVM's YAML parser.
//
//   mesh: {dp: 2, tp: 4}
//   arguments:
//     x: [dp, null, null]              # a PartitionSpec as a list
//     "params[0]": "P(None, 'tp')"     # a PartitionSpec repr
//     "*['w_o']": "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"
//     3: [tp, null]                    # by parameter number
//   outputs: {0: [dp, null]}
//   donate: ["params*"]
//
// ParsePlan reads the file and checks what needs no program (keys, mesh,
// axes named by specs); ResolvePlan matches it to a program's arguments and
// lowers every spec to the HloSharding JAX gives it. Every error is
// "file:line:col: error: <what was expected>".
#ifndef MEMPLAN_PARSERS_PLAN_PARSER_H_
#define MEMPLAN_PARSERS_PLAN_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/entry_arguments.h"
#include "ir/mesh.h"
#include "ir/partition_spec.h"
#include "ir/plan.h"
#include "ir/shape.h"
#include "ir/sharding.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// Deepest nesting of mappings and sequences a plan may have (a plan needs
// 4); deeper input is refused before the YAML parser, which recurses, sees it.
inline constexpr int kMaxPlanDepth = 32;

// One spec as written. Offsets are byte offsets into the plan's text.
struct PlanSpec {
  enum class Form {
    kList,           // [dp, null], [[dp, tp], null]: one entry per dimension
    kPartitionSpec,  // "P('dp', None)" / "PartitionSpec(...)": may be shorter
    kHloSharding,    // "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"
  };
  Form form = Form::kList;
  ir::PartitionSpec spec;     // kList, kPartitionSpec
  ir::HloSharding sharding;   // kHloSharding, canonical (ir::CanonicalHloSharding)
  size_t offset = 0;          // where the spec starts
  size_t end_offset = 0;      // where it ends (rank errors point there)
  // Where each axis name stands, per spec entry (kList, kPartitionSpec).
  std::vector<std::vector<size_t>> axis_offsets;
  // Where each entry starts (kList; the spec's offset for other forms).
  std::vector<size_t> dim_offsets;
  // A NamedSharding repr's own mesh (must equal the plan's axes).
  std::optional<ir::Mesh> repr_mesh;
};

// An argument selector (a key of `arguments`, an element of `donate`).
struct PlanKey {
  enum class Kind { kName, kGlob, kNumber };
  Kind kind = Kind::kName;
  std::string text;     // as unquoted
  int64_t number = -1;  // kNumber
  size_t offset = 0;
};

struct PlanArgumentEntry {
  PlanKey key;
  PlanSpec spec;
};

struct PlanOutputEntry {
  int64_t index = 0;
  size_t offset = 0;
  PlanSpec spec;
};

struct PlanFile {
  std::shared_ptr<const SourceText> source;
  ir::Mesh mesh;  // validated; kList order when `devices` is given
  std::vector<PlanArgumentEntry> arguments;  // in file order
  std::vector<PlanOutputEntry> outputs;      // in file order
  std::vector<PlanKey> donate;
};

// Reads a plan. InvalidArgument naming file:line:col on: text that is not
// YAML/JSON, nesting deeper than kMaxPlanDepth, a missing `mesh` or
// `arguments`, an unknown or repeated key, a mesh axis that is not an
// identifier or a size that is not a positive integer, a `devices` list that
// is not a permutation of 0..N-1, a spec naming an axis the mesh lacks or an
// axis twice, a spec that is none of the notations above, an HloSharding
// whose devices are not the mesh's N.
absl::StatusOr<PlanFile> ParsePlan(std::shared_ptr<const SourceText> source);

// Matches `plan` to a program's entry `arguments` (in parameter order) and
// `outputs` (the flattened result leaves) and lowers each spec to the
// HloSharding JAX gives it (ir::PartitionSpecToHloSharding). Arguments no
// key selects are replicated and counted. InvalidArgument naming
// file:line:col on: a key that selects no argument, an argument two keys
// select (both positions), a list spec whose length is not the argument's
// rank (a repr spec longer than the rank), an HloSharding of another rank, a
// sharded dimension that does not divide by its ways, an output index out of
// range, a donate key that selects nothing.
absl::StatusOr<ir::ResolvedPlan> ResolvePlan(const PlanFile& plan,
                                             const std::vector<ir::EntryArgument>& arguments,
                                             const std::vector<ir::Shape>& outputs);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_PLAN_PARSER_H_
