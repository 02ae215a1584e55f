// SVG from DOT text, laid out and drawn by Graphviz's own library (libgvc,
// the "dot" layout engine and its core SVG renderer), in process.
// Graphviz is deterministic: the same DOT gives the same SVG bytes.
#ifndef MEMPLAN_VIZ_SVG_RENDER_H_
#define MEMPLAN_VIZ_SVG_RENDER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace memplan::viz {

// InvalidArgument with Graphviz's messages when the DOT does not parse,
// Internal when layout or rendering fails. Not thread-safe (Graphviz keeps
// global state); call from one thread at a time.
absl::StatusOr<std::string> RenderSvgFromDot(std::string_view dot);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_SVG_RENDER_H_
