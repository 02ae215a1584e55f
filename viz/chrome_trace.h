// The schedule as a Chrome trace-event JSON document
// (`memplan analyze --format=chrome-trace`), for Perfetto
// (ui.perfetto.dev) and chrome://tracing.
//
// Time is the schedule: one step is one microsecond ("ts": step).
// - A counter track "live bytes" ("ph":"C") with one series per category
//   (parameter, output, temporary, constant, thread-local) at every step
//   where the live bytes change; at any step the series sum to the bytes
//   live there, so at the peak step they sum to the live peak.
// - An instant event "live peak" at the peak step.
// - One complete event ("ph":"X") per value drawn: the `max_values` largest
//   values with a live range plus every value live at the peak, spanning its
//   live range (end inclusive: "dur" = end - start + 1), with args shape,
//   size, op_name, source, allocation and offset.
// - One track ("tid") per allocation; where values of one allocation
//   overlap in time (different offsets of a temp arena) they go to extra
//   tracks of that allocation, so slices on a track never overlap.
// - Metadata events name the process and every track.
// Without live ranges the document holds only the metadata. The output is
// a pure function of its input.
#ifndef MEMPLAN_VIZ_CHROME_TRACE_H_
#define MEMPLAN_VIZ_CHROME_TRACE_H_

#include <string>

#include "analyzer/analysis.h"
#include "ir/program.h"

namespace memplan::viz {

struct ChromeTraceOptions {
  int max_values = 100;  // largest values drawn besides the peak's; <= 0: all
};

std::string RenderChromeTrace(const ir::Program& program, const analyzer::Analysis& analysis,
                              const ChromeTraceOptions& options);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_CHROME_TRACE_H_
