// Which kind of memory a value lives in, from its allocation's attributes.
#ifndef MEMPLAN_ANALYZER_VALUE_CATEGORY_H_
#define MEMPLAN_ANALYZER_VALUE_CATEGORY_H_

#include <array>
#include <string_view>

#include "ir/program.h"

namespace memplan::analyzer {

enum class ValueCategory {
  kParameter,    // in an entry-parameter allocation
  kOutput,       // in a maybe-live-out allocation that is no parameter
  kTemporary,    // everything else that is assigned (temp arena and friends)
  kConstant,
  kThreadLocal,
};
inline constexpr int kNumValueCategories = 5;

// "parameter", "output", "temporary", "constant", "thread-local".
std::string_view CategoryName(ValueCategory category);

// Parameters win over outputs (a donated parameter is a parameter).
ValueCategory CategoryOf(const ir::Allocation& allocation);

using BytesByCategory = std::array<int64_t, kNumValueCategories>;

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_VALUE_CATEGORY_H_
