#include "viz/svg_render.h"

#include <memory>
#include <mutex>
#include <string>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "ir/strings.h"

namespace memplan::viz {
namespace {

// Graphviz reports errors through one process-wide callback; collect them
// here while a render runs (under the mutex below).
std::mutex& GraphvizMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}
std::string& GraphvizMessages() {
  static std::string* messages = new std::string;
  return *messages;
}
int CollectMessage(char* message) {
  if (message != nullptr) GraphvizMessages() += message;
  return 0;
}

std::string Messages() {
  std::string m = GraphvizMessages();
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m.empty() ? "no message" : m;
}

// One Graphviz context for the whole process, made on first use and never
// freed: libgvc's plugins (pango's font maps) keep state across contexts, and
// freeing one context then making another reads freed memory inside them.
// The context stays reachable from this static, so a leak checker does not
// count it.
GVC_t* ProcessContext() {
  static GVC_t* context = gvContext();
  return context;
}

}  // namespace

absl::StatusOr<std::string> RenderSvgFromDot(std::string_view dot) {
  std::lock_guard<std::mutex> lock(GraphvizMutex());
  GraphvizMessages().clear();
  agseterrf(CollectMessage);
  agseterr(AGERR);

  GVC_t* const gvc = ProcessContext();
  if (gvc == nullptr) return absl::InternalError("graphviz: cannot create a context");
  const std::string text(dot);  // NUL-terminated for agmemread
  Agraph_t* graph = agmemread(text.c_str());
  if (graph == nullptr) {
    return absl::InvalidArgumentError(StrCat("graphviz: the DOT does not parse: ", Messages()));
  }
  absl::StatusOr<std::string> svg;
  if (gvLayout(gvc, graph, "dot") != 0) {
    svg = absl::InternalError(StrCat("graphviz: layout failed: ", Messages()));
  } else {
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(gvc, graph, "svg", &data, &length) != 0 || data == nullptr) {
      svg = absl::InternalError(StrCat("graphviz: SVG rendering failed: ", Messages()));
    } else {
      svg = std::string(data, length);
    }
    if (data != nullptr) gvFreeRenderData(data);
    gvFreeLayout(gvc, graph);
  }
  agclose(graph);
  return svg;
}

}  // namespace memplan::viz
