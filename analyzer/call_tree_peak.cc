#include "analyzer/call_tree_peak.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <string>
#include <utility>

namespace memplan::analyzer {
namespace {

// The tree's functions with a file and line, and each one's first node.
struct FunctionIndex {
  struct Entry {
    std::string_view file;
    int64_t line = 0;
    ir::FunctionId function;
  };
  std::vector<Entry> entries;  // by (file, line, id)
  std::vector<ir::CallNodeId> first_node;  // per function
  std::vector<int64_t> node_count;         // per function

  explicit FunctionIndex(const ir::CallTree& tree)
      : first_node(tree.functions.size()), node_count(tree.functions.size(), 0) {
    for (const ir::CallNode& n : tree.nodes) {
      if (n.kind != ir::CallNodeKind::kCall || !n.function.valid()) continue;
      const size_t f = static_cast<size_t>(n.function.value());
      if (!first_node[f].valid()) first_node[f] = n.id;
      ++node_count[f];
    }
    for (const ir::Function& f : tree.functions) {
      if (f.file.empty() || f.line <= 0 || !first_node[static_cast<size_t>(f.id.value())].valid()) continue;
      entries.push_back({f.file, f.line, f.id});
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return std::make_tuple(a.file, a.line, a.function.value()) < std::make_tuple(b.file, b.line, b.function.value());
    });
  }

  // The function of a file the location names whose line is the greatest
  // not after `line` (the first such function by id on a tie).
  ir::FunctionId Holding(std::string_view file, int64_t line) const {
    const Entry* best = nullptr;
    for (const Entry& e : entries) {
      if (e.line > line || !SameSourceFile(e.file, file)) continue;
      if (best == nullptr || e.line > best->line ||
          (e.line == best->line && e.function.value() < best->function.value())) {
        best = &e;
      }
    }
    return best == nullptr ? ir::FunctionId() : best->function;
  }
};

}  // namespace

bool SameSourceFile(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return false;
  if (a == b) return true;
  if (a.size() < b.size()) std::swap(a, b);
  return a.ends_with(b) && a[a.size() - b.size() - 1] == '/';
}

CallTreePeak HangPeakOnCallTree(const ir::Program& program, const LivePeak& peak,
                                const std::vector<ValueOrigin>& origins, const ir::CallTree& tree) {
  CallTreePeak out;
  out.step = peak.step;
  const FunctionIndex index(tree);
  std::vector<int64_t> self_bytes(tree.nodes.size(), 0), self_values(tree.nodes.size(), 0);
  // One lookup per distinct location.
  std::map<std::pair<std::string_view, int64_t>, ir::FunctionId> memo;
  for (ir::ValueId id : peak.values) {
    const ir::Value* value = program.FindValue(id);
    if (value == nullptr) continue;
    CallTreePeakValue placed;
    placed.value = id;
    placed.bytes = value->size;
    out.peak_bytes += value->size;
    const size_t v = static_cast<size_t>(value - program.values.data());
    const ValueOrigin* origin = v < origins.size() ? &origins[v] : nullptr;
    if (origin != nullptr && origin->source != nullptr) {
      const SourceLocation where = SourceLocationOf(program.module, *origin->source);
      placed.file = where.file;
      placed.line = where.line;
    }
    if (placed.file.empty()) {
      out.no_source_bytes += placed.bytes;
      ++out.no_source_values;
    } else {
      auto [it, inserted] = memo.try_emplace({placed.file, placed.line});
      if (inserted) it->second = index.Holding(placed.file, placed.line);
      if (it->second.valid()) {
        placed.node = index.first_node[static_cast<size_t>(it->second.value())];
        self_bytes[static_cast<size_t>(placed.node.value())] += placed.bytes;
        ++self_values[static_cast<size_t>(placed.node.value())];
        out.placed_bytes += placed.bytes;
        ++out.placed_values;
      } else {
        out.unmatched_bytes += placed.bytes;
        ++out.unmatched_values;
      }
    }
    out.values.push_back(placed);
  }
  // Subtree sums: preorder, so children come after their parent.
  std::vector<int64_t> subtree(self_bytes);
  for (size_t n = tree.nodes.size(); n-- > 1;) {
    const ir::CallNodeId parent = tree.nodes[n].parent;
    if (parent.valid()) subtree[static_cast<size_t>(parent.value())] += subtree[n];
  }
  for (const ir::CallNode& n : tree.nodes) {
    const size_t i = static_cast<size_t>(n.id.value());
    if (subtree[i] == 0) continue;
    CallTreePeakNode node;
    node.node = n.id;
    node.self_bytes = self_bytes[i];
    node.self_values = self_values[i];
    node.subtree_bytes = subtree[i];
    if (n.function.valid()) node.function_nodes = index.node_count[static_cast<size_t>(n.function.value())];
    out.nodes.push_back(node);
  }
  return out;
}

}  // namespace memplan::analyzer
