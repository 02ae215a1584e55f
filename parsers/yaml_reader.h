// A located reader over one YAML (or JSON) document, on LLVM's YAML parser:
// every error is "file:line:col: error: <what was expected>" in the caller's
// SourceText. The YAML buffer is the source's own text, not a copy, so node
// pointers are offsets into it. Nesting is bounded before the (recursive)
// parser sees the text. Include only from files compiled with -fno-rtti, like
// LLVM.
#ifndef MEMPLAN_PARSERS_YAML_READER_H_
#define MEMPLAN_PARSERS_YAML_READER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

class YamlReader {
 public:
  using MemberFn = std::function<absl::Status(const std::string& key, llvm::yaml::Node* key_node,
                                              llvm::yaml::Node* value)>;

  // `max_depth`: the deepest nesting of mappings and sequences accepted.
  YamlReader(std::shared_ptr<const SourceText> source, int max_depth);
  YamlReader(const YamlReader&) = delete;
  YamlReader& operator=(const YamlReader&) = delete;

  // Parses the one document and calls `root` with its root node (never null
  // or a NullNode: an empty document is "expected <what>"). Syntax errors
  // come first, located where LLVM's parser stopped.
  absl::Status Read(std::string_view what, const std::function<absl::Status(llvm::yaml::Node*)>& root);

  const SourceText& source() const { return *source_; }
  // Byte offset of `node` in the source (0 when unknown).
  size_t Offset(const llvm::yaml::Node* node) const;
  absl::Status At(size_t offset, std::string_view message) const;
  absl::Status Error(const llvm::yaml::Node* node, std::string_view message) const;
  // OK, or the first syntax error LLVM's parser reported.
  absl::Status SyntaxError() const;

  // A plain or quoted scalar's value, else "expected <expected>".
  // `quoted` (optional) says whether it was quoted.
  absl::StatusOr<std::string> Scalar(llvm::yaml::Node* node, std::string_view expected,
                                     bool* quoted = nullptr) const;
  absl::StatusOr<int64_t> Integer(llvm::yaml::Node* node, std::string_view expected) const;
  // null, ~, None (unquoted) or an empty value.
  static bool IsNull(llvm::yaml::Node* node);

  // Calls `fn` for each member of the mapping `node` ("expected a mapping
  // (<what>)" otherwise), refusing keys not in `known` (when not empty) and
  // repeated keys.
  absl::Status ForEach(llvm::yaml::Node* node, std::string_view what,
                       const std::vector<std::string_view>& known, const MemberFn& fn) const;
  // Calls `fn` for each element of the sequence `node`.
  absl::Status ForEachElement(llvm::yaml::Node* node, std::string_view what,
                              const std::function<absl::Status(llvm::yaml::Node*)>& fn) const;

 private:
  absl::Status CheckDepth() const;

  std::shared_ptr<const SourceText> source_;
  int max_depth_;
  llvm::SourceMgr sources_;
  std::optional<std::pair<const char*, std::string>> syntax_error_;
};

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_YAML_READER_H_
