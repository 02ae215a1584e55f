#include "analyzer/value_category.h"

namespace memplan::analyzer {

std::string_view CategoryName(ValueCategory category) {
  switch (category) {
    case ValueCategory::kParameter:
      return "parameter";
    case ValueCategory::kOutput:
      return "output";
    case ValueCategory::kTemporary:
      return "temporary";
    case ValueCategory::kConstant:
      return "constant";
    case ValueCategory::kThreadLocal:
      return "thread-local";
  }
  return "unknown";
}

ValueCategory CategoryOf(const ir::Allocation& allocation) {
  if (allocation.is_entry_parameter()) return ValueCategory::kParameter;
  if (allocation.is_constant) return ValueCategory::kConstant;
  if (allocation.is_thread_local) return ValueCategory::kThreadLocal;
  if (allocation.maybe_live_out) return ValueCategory::kOutput;
  return ValueCategory::kTemporary;
}

}  // namespace memplan::analyzer
