// JSON inputs with located errors. llvm::json parses but keeps no positions;
// these helpers parse a SourceText (a syntax error becomes
// "file:line:col: error: ..." at its byte) and find where a value sits in
// the text, so that a schema error can point at it too.
#ifndef MEMPLAN_PARSERS_JSON_TEXT_H_
#define MEMPLAN_PARSERS_JSON_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "llvm/Support/JSON.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// Deepest nesting of arrays and objects that ParseJsonText accepts
// (llvm::json's parser recurses once per level).
inline constexpr int64_t kMaxJsonDepth = 64;

// One step of a path into a JSON document: an object key, or an array index
// when `index` >= 0.
struct JsonStep {
  std::string key;
  int64_t index = -1;
};
using JsonPath = std::vector<JsonStep>;

// Parses the whole text. InvalidArgument with the location of a syntax
// error, of invalid UTF-8, or of nesting deeper than kMaxJsonDepth.
absl::StatusOr<llvm::json::Value> ParseJsonText(const SourceText& source);

// True when the first non-space byte is '{' or '['.
bool LooksLikeJson(std::string_view text);

// Offset in `text` of the first byte of the value at `path` (the key's
// value, or the array element). Precondition: `text` is well-formed JSON
// (ParseJsonText accepted it). nullopt when the path does not exist; an empty
// path is the root value.
std::optional<size_t> LocateJsonValue(std::string_view text, const JsonPath& path);

// "results[3].out_of_place.time"
std::string JsonPathString(const JsonPath& path);

// An error at the value `path` names (or at the deepest part of it that
// exists): "file:line:col: error: <path>: <message>".
absl::Status JsonErrorAt(const SourceText& source, const JsonPath& path,
                         std::string_view message);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_JSON_TEXT_H_
