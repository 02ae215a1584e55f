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

// The path of labels `value` is attributed to under `key`; never empty
// (values without the needed metadata go to one "(no ...)" label).
std::vector<std::string> AttributionPath(const ir::Program& program, const ir::Value& value,
                                         AttributionKey key);

// A tree whose root ("all") holds `values`.
AttributionNode Attribute(const ir::Program& program, const std::vector<ir::ValueId>& values,
                          AttributionKey key);

// One "label;label;label bytes" line per distinct path, sorted, for
// flamegraph.pl and speedscope.
std::string FoldedStacks(const ir::Program& program, const std::vector<ir::ValueId>& values,
                         AttributionKey key);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_ATTRIBUTION_H_
