// Parses Chrome trace-event JSON (the "Trace Event Format") as PyTorch's
// profiler (torch.profiler / Kineto, export_chrome_trace) and JAX's profiler
// (jax.profiler.trace: *.trace.json.gz, perfetto_trace.json.gz) write it,
// into a CallTree with one track per (pid, tid).
//
// Read: the JSON Object Format ({"traceEvents": [...], ...}) and the JSON
// Array Format ([...], which may lack its closing bracket); per event "ph",
// "name", "cat", "pid", "tid", "ts" and "dur" (microseconds, fractions kept
// to the nanosecond) and "args".
//   "X"        complete slices;
//   "B" / "E"  begin/end pairs on one thread, matched as a stack;
//   "i" / "I"  instant events: PyTorch's "[memory]" (args "Device Type",
//              "Device Id", "Addr", "Bytes", "Total Allocated", "Total
//              Reserved") and "[OutOfMemory]" become MemoryEvents; others
//              are counted;
//   "C"        counters: each numeric arg is a series;
//   "M"        process_name / thread_name metadata name the tracks.
// Slices of one thread nest by time (a slice starting inside another is its
// child). Slice names that carry a Python frame, "$file.py:12 func" (JAX's
// Python tracer) or "file.py(12): func" (PyTorch's python_function), give
// the function a file and line. Flow, async, sample and object events are
// counted as warnings and otherwise not used.
#ifndef MEMPLAN_PARSERS_CHROME_TRACE_PARSER_H_
#define MEMPLAN_PARSERS_CHROME_TRACE_PARSER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "ir/call_tree.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

absl::StatusOr<ir::CallTree> ParseChromeTrace(const SourceText& source);

// Sniff rule: the text starts (after whitespace) with '{' or '['.
bool LooksLikeChromeTrace(std::string_view head);

// A slice name's Python frame, if it carries one: "$contextlib.py:132
// __enter__" and "train.py(45): forward" give (name, file, line). False
// (outputs untouched) for any other name.
bool SplitPythonFrameName(std::string_view slice_name, std::string_view* function,
                          std::string_view* file, int64_t* line);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_CHROME_TRACE_PARSER_H_
