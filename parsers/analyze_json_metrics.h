// A baseline for `memplan check --baseline`: the metrics in the JSON of
// `memplan analyze --format=json` (docs/json-schema.md).
#ifndef MEMPLAN_PARSERS_ANALYZE_JSON_METRICS_H_
#define MEMPLAN_PARSERS_ANALYZE_JSON_METRICS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/budget_metrics.h"

namespace memplan::parsers {

// Metrics from `memplan analyze --format=json` output, whose schema
// versions 1 to `max_schema_version` this reads. InvalidArgument
// "file:line:col: error: expected ..." when the text is not such a document:
// invalid JSON or nested deeper than parsers::kMaxJsonDepth, another
// schema_version, a key missing, or a byte count that is negative or not
// below 2^63. A null byte count is a number the input did not state.
absl::StatusOr<ir::ModuleMetrics> MetricsFromAnalyzeJson(std::string_view text,
                                                         const std::string& file_name,
                                                         int max_schema_version);

// True when `text` looks like that JSON (an object with "schema_version" in
// its first 4096 bytes).
bool LooksLikeAnalyzeJson(std::string_view text);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_ANALYZE_JSON_METRICS_H_
