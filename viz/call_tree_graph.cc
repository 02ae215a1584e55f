// The call graph as DOT and the calling contexts as folded stacks.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/strings.h"
#include "viz/call_tree_report.h"
#include "viz/dot_report.h"
#include "viz/format.h"

namespace memplan::viz {
namespace {

// Fill colors for files, in order of their call counts (then cycled).
constexpr const char* kFileColors[] = {"#9ecae1", "#a1d99b", "#fdae6b", "#bcbddc", "#fc9272",
                                       "#c7e9c0", "#fdd0a2", "#dadaeb", "#d9d9d9", "#c6dbef"};

std::string Fixed2(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", x);
  return buffer;
}

std::string Basename(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string FunctionNode(ir::FunctionId id) { return StrCat("\"f", id.value(), "\""); }

// A folded-stack frame: no ';' (the separator) and no line breaks.
std::string FoldedFrame(std::string text) {
  for (char& c : text) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

std::string RenderCallTreeDot(const CallTreeReportInput& in) {
  const ir::CallTree& tree = in.tree;
  const analyzer::CallTreeSummary& s = in.summary;
  const size_t shown_count = in.top <= 0 ? s.by_function.size()
                                         : std::min(s.by_function.size(), static_cast<size_t>(in.top));
  std::set<ir::FunctionId> shown;
  int64_t max_calls = 1;
  for (size_t i = 0; i < shown_count; ++i) {
    shown.insert(s.by_function[i].function);
    max_calls = std::max(max_calls, s.by_function[i].calls);
  }
  std::map<std::string, size_t> file_rank;
  for (const analyzer::FileCalls& f : s.by_file) file_rank.emplace(f.file, file_rank.size());

  std::string out = "digraph calltree {\n";
  const std::string title =
      StrCat(tree.source_name, ": call graph, ", shown_count, " of ", s.by_function.size(),
             " functions (most calls), ", GroupedBytes(s.calls), " calls");
  StrAppend(&out, "  graph [label=", DotQuote(title),
            ", labelloc=t, fontname=\"Helvetica\", fontsize=14, rankdir=LR];\n");
  out += "  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"rounded,filled\"];\n";
  out += "  edge [color=\"#555555\", arrowsize=0.7, fontname=\"Helvetica\", fontsize=9];\n\n";
  out += "  // functions, most calls first\n";
  for (size_t i = 0; i < shown_count; ++i) {
    const analyzer::FunctionCalls& f = s.by_function[i];
    const ir::Function& fn = tree.function(f.function);
    std::string label = fn.name;
    if (!fn.file.empty()) StrAppend(&label, "\n", Basename(fn.file), fn.line > 0 ? StrCat(":", fn.line) : "");
    StrAppend(&label, "\n", GroupedBytes(f.calls), f.calls == 1 ? " call" : " calls");
    if (f.total_ns >= 0) StrAppend(&label, ", ", Duration(f.total_ns));
    const size_t rank = file_rank[fn.file];
    const double scale = std::sqrt(static_cast<double>(f.calls) / static_cast<double>(max_calls));
    StrAppend(&out, "  ", FunctionNode(f.function), " [label=", DotQuote(label), ", fillcolor=\"",
              kFileColors[rank % (sizeof(kFileColors) / sizeof(kFileColors[0]))],
              "\", penwidth=", Fixed2(0.5 + 2.5 * scale), ", tooltip=", DotQuote(fn.file), "];\n");
  }
  out += "\n  // calls between them, labelled with their count\n";
  int64_t hidden_edges = 0;
  for (const analyzer::CallEdge& e : s.edges) {
    if (!e.caller.valid() || !shown.count(e.caller) || !shown.count(e.callee)) {
      if (e.caller.valid()) ++hidden_edges;
      continue;
    }
    const double width = 0.7 + std::log10(static_cast<double>(e.calls));
    StrAppend(&out, "  ", FunctionNode(e.caller), " -> ", FunctionNode(e.callee), " [label=\"",
              GroupedBytes(e.calls), "\", penwidth=", Fixed2(width), "];\n");
  }
  if (shown_count < s.by_function.size()) {
    StrAppend(&out, "\n  note [shape=note, style=filled, fillcolor=\"#ffffe0\", label=",
              DotQuote(StrCat(s.by_function.size() - shown_count, " functions and ", hidden_edges,
                              " call edges with fewer calls not drawn (a larger limit draws them)")),
              "];\n");
  }
  out += "}\n";
  return out;
}

std::string RenderCallTreeFolded(const CallTreeReportInput& in) {
  const ir::CallTree& tree = in.tree;
  const analyzer::CallTreeSummary& s = in.summary;
  const bool timed = tree.format == ir::CallTree::Format::kChromeTrace;
  std::vector<std::string> frames(s.contexts.size());
  for (const analyzer::CallingContext& c : s.contexts) {
    if (c.id == 0) continue;
    frames[static_cast<size_t>(c.id)] =
        FoldedFrame(c.kind == ir::CallNodeKind::kTrack ? TrackLabel(tree.track(c.track))
                                                       : FunctionLabel(tree.function(c.function)));
  }
  std::string out;
  std::vector<analyzer::ContextId> path;
  for (const analyzer::CallingContext& c : s.contexts) {
    if (c.kind != ir::CallNodeKind::kCall) continue;
    const int64_t weight = timed ? c.self_ns : c.calls;
    if (weight <= 0) continue;
    path.clear();
    for (analyzer::ContextId at = c.id; at > 0; at = s.contexts[static_cast<size_t>(at)].parent) {
      path.push_back(at);
    }
    for (size_t k = path.size(); k-- > 0;) {
      out += frames[static_cast<size_t>(path[k])];
      out += k == 0 ? ' ' : ';';
    }
    StrAppend(&out, weight, "\n");
  }
  return out;
}

}  // namespace memplan::viz
