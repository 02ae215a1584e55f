// Where a value sits in JSON text. llvm::json::Value does not remember
// positions, so a reader that finds a semantic problem (a missing key, a
// negative size) asks this for the byte offset of the value at a path and
// reports "file:line:column" from it.
#ifndef MEMPLAN_EXECUTOR_JSON_LOCATE_H_
#define MEMPLAN_EXECUTOR_JSON_LOCATE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memplan::executor {

// One step down a JSON document: an object member or an array element.
struct JsonPathStep {
  std::string key;     // member name, when index < 0
  int64_t index = -1;  // array element
};
using JsonPath = std::vector<JsonPathStep>;

// Byte offset in `text` of the value at `path`; where the path leaves the
// document (a missing member), the offset of the deepest value it reaches.
// Requires `text` to be well-formed JSON (llvm::json::parse accepted it).
// Where a member name repeats, the last one counts, as for llvm::json.
size_t LocateJsonPath(std::string_view text, const JsonPath& path);

// The same, but when the path ends in an object member that exists, the
// offset of its name (its opening quote) rather than of its value.
size_t LocateJsonMemberName(std::string_view text, const JsonPath& path);

// "ranks[1].ops[3].group" for messages.
std::string JsonPathString(const JsonPath& path);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_JSON_LOCATE_H_
