#include "analyzer/attribution.h"

#include <algorithm>
#include <map>

#include "ir/strings.h"

namespace memplan::analyzer {
namespace {

constexpr int kMaxStackDepth = 256;

std::vector<std::string> SplitOpName(std::string_view op_name) {
  std::vector<std::string> parts;
  size_t start = 0;
  int depth = 0;  // '/' inside parentheses ("jit(a/b)") does not split
  for (size_t i = 0; i < op_name.size(); ++i) {
    if (op_name[i] == '(') ++depth;
    if (op_name[i] == ')' && depth > 0) --depth;
    if (op_name[i] == '/' && depth == 0) {
      if (i > start) parts.emplace_back(op_name.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < op_name.size()) parts.emplace_back(op_name.substr(start));
  return parts;
}

std::string FrameLabel(const ir::SourceFrame& frame) {
  std::string label = frame.function.empty() ? std::string("?") : std::string(frame.function);
  return StrCat(label, " (", frame.file, ":", frame.line, ")");
}

std::vector<std::string> SourcePath(const ir::Program& program, const ir::OpMetadata& m) {
  if (m.stack_frame_id > 0 && program.FindStackFrame(m.stack_frame_id)) {
    std::vector<std::string> path;
    int64_t id = m.stack_frame_id;
    for (int depth = 0; depth < kMaxStackDepth; ++depth) {
      const ir::SourceFrame* frame = program.FindStackFrame(id);
      if (!frame) break;
      path.push_back(FrameLabel(*frame));
      if (frame->parent_id == id) break;
      id = frame->parent_id;
    }
    std::reverse(path.begin(), path.end());
    return path;
  }
  if (!m.source_file.empty()) {
    return {std::string(m.source_file), StrCat("line ", m.source_line)};
  }
  return {"(no source location)"};
}

void Insert(AttributionNode& node, const std::vector<std::string>& path, size_t depth,
            int64_t bytes) {
  node.bytes += bytes;
  ++node.values;
  if (depth == path.size()) return;
  auto it = std::find_if(node.children.begin(), node.children.end(),
                         [&](const AttributionNode& c) { return c.name == path[depth]; });
  if (it == node.children.end()) {
    node.children.push_back({path[depth], 0, 0, {}});
    it = std::prev(node.children.end());
  }
  Insert(*it, path, depth + 1, bytes);
}

void SortTree(AttributionNode& node) {
  std::sort(node.children.begin(), node.children.end(),
            [](const AttributionNode& a, const AttributionNode& b) {
              if (a.bytes != b.bytes) return a.bytes > b.bytes;
              return a.name < b.name;
            });
  for (AttributionNode& child : node.children) SortTree(child);
}

}  // namespace

std::string_view AttributionKeyName(AttributionKey key) {
  switch (key) {
    case AttributionKey::kOpName:
      return "op";
    case AttributionKey::kSource:
      return "source";
    case AttributionKey::kOpType:
      return "type";
  }
  return "op";
}

std::optional<AttributionKey> AttributionKeyFromName(std::string_view name) {
  for (AttributionKey key : {AttributionKey::kOpName, AttributionKey::kSource, AttributionKey::kOpType}) {
    if (AttributionKeyName(key) == name) return key;
  }
  return std::nullopt;
}

std::vector<std::string> AttributionPath(const ir::Program& program, const ir::Value& value,
                                         AttributionKey key) {
  const ir::OpMetadata& m = value.metadata;
  switch (key) {
    case AttributionKey::kOpName: {
      std::vector<std::string> path = SplitOpName(m.op_name);
      if (path.empty()) return {"(no op_name)"};
      return path;
    }
    case AttributionKey::kSource:
      return SourcePath(program, m);
    case AttributionKey::kOpType:
      if (!m.op_type.empty()) return {std::string(m.op_type)};
      if (!value.opcode.empty()) return {StrCat("[", value.opcode, "]")};
      return {"(no op_type)"};
  }
  return {"(unknown)"};
}

AttributionNode Attribute(const ir::Program& program, const std::vector<ir::ValueId>& values,
                          AttributionKey key) {
  AttributionNode root{"all", 0, 0, {}};
  for (ir::ValueId id : values) {
    const ir::Value* value = program.FindValue(id);
    if (!value) continue;
    Insert(root, AttributionPath(program, *value, key), 0, value->size);
  }
  SortTree(root);
  return root;
}

std::string FoldedStacks(const ir::Program& program, const std::vector<ir::ValueId>& values,
                         AttributionKey key) {
  std::map<std::string, int64_t> stacks;
  for (ir::ValueId id : values) {
    const ir::Value* value = program.FindValue(id);
    if (!value) continue;
    std::string line;
    for (const std::string& label : AttributionPath(program, *value, key)) {
      if (!line.empty()) line += ';';
      for (char c : label) line += (c == ';' || c == '\n') ? '_' : c;  // keep the format
    }
    stacks[line] += value->size;
  }
  std::string out;
  for (const auto& [stack, bytes] : stacks) StrAppend(&out, stack, " ", bytes, "\n");
  return out;
}

}  // namespace memplan::analyzer
