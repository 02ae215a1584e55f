#include "parsers/analyze_json_metrics.h"

#include <cmath>
#include <cstdint>
#include <memory>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "parsers/json_text.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

bool LooksLikeAnalyzeJson(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return false;
  return text.substr(0, 4096).find("\"schema_version\"") != std::string_view::npos;
}

namespace {

// The integer at `path` under `root`: a whole number in [0, 2^63).
absl::StatusOr<int64_t> ByteCountAt(const SourceText& source,
                                    const llvm::json::Object& root, const JsonPath& path) {
  const llvm::json::Value* value = nullptr;
  const llvm::json::Object* object = &root;
  for (size_t i = 0; i < path.size(); ++i) {
    value = object != nullptr ? object->get(path[i].key) : nullptr;
    if (value == nullptr) {
      return JsonErrorAt(
          source, path,
          "expected this key (an integer) of memplan's analyze JSON (docs/json-schema.md)");
    }
    object = value->getAsObject();
  }
  // llvm::json keeps an integer as int64, as uint64 beyond it, else as a
  // double; only whole numbers in [0, 2^63) are byte counts.
  const llvm::Optional<double> number = value->getAsNumber();
  if (number && *number < 0) {
    return JsonErrorAt(source, path, "expected a byte count of 0 or more");
  }
  if (const llvm::Optional<uint64_t> whole = value->getAsUINT64()) {
    // LLVM 14's parser reads an integer past int64 (strtoll) as INT64_MAX:
    // that one must be written as itself.
    bool clamped = false;
    if (*whole == static_cast<uint64_t>(INT64_MAX)) {
      const std::string_view text = source.text();
      const std::optional<size_t> at = LocateJsonValue(text, path);
      const size_t end = at ? *at + 19 : 0;
      clamped = !at || text.substr(*at, 19) != "9223372036854775807" ||
                (end < text.size() && text[end] >= '0' && text[end] <= '9');
    }
    if (*whole <= static_cast<uint64_t>(INT64_MAX) && !clamped) {
      return static_cast<int64_t>(*whole);
    }
  } else if (number && std::floor(*number) == *number && *number < 9223372036854775808.0) {
    return static_cast<int64_t>(*number);
  }
  return JsonErrorAt(source, path, "expected a byte count: an integer from 0 to 2^63-1");
}

}  // namespace

absl::StatusOr<ir::ModuleMetrics> MetricsFromAnalyzeJson(std::string_view text,
                                                         const std::string& file_name,
                                                         int max_schema_version) {
  const std::shared_ptr<const SourceText> source =
      SourceText::FromString(file_name, text);
  ASSIGN_OR_RETURN(const llvm::json::Value parsed, ParseJsonText(*source));
  const llvm::json::Object* root = parsed.getAsObject();
  if (root == nullptr) {
    return JsonErrorAt(*source, {},
                                "expected a JSON object: memplan's analyze JSON (docs/json-schema.md)");
  }
  const llvm::Optional<int64_t> version = root->getInteger("schema_version");
  if (!version || *version < 1 || *version > max_schema_version) {
    return JsonErrorAt(
        *source, {{"schema_version"}},
        StrCat("expected a schema_version from 1 to ", max_schema_version,
               " (this memplan's analyze JSON, docs/json-schema.md)"));
  }
  ir::ModuleMetrics m;
  m.source = file_name;
  if (llvm::Optional<llvm::StringRef> module = root->getString("module")) {
    m.module = module->str();
  } else {
    return JsonErrorAt(*source, {{"module"}},
                                "expected the module's name (a string) of memplan's analyze JSON "
                                "(docs/json-schema.md)");
  }
  static constexpr struct {
    ir::Metric metric;
    const char* key;
  } kKeys[] = {{ir::Metric::kTemp, "temp_bytes"},
               {ir::Metric::kArgument, "argument_bytes"},
               {ir::Metric::kOutput, "output_bytes"},
               {ir::Metric::kDeviceFootprint, "device_footprint_bytes"},
               {ir::Metric::kTotalAllocation, "total_allocation_bytes"}};
  for (const auto& k : kKeys) {
    const llvm::json::Value* field = root->get(k.key);
    if (field != nullptr && field->kind() == llvm::json::Value::Null) continue;  // not stated
    ASSIGN_OR_RETURN(m.bytes[static_cast<int>(k.metric)],
                     ByteCountAt(*source, *root, {{k.key}}));
  }
  // The occupied peak where the document has it (newer memplan), else XLA's.
  const char* peak_key = root->get("occupied_peak") != nullptr ? "occupied_peak" : "live_peak";
  const llvm::json::Value* peak = root->get(peak_key);
  if (peak == nullptr) {
    return JsonErrorAt(*source, {{"live_peak"}},
                                "expected this key (an object or null) of memplan's analyze JSON "
                                "(docs/json-schema.md)");
  }
  if (peak->getAsObject() != nullptr) {
    ASSIGN_OR_RETURN(m.bytes[static_cast<int>(ir::Metric::kPeak)],
                     ByteCountAt(*source, *root, {{peak_key}, {"bytes"}}));
  } else if (peak->kind() != llvm::json::Value::Null) {
    return JsonErrorAt(*source, {{peak_key}},
                                "expected an object with \"bytes\", or null");
  }
  return m;
}

}  // namespace memplan::parsers
