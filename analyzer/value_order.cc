#include "analyzer/value_order.h"

namespace memplan::analyzer {

bool LargestFirst(const ir::Program& program, const ir::Value& a, const ir::Value& b) {
  if (a.size != b.size) return a.size > b.size;
  if (a.instruction != b.instruction) {
    const std::string_view name_a = program.InstructionName(a.instruction);
    const std::string_view name_b = program.InstructionName(b.instruction);
    if (name_a != name_b) return name_a < name_b;
  }
  if (a.index != b.index) return a.index < b.index;
  return a.id < b.id;
}

ir::InstructionId ScheduledAt(const ir::Program& program, ir::ScheduleStep step) {
  const auto& sequence = program.schedule.instructions;
  if (step < 0 || step >= static_cast<ir::ScheduleStep>(sequence.size())) return {};
  return sequence[step];
}

}  // namespace memplan::analyzer
