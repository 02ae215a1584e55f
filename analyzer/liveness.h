// Liveness over the schedule: bytes live at each step by category, the live
// peak (HloLiveRange's notion: the most bytes of values live at one step),
// and how that peak compares with the list the dump itself prints.
#ifndef MEMPLAN_ANALYZER_LIVENESS_H_
#define MEMPLAN_ANALYZER_LIVENESS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/value_category.h"
#include "ir/program.h"

namespace memplan::analyzer {

// Bytes live from `step` until the next point's step (a step function kept
// only where it changes, so its size is O(values) however long the schedule).
struct TimelinePoint {
  ir::ScheduleStep step = 0;
  BytesByCategory bytes{};
  int64_t total() const;
};

struct Timeline {
  std::vector<TimelinePoint> points;  // strictly increasing steps
  ir::ScheduleStep last_step = -1;    // schedule's last step (or last range end)

  // Bytes live at `step` (zeros before the first point).
  BytesByCategory At(ir::ScheduleStep step) const;
};

// Requires program.values sorted by id. Values without a live range or an
// allocation are not counted.
Timeline ComputeTimeline(const ir::Program& program);

struct LivePeak {
  int64_t bytes = 0;
  ir::ScheduleStep step = 0;  // the first step where the maximum is reached
  ir::InstructionId instruction;  // scheduled at `step`; invalid when unknown
  BytesByCategory bytes_by_category{};
  // Live at `step`: largest first, then by name, index and id.
  std::vector<ir::ValueId> values;
};

// Values live at `step`, ordered as LivePeak::values.
std::vector<ir::ValueId> ValuesLiveAt(const ir::Program& program, ir::ScheduleStep step);

// nullopt when the program has no live ranges.
std::optional<LivePeak> ComputeLivePeak(const ir::Program& program, const Timeline& timeline);

// The step HloLiveRange::ComputePeakMemoryMoment picks, reproduced: it sizes
// each value by its defining instruction's whole shape (so an element of a
// tuple-shaped instruction counts as the tuple's pointer table) and, at one
// step, adds the values that start there before removing those that ended
// the step before. It is therefore not always the maximum of the timeline.
// nullopt when the program has no live ranges.
std::optional<ir::ScheduleStep> XlaPeakMoment(const ir::Program& program);

// Why the dump's own peak list is not our live peak.
enum class StatedPeakMismatch {
  kNone,
  // Our live ranges do not hold the listed values at the listed step.
  kListNotReproduced,
  // The list sizes each value by its defining instruction's whole shape
  // (older XLA), so a tuple element reads as the tuple's pointer table:
  // stated_bytes differ from bytes_at_stated_step.
  kListSizesWholeShapes,
  // XLA picks its step by its own rule (XlaPeakMoment), which is not the
  // step where the most bytes are live.
  kXlaPeakRule,
};

// The dump's own "Live ranges at N (peak)" list held against our ranges.
struct StatedPeakComparison {
  ir::ScheduleStep stated_step = 0;
  int64_t stated_bytes = 0;  // sum of the list
  int64_t stated_values = 0;
  std::optional<ir::ScheduleStep> xla_moment;  // XlaPeakMoment()
  int64_t bytes_at_stated_step = 0;  // what our ranges have live there
  int64_t values_at_stated_step = 0;
  // Our values live at the stated step, sized as the list sizes them, are
  // exactly the list's entries (names, indices where given, and bytes).
  bool list_reproduced = false;
  // The list is our live peak: same step and same bytes.
  bool matches = false;
  StatedPeakMismatch mismatch = StatedPeakMismatch::kNone;  // when it does not match
};

std::optional<StatedPeakComparison> CompareWithStatedPeak(const ir::Program& program,
                                                          const LivePeak& peak,
                                                          const Timeline& timeline);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_LIVENESS_H_
