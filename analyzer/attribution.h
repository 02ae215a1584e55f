// Who made the bytes live at the peak: the peak's values grouped into a tree
// by one key, and the same as folded stacks for flame graphs.
//   op     - op_name path: "jit(f)/jit(main)/dot_general" is three levels
//   source - the call stack (stack frames, outermost first) or
//            source_file then source_line
//   type   - op_type (else the HLO opcode in brackets)
#ifndef MEMPLAN_ANALYZER_ATTRIBUTION_H_
#define MEMPLAN_ANALYZER_ATTRIBUTION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/source_resolution.h"
#include "ir/program.h"

namespace memplan::analyzer {

enum class AttributionKey { kOpName, kSource, kOpType };

// "op", "source", "type".
std::string_view AttributionKeyName(AttributionKey key);
std::optional<AttributionKey> AttributionKeyFromName(std::string_view name);

struct AttributionNode {
  std::string name;
  int64_t bytes = 0;   // this node and everything under it
  int64_t values = 0;
  std::vector<AttributionNode> children;  // most bytes first, then by name
};

// The origin of each of `program`'s values, in the order of program.values.
std::vector<ValueOrigin> ResolveValueOrigins(const ir::Program& program);

// The path of labels `value` (with origin `origin`) is attributed to under
// `key`; never empty (values without the needed metadata go to one
// "(no ...)" label).
std::vector<std::string> AttributionPath(const ir::Program& program, const ir::Value& value,
                                         const ValueOrigin& origin, AttributionKey key);

// A tree whose root ("all") holds `values`. `origins` as ResolveValueOrigins
// gives them.
AttributionNode Attribute(const ir::Program& program, const std::vector<ValueOrigin>& origins,
                          const std::vector<ir::ValueId>& values, AttributionKey key);

// One "label;label;label bytes" line per distinct path, sorted, for
// flamegraph.pl and speedscope.
std::string FoldedStacks(const ir::Program& program, const std::vector<ValueOrigin>& origins,
                         const std::vector<ir::ValueId>& values, AttributionKey key);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_ATTRIBUTION_H_
