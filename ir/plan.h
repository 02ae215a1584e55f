// A sharding plan resolved against one program: the mesh, and for every entry
// parameter the HloSharding it gets. This is what a plan file (docs/
// plan-format.md) becomes once its keys are matched to the program's
// arguments, what `memplan plan --family` produces, and what prediction,
// the simulator and the executor take. Header-only data; the parser lives in
// parsers/plan_parser.h, the families in analyzer/plan_families.h.
#ifndef MEMPLAN_IR_PLAN_H_
#define MEMPLAN_IR_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/mesh.h"
#include "ir/sharding.h"

namespace memplan::ir {

// Where one argument's sharding came from.
enum class PlanSource : uint8_t {
  kKey,         // a plan key named it (name, glob or parameter number)
  kDefault,     // no key matched: replicated
};

struct ArgumentPlan {
  int64_t parameter = -1;   // entry parameter number
  std::string name;         // its pytree path ("params[0][0]"), may be empty
  HloSharding sharding;     // over mesh.DeviceIds(); tuple-free
  PlanSource source = PlanSource::kDefault;
  std::string key;          // the plan key that matched (kKey)
  bool donated = false;
};

struct ResolvedPlan {
  Mesh mesh;
  // One per entry parameter, in parameter order (arguments[i].parameter == i).
  std::vector<ArgumentPlan> arguments;
  // Output shardings by flattened output index; empty: unspecified (the
  // prediction propagates them).
  std::vector<std::optional<HloSharding>> outputs;
  // How many arguments no key matched (replicated by default).
  int64_t unmatched_arguments = 0;
  // The plan's own name (file stem or family label such as "dp2_tp4").
  std::string label;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_PLAN_H_
