// Identical layers, grouped: the values of a list that have the same shape,
// the same category and the same resolved source line (analyzer/
// source_resolution.h), so that twelve transformer layers' weights read as
// one row ("12 x bf16[6144,1024] from model.py:355") in every view. The one
// grouping the text and JSON views share; views render it only.
#ifndef MEMPLAN_ANALYZER_VALUE_GROUPS_H_
#define MEMPLAN_ANALYZER_VALUE_GROUPS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/source_resolution.h"
#include "analyzer/value_category.h"
#include "ir/program.h"

namespace memplan::analyzer {

struct ValueGroup {
  // The members, in the order of the list grouped; the first stands for the
  // group (its op_name and name are the ones a view shows).
  std::vector<ir::ValueId> values;
  // The shape without its layout ("bf16[6144,1024]"), or the input's shape
  // text where the shape was not parsed.
  std::string shape;
  ValueCategory category = ValueCategory::kTemporary;
  // The resolved source location of every member; empty file when unknown.
  std::string_view source_file;
  int64_t source_line = 0;
  // Where no member has a source location, the members share this op_name
  // (the key that separates unrelated values of one shape); empty otherwise.
  std::string_view op_name;
  int64_t bytes_each = 0;   // the size of each member
  int64_t total_bytes = 0;  // bytes_each * values.size()
};

// Groups `ids` (values of `program`; `origins` are their resolved origins in
// the order of program.values, as Analysis::origins) by shape,
// size, category and resolved source file:line; values without a source
// location are grouped by shape, size, category and op_name instead.
// Unassigned values read as temp. Groups come largest total first, then by
// their first member's position in `ids`; every id of `ids` is in exactly
// one group. Runs in O(n log n) for n ids.
std::vector<ValueGroup> GroupValues(const ir::Program& program,
                                    const std::vector<ValueOrigin>& origins,
                                    const std::vector<ir::ValueId>& ids);

// The same for the values at `indices` of program.values, listed in that
// order (the ids are theirs; no lookups by id).
std::vector<ValueGroup> GroupValuesAt(const ir::Program& program,
                                      const std::vector<ValueOrigin>& origins,
                                      const std::vector<size_t>& indices);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_VALUE_GROUPS_H_
