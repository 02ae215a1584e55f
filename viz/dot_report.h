// The dataflow around the live peak as a Graphviz DOT graph
// (`memplan analyze --format=dot`).
//
// Nodes: the values live at the peak (ellipses, filled by category, wider
// for more bytes, labelled with name, shape and size) and the instructions
// that define them (boxes). Edges: defining instruction -> value, and value
// -> each instruction in the graph that uses it (so value -> user -> the
// values that user defines); dashed edges to instructions in the graph that
// hold the value without defining it (its other positions, e.g. a tuple).
// The instruction scheduled at the peak is drawn red. Without live ranges
// the graph shows the largest values of the program instead.
//
// Only the `max_values` largest values are drawn; a note node says how many
// were left out and their bytes. The output is a pure function of its input.
#ifndef MEMPLAN_VIZ_DOT_REPORT_H_
#define MEMPLAN_VIZ_DOT_REPORT_H_

#include <string>

#include "analyzer/analysis.h"
#include "ir/program.h"

namespace memplan::viz {

struct DotOptions {
  int max_values = 100;  // <= 0: all
};

std::string RenderDot(const ir::Program& program, const analyzer::Analysis& analysis,
                      const DotOptions& options);

// `s` as a DOT double-quoted string, quotes included; invalid UTF-8 and
// control characters other than newline become U+FFFD.
std::string DotQuote(std::string_view s);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_DOT_REPORT_H_
