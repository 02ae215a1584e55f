// Reads a call tree from a file for `memplan calltree`: a text call tree or
// a Chrome trace-event JSON file, either of them gzip'd or not. The format
// is sniffed from the content, not the file name.
#ifndef MEMPLAN_PARSERS_LOAD_CALL_TREE_H_
#define MEMPLAN_PARSERS_LOAD_CALL_TREE_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/call_tree.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// Parses `source` (already decompressed) as whichever format it holds.
// InvalidArgument naming the file when it is neither.
absl::StatusOr<ir::CallTree> ParseCallTree(const SourceText& source);

// Reads `path`, gunzips it when it starts with the gzip magic, and parses
// it. Errors in a gzip'd file name lines of the decompressed text.
absl::StatusOr<ir::CallTree> LoadCallTree(const std::string& path);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_LOAD_CALL_TREE_H_
