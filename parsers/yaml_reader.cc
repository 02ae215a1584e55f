// Compiled with -fno-rtti, like LLVM.
#include "parsers/yaml_reader.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/MemoryBuffer.h"

namespace memplan::parsers {

namespace yaml = llvm::yaml;

YamlReader::YamlReader(std::shared_ptr<const SourceText> source, int max_depth)
    : source_(std::move(source)), max_depth_(max_depth) {
  const std::string_view text = source_->text();
  sources_.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(text.data(), text.size()), source_->name(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  sources_.setDiagHandler(
      [](const llvm::SMDiagnostic& d, void* context) {
        auto* self = static_cast<YamlReader*>(context);
        if (self->syntax_error_.has_value()) return;
        self->syntax_error_ = std::make_pair(d.getLoc().getPointer(), d.getMessage().str());
      },
      this);
}

// Counts flow brackets outside quotes and comments, plus the block levels:
// one per indentation deeper than the enclosing line's, and one per "- " /
// "? " indicator that opens a line's content. Over-counts rather than
// under-counts, which is harmless at the bounds used.
absl::Status YamlReader::CheckDepth() const {
  const std::string_view text = source_->text();
  std::vector<size_t> indents;  // block levels open, by indentation
  int flow = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t indent = 0;
    while (i < text.size() && text[i] == ' ') ++i, ++indent;
    int inline_levels = 0;
    if (flow == 0 && i < text.size() && text[i] != '\n' && text[i] != '#' && text[i] != '\r') {
      while (!indents.empty() && indents.back() >= indent) indents.pop_back();
      indents.push_back(indent);
      while (i + 1 < text.size() && (text[i] == '-' || text[i] == '?') && text[i + 1] == ' ') {
        ++inline_levels;
        i += 2;
        while (i < text.size() && text[i] == ' ') ++i;
      }
    }
    char quote = 0;
    for (; i < text.size() && text[i] != '\n'; ++i) {
      const char c = text[i];
      if (quote != 0) {
        if (quote == '"' && c == '\\') {
          ++i;
        } else if (c == quote) {
          quote = 0;
        }
        continue;
      }
      if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
        while (i < text.size() && text[i] != '\n') ++i;
        break;
      } else if (c == '[' || c == '{') {
        ++flow;
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      }
      const int depth = static_cast<int>(indents.size()) + inline_levels + flow;
      if (depth > max_depth_) {
        return source_->ErrorAt(text.data() + i,
                                StrCat("expected at most ", max_depth_, " levels of nesting"));
      }
    }
    if (i < text.size()) ++i;  // the '\n'
  }
  return absl::OkStatus();
}

absl::Status YamlReader::Read(std::string_view what,
                              const std::function<absl::Status(yaml::Node*)>& root) {
  RETURN_IF_ERROR(CheckDepth());
  const llvm::MemoryBufferRef buffer =
      sources_.getMemoryBuffer(sources_.getMainFileID())->getMemBufferRef();
  {
    // A first pass over the whole text, so that a syntax error anywhere is
    // reported before a complaint about a value the parser misread on its
    // way to it (plans are small; parsing twice costs little).
    yaml::Stream check(buffer, sources_, /*ShowColors=*/false);
    for (yaml::Document& document : check) {
      document.skip();
      if (syntax_error_.has_value()) break;
    }
    RETURN_IF_ERROR(SyntaxError());
  }
  yaml::Stream stream(buffer, sources_, /*ShowColors=*/false);
  absl::Status status = absl::OkStatus();
  int documents = 0;
  for (yaml::Document& document : stream) {
    if (++documents > 1) {
      status = Error(document.getRoot(), StrCat("expected one YAML document (", what, ")"));
      break;
    }
    yaml::Node* node = document.getRoot();
    RETURN_IF_ERROR(SyntaxError());
    if (node == nullptr || llvm::isa<yaml::NullNode>(node)) {
      status = At(0, StrCat("expected ", what));
      break;
    }
    status = root(node);
    if (!status.ok()) break;
  }
  RETURN_IF_ERROR(SyntaxError());
  RETURN_IF_ERROR(status);
  if (documents == 0) return At(0, StrCat("expected ", what));
  return absl::OkStatus();
}

absl::Status YamlReader::SyntaxError() const {
  if (!syntax_error_.has_value()) return absl::OkStatus();
  const char* at = syntax_error_->first;
  const std::string_view text = source_->text();
  if (at == nullptr || at < text.data() || at > text.data() + text.size()) at = text.data();
  return source_->ErrorAt(at, StrCat("expected YAML or JSON: ", syntax_error_->second));
}

size_t YamlReader::Offset(const yaml::Node* node) const {
  const std::string_view text = source_->text();
  const char* at = node != nullptr ? node->getSourceRange().Start.getPointer() : nullptr;
  if (at == nullptr || at < text.data() || at > text.data() + text.size()) return 0;
  // A flow collection's range starts at its first entry: point at its
  // opening bracket instead.
  if (llvm::isa<yaml::SequenceNode>(node) || llvm::isa<yaml::MappingNode>(node)) {
    const char* back = at;
    while (back > text.data() && (back[-1] == ' ' || back[-1] == '\t')) --back;
    if (back > text.data() && (back[-1] == '[' || back[-1] == '{') && back - 1 != at) at = back - 1;
  }
  return static_cast<size_t>(at - text.data());
}

absl::Status YamlReader::At(size_t offset, std::string_view message) const {
  return source_->ErrorAt(source_->text().data() + std::min(offset, source_->text().size()), message);
}

absl::Status YamlReader::Error(const yaml::Node* node, std::string_view message) const {
  RETURN_IF_ERROR(SyntaxError());
  return At(Offset(node), message);
}

absl::StatusOr<std::string> YamlReader::Scalar(yaml::Node* node, std::string_view expected,
                                               bool* quoted) const {
  auto* scalar = llvm::dyn_cast_or_null<yaml::ScalarNode>(node);
  if (scalar == nullptr) return Error(node, StrCat("expected ", expected));
  const llvm::StringRef raw = scalar->getRawValue();
  if (quoted != nullptr) *quoted = raw.startswith("\"") || raw.startswith("'");
  llvm::SmallString<64> storage;
  return scalar->getValue(storage).str();
}

absl::StatusOr<int64_t> YamlReader::Integer(yaml::Node* node, std::string_view expected) const {
  ASSIGN_OR_RETURN(const std::string text, Scalar(node, expected));
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value)) return Error(node, StrCat("expected ", expected));
  return value;
}

bool YamlReader::IsNull(yaml::Node* node) {
  if (node == nullptr || llvm::isa<yaml::NullNode>(node)) return true;
  auto* scalar = llvm::dyn_cast<yaml::ScalarNode>(node);
  if (scalar == nullptr) return false;
  const llvm::StringRef raw = scalar->getRawValue();
  return raw == "null" || raw == "Null" || raw == "NULL" || raw == "~" || raw == "None";
}

absl::Status YamlReader::ForEach(yaml::Node* node, std::string_view what,
                                 const std::vector<std::string_view>& known,
                                 const MemberFn& fn) const {
  auto* map = llvm::dyn_cast_or_null<yaml::MappingNode>(node);
  if (map == nullptr) return Error(node, StrCat("expected a mapping (", what, ")"));
  std::set<std::string> seen;
  for (yaml::KeyValueNode& kv : *map) {
    yaml::Node* key_node = kv.getKey();
    RETURN_IF_ERROR(SyntaxError());
    ASSIGN_OR_RETURN(const std::string key, Scalar(key_node, StrCat("a key in ", what)));
    if (!known.empty() &&
        std::find(known.begin(), known.end(), std::string_view(key)) == known.end()) {
      std::string list;
      for (std::string_view k : known) StrAppend(&list, list.empty() ? "" : ", ", k);
      return Error(key_node, StrCat("unknown key '", key, "' in ", what, "; expected one of ", list));
    }
    if (!seen.insert(key).second) return Error(key_node, StrCat("duplicate key '", key, "' in ", what));
    RETURN_IF_ERROR(fn(key, key_node, kv.getValue()));
  }
  return SyntaxError();
}

absl::Status YamlReader::ForEachElement(yaml::Node* node, std::string_view what,
                                        const std::function<absl::Status(yaml::Node*)>& fn) const {
  auto* list = llvm::dyn_cast_or_null<yaml::SequenceNode>(node);
  if (list == nullptr) return Error(node, StrCat("expected a list (", what, ")"));
  for (yaml::Node& element : *list) {
    RETURN_IF_ERROR(SyntaxError());
    RETURN_IF_ERROR(fn(&element));
  }
  return SyntaxError();
}

}  // namespace memplan::parsers
