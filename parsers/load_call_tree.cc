#include "parsers/load_call_tree.h"

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/call_tree_text_parser.h"
#include "parsers/chrome_trace_parser.h"
#include "parsers/gzip_text.h"

namespace memplan::parsers {

absl::StatusOr<ir::CallTree> ParseCallTree(const SourceText& source) {
  const std::string_view head = source.text().substr(0, 4096);
  if (LooksLikeChromeTrace(head)) return ParseChromeTrace(source);
  if (LooksLikeTextCallTree(head)) return ParseTextCallTree(source);
  return source.ErrorAt(source.text().data(),
                        "expected a call tree: Chrome trace-event JSON ('{' or '[') or a text "
                        "tree with lines like '├── name, file.py:12'");
}

absl::StatusOr<ir::CallTree> LoadCallTree(const std::string& path) {
  ASSIGN_OR_RETURN(std::shared_ptr<const SourceText> file, SourceText::FromFile(path));
  if (LooksGzipped(file->text())) {
    ASSIGN_OR_RETURN(std::string text, Gunzip(file->text(), path));
    const std::shared_ptr<const SourceText> unzipped = SourceText::FromString(path, text);
    return ParseCallTree(*unzipped);
  }
  return ParseCallTree(*file);
}

}  // namespace memplan::parsers
