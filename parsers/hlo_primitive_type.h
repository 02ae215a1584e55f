// xla.PrimitiveType numbers (xla/xla_data.proto) as memplan's element types.
#ifndef MEMPLAN_PARSERS_HLO_PRIMITIVE_TYPE_H_
#define MEMPLAN_PARSERS_HLO_PRIMITIVE_TYPE_H_

#include "ir/dtype.h"

namespace memplan::parsers {

// The ir::DType for an xla.PrimitiveType number; kInvalid when unknown.
ir::DType DTypeFromPrimitiveType(int number);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_HLO_PRIMITIVE_TYPE_H_
