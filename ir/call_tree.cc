#include "ir/call_tree.h"

#include <algorithm>
#include <utility>

namespace memplan::ir {

std::vector<CallNodeId> CallTree::PathTo(CallNodeId id) const {
  std::vector<CallNodeId> path;
  for (CallNodeId at = id; at.valid() && at != root(); at = node(at).parent) {
    path.push_back(at);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

int64_t CallTree::CallCount() const {
  return std::count_if(nodes.begin(), nodes.end(),
                       [](const CallNode& n) { return n.kind == CallNodeKind::kCall; });
}

CallTreeBuilder::CallTreeBuilder(std::string source_name, CallTree::Format format) {
  tree_.source_name = std::move(source_name);
  tree_.format = format;
  CallNode root;
  root.id = CallNodeId(0);
  root.kind = CallNodeKind::kRoot;
  tree_.nodes.push_back(std::move(root));
}

FunctionId CallTreeBuilder::InternFunction(std::string_view name, std::string_view file,
                                           int64_t line) {
  FunctionKey key{std::string(name), std::string(file), line};
  auto [it, inserted] =
      function_ids_.try_emplace(key, FunctionId(static_cast<int64_t>(tree_.functions.size())));
  if (inserted) {
    tree_.functions.push_back(Function{it->second, std::move(key.name), std::move(key.file), line});
  }
  return it->second;
}

int32_t CallTreeBuilder::InternCategory(std::string_view category) {
  auto [it, inserted] = category_ids_.try_emplace(
      std::string(category), static_cast<int32_t>(tree_.categories.size()));
  if (inserted) tree_.categories.emplace_back(category);
  return it->second;
}

CallNodeId CallTreeBuilder::AddNode(CallNodeId parent, CallNodeKind kind, FunctionId function) {
  CallNode n;
  n.id = CallNodeId(static_cast<int64_t>(tree_.nodes.size()));
  n.kind = kind;
  n.parent = parent;
  n.function = function;
  n.depth = node(parent).depth + 1;
  n.track = node(parent).track;
  tree_.nodes.push_back(std::move(n));
  return tree_.nodes.back().id;
}

CallTree CallTreeBuilder::Finish() && {
  std::vector<CallNode>& nodes = tree_.nodes;
  for (CallNode& n : nodes) {
    n.children.clear();
    n.subtree_end = CallNodeId(n.id.value() + 1);
  }
  for (const CallNode& n : nodes) {
    if (n.parent.valid()) nodes[static_cast<size_t>(n.parent.value())].children.push_back(n.id);
  }
  // Preorder: a node's subtree ends where its last child's subtree ends.
  for (size_t i = nodes.size(); i-- > 0;) {
    CallNode& n = nodes[i];
    if (!n.children.empty()) n.subtree_end = node(n.children.back()).subtree_end;
  }
  return std::move(tree_);
}

}  // namespace memplan::ir
