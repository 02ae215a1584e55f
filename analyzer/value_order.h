// The orders in which every view lists values and names instructions, so
// that the text, JSON, HTML and DOT views agree.
#ifndef MEMPLAN_ANALYZER_VALUE_ORDER_H_
#define MEMPLAN_ANALYZER_VALUE_ORDER_H_

#include "ir/program.h"

namespace memplan::analyzer {

// Largest first; then by defining instruction's name, shape index and id.
// A strict weak order (ids are unique).
bool LargestFirst(const ir::Program& program, const ir::Value& a, const ir::Value& b);

// The instruction scheduled at `step`, or an invalid id when the schedule
// does not say.
ir::InstructionId ScheduledAt(const ir::Program& program, ir::ScheduleStep step);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_VALUE_ORDER_H_
