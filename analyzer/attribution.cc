#include "analyzer/attribution.h"

#include <algorithm>
#include <map>

#include "ir/strings.h"

namespace memplan::analyzer {
namespace {

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

std::vector<std::string> SourcePath(const ir::Module& module, const ValueOrigin& origin) {
  const ir::OpMetadata* m = origin.source;
  if (m == nullptr && module.contains(origin.argument)) {
    // The program's arguments come from its caller: named, not located.
    const ir::Instruction& argument = module.instruction(origin.argument);
    return {"(program arguments)", argument.metadata->op_name.empty()
                                       ? std::string(argument.name)
                                       : std::string(argument.metadata->op_name)};
  }
  if (m == nullptr) return {"(no source location)"};
  const std::vector<const ir::SourceFrame*> stack = CallStackOf(module, *m);
  if (!stack.empty()) {
    std::vector<std::string> path;
    for (const ir::SourceFrame* frame : stack) path.push_back(FrameLabel(*frame));
    return path;
  }
  const SourceLocation source = SourceLocationOf(module, *m);
  if (!source.file.empty()) return {std::string(source.file), StrCat("line ", source.line)};
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

std::vector<ValueOrigin> ResolveValueOrigins(const ir::Program& program) {
  if (program.values.empty()) return {};  // (a module's text alone): no call graph to build
  const OriginResolver resolver(program.module);
  std::vector<ValueOrigin> origins;
  origins.reserve(program.values.size());
  for (const ir::Value& v : program.values) origins.push_back(resolver.Resolve(v.instruction, v.index));
  return origins;
}

std::vector<std::string> AttributionPath(const ir::Program& program, const ir::Value& value,
                                         const ValueOrigin& origin, AttributionKey key) {
  switch (key) {
    case AttributionKey::kOpName: {
      std::vector<std::string> path =
          origin.op != nullptr ? SplitOpName(origin.op->op_name) : std::vector<std::string>();
      if (path.empty()) return {"(no op_name)"};
      return path;
    }
    case AttributionKey::kSource:
      return SourcePath(program.module, origin);
    case AttributionKey::kOpType: {
      if (origin.op != nullptr && !origin.op->op_type.empty()) {
        return {std::string(origin.op->op_type)};
      }
      const std::string_view opcode = program.module.contains(value.instruction)
                                          ? program.DefiningInstruction(value).opcode_text
                                          : std::string_view();
      if (!opcode.empty()) return {StrCat("[", opcode, "]")};
      return {"(no op_type)"};
    }
  }
  return {"(unknown)"};
}

namespace {

// The origin of `value`, which must be one of program.values.
const ValueOrigin& OriginOf(const ir::Program& program, const std::vector<ValueOrigin>& origins,
                            const ir::Value& value) {
  return origins[static_cast<size_t>(&value - program.values.data())];
}

}  // namespace

AttributionNode Attribute(const ir::Program& program, const std::vector<ValueOrigin>& origins,
                          const std::vector<ir::ValueId>& values, AttributionKey key) {
  AttributionNode root{"all", 0, 0, {}};
  for (ir::ValueId id : values) {
    const ir::Value* value = program.FindValue(id);
    if (!value) continue;
    Insert(root, AttributionPath(program, *value, OriginOf(program, origins, *value), key), 0,
           value->size);
  }
  SortTree(root);
  return root;
}

std::string FoldedStacks(const ir::Program& program, const std::vector<ValueOrigin>& origins,
                         const std::vector<ir::ValueId>& values, AttributionKey key) {
  std::map<std::string, int64_t> stacks;
  for (ir::ValueId id : values) {
    const ir::Value* value = program.FindValue(id);
    if (!value) continue;
    std::string line;
    for (const std::string& label :
         AttributionPath(program, *value, OriginOf(program, origins, *value), key)) {
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
