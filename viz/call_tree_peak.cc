#include "viz/call_tree_peak.h"

#include <algorithm>
#include <string>

#include "viz/json_text.h"
#include "absl/strings/str_cat.h"
#include "viz/call_tree_report.h"
#include "viz/format.h"

namespace memplan::viz {
namespace {

using absl::StrAppend;
using absl::StrCat;

std::string NodeLabel(const ir::CallTree& tree, const ir::CallNode& node) {
  if (node.kind == ir::CallNodeKind::kRoot) return "(all)";
  if (node.kind == ir::CallNodeKind::kTrack) return TrackLabel(tree.track(node.track));
  return FunctionLabel(tree.function(node.function));
}

std::string Percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "0.0%";
  const int64_t tenths = (part * 1000 + whole / 2) / whole;
  return StrCat(tenths / 10, ".", tenths % 10, "%");
}

}  // namespace

std::string RenderCallTreePeakText(const CallTreePeakInput& in) {
  const analyzer::CallTreePeak& p = in.peak;
  std::string out = StrCat("\nPeak of ", in.program.module_name, " on the call tree (step ", p.step, ", ",
                           HumanBytes(p.peak_bytes), " live in ", p.values.size(), " values)\n");
  StrAppend(&out, "  placed at call nodes: ", HumanBytes(p.placed_bytes), " (", Percent(p.placed_bytes, p.peak_bytes),
            ", ", p.placed_values, " values)\n");
  StrAppend(&out, "  source line in no function of the tree: ", HumanBytes(p.unmatched_bytes), " (",
            Percent(p.unmatched_bytes, p.peak_bytes), ", ", p.unmatched_values, " values)\n");
  StrAppend(&out, "  no source line (arguments, compiler buffers): ", HumanBytes(p.no_source_bytes), " (",
            Percent(p.no_source_bytes, p.peak_bytes), ", ", p.no_source_values, " values)\n");
  if (!p.nodes.empty()) {
    StrAppend(&out, "\n  subtree      self  node\n");
    for (const analyzer::CallTreePeakNode& n : p.nodes) {
      const ir::CallNode& node = in.tree.node(n.node);
      std::string line = StrCat("  ", HumanBytes(n.subtree_bytes));
      line.resize(std::max<size_t>(line.size() + 1, 12), ' ');
      StrAppend(&line, n.self_bytes > 0 ? HumanBytes(n.self_bytes) : std::string("-"));
      line.resize(std::max<size_t>(line.size() + 1, 24), ' ');
      StrAppend(&line, std::string(static_cast<size_t>(std::max(0, node.depth)) * 2, ' '), NodeLabel(in.tree, node));
      if (n.function_nodes > 1) StrAppend(&line, "  [first of ", n.function_nodes, " calls]");
      StrAppend(&out, line, "\n");
    }
  }
  const size_t shown = in.top <= 0 ? p.values.size() : std::min(p.values.size(), static_cast<size_t>(in.top));
  if (shown > 0) StrAppend(&out, "\n  Largest values at the peak (", shown, " of ", p.values.size(), ")\n");
  for (size_t k = 0; k < shown; ++k) {
    const analyzer::CallTreePeakValue& v = p.values[k];
    const ir::Value* value = in.program.FindValue(v.value);
    StrAppend(&out, "  ", HumanBytes(v.bytes), "  ", value ? in.program.ValueName(*value) : std::string("?"));
    if (!v.file.empty()) StrAppend(&out, "  ", absl::string_view(v.file.data(), v.file.size()), ":", v.line);
    if (v.node.valid()) {
      StrAppend(&out, "  -> ", NodeLabel(in.tree, in.tree.node(v.node)));
    } else {
      StrAppend(&out, v.file.empty() ? "  (no source line)" : "  (in no function of the tree)");
    }
    StrAppend(&out, "\n");
  }
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

void WriteCallTreePeakJson(const CallTreePeakInput& in, llvm::json::OStream& j) {
  const analyzer::CallTreePeak& p = in.peak;
  j.object([&] {
    j.attribute("program", JsonText(in.program.module_name));
    j.attribute("step", p.step);
    j.attribute("peak_bytes", p.peak_bytes);
    j.attribute("placed_bytes", p.placed_bytes);
    j.attribute("placed_values", p.placed_values);
    j.attribute("unmatched_bytes", p.unmatched_bytes);
    j.attribute("unmatched_values", p.unmatched_values);
    j.attribute("no_source_bytes", p.no_source_bytes);
    j.attribute("no_source_values", p.no_source_values);
    j.attributeArray("nodes", [&] {
      for (const analyzer::CallTreePeakNode& n : p.nodes) {
        j.object([&] {
          j.attribute("node", n.node.value());
          const ir::CallNode& node = in.tree.node(n.node);
          if (node.function.valid()) {
            j.attribute("function", node.function.value());
          } else {
            j.attribute("function", nullptr);
          }
          j.attribute("depth", node.depth);
          j.attribute("subtree_bytes", n.subtree_bytes);
          j.attribute("self_bytes", n.self_bytes);
          j.attribute("self_values", n.self_values);
          j.attribute("function_nodes", n.function_nodes);
        });
      }
    });
    j.attributeArray("values", [&] {
      const size_t shown = in.top <= 0 ? p.values.size() : std::min(p.values.size(), static_cast<size_t>(in.top));
      for (size_t k = 0; k < shown; ++k) {
        const analyzer::CallTreePeakValue& v = p.values[k];
        const ir::Value* value = in.program.FindValue(v.value);
        j.object([&] {
          j.attribute("value", v.value.value());
          j.attribute("name", JsonText(value ? in.program.ValueName(*value) : std::string()));
          j.attribute("bytes", v.bytes);
          if (v.file.empty()) {
            j.attribute("file", nullptr);
            j.attribute("line", nullptr);
          } else {
            j.attribute("file", JsonText(v.file));
            j.attribute("line", v.line);
          }
          if (v.node.valid()) {
            j.attribute("node", v.node.value());
          } else {
            j.attribute("node", nullptr);
          }
        });
      }
    });
  });
}

}  // namespace memplan::viz
