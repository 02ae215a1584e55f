// Internal to the collective-measurement JSON parsers
// (collective_json_parsers.cc): the fields of one JSON object read with
// errors located at them, in the forms nccl-tests and memplan write.
#ifndef MEMPLAN_PARSERS_COLLECTIVE_JSON_FIELDS_H_
#define MEMPLAN_PARSERS_COLLECTIVE_JSON_FIELDS_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "llvm/Support/JSON.h"
#include "parsers/json_text.h"
#include "parsers/source_text.h"

namespace memplan::parsers::internal {

// Reads fields of one JSON object, with errors located at them.
class Fields {
 public:
  Fields(const SourceText& source, const llvm::json::Object& object, JsonPath path)
      : source_(source), object_(object), path_(std::move(path)) {}

  JsonPath PathOf(std::string_view key) const {
    JsonPath p = path_;
    p.push_back({std::string(key), -1});
    return p;
  }
  const char* At(std::string_view key) const {
    const std::optional<size_t> offset = LocateJsonValue(source_.text(), PathOf(key));
    return source_.text().data() + offset.value_or(0);
  }
  absl::Status Error(std::string_view key, std::string_view message) const {
    return JsonErrorAt(source_, PathOf(key), message);
  }
  const llvm::json::Value* Get(std::string_view key) const {
    return object_.get(llvm::StringRef(key.data(), key.size()));
  }

  absl::StatusOr<int64_t> Integer(std::string_view key, bool required = true,
                                  int64_t fallback = 0) const {
    const llvm::json::Value* v = Get(key);
    if (v == nullptr || v->kind() == llvm::json::Value::Null) {
      if (!required) return fallback;
      return Error(key, "expected a non-negative integer (missing)");
    }
    std::optional<int64_t> i;
    if (auto exact = v->getAsInteger()) i = *exact;
    if (!i) {
      // nccl-tests writes some counts with %lf: "0.000000".
      const auto d = v->getAsNumber();
      if (d && std::isfinite(*d) && *d == std::floor(*d) && std::fabs(*d) < 9.2e18) {
        i = static_cast<int64_t>(*d);
      }
    }
    if (!i || *i < 0) return Error(key, "expected a non-negative integer");
    return *i;
  }

  // A number; nccl-tests writes NaN as the string "nan".
  absl::StatusOr<double> Number(std::string_view key) const {
    const llvm::json::Value* v = Get(key);
    if (v == nullptr) return Error(key, "expected a number (missing)");
    if (auto d = v->getAsNumber()) return *d;
    if (auto s = v->getAsString(); s && *s == "nan") return NAN;
    return Error(key, "expected a number");
  }

  absl::StatusOr<std::string> String(std::string_view key, bool required = true) const {
    const llvm::json::Value* v = Get(key);
    if (v == nullptr || v->kind() == llvm::json::Value::Null) {
      if (!required) return std::string();
      return Error(key, "expected a string (missing)");
    }
    auto s = v->getAsString();
    if (!s) return Error(key, "expected a string");
    return s->str();
  }

  const JsonPath& path() const { return path_; }

 private:
  const SourceText& source_;
  const llvm::json::Object& object_;
  JsonPath path_;
};

// The object `value` (at `path`), or an error located there.
inline absl::StatusOr<const llvm::json::Object*> ObjectAt(const SourceText& source,
                                                          const llvm::json::Value& value,
                                                          const JsonPath& path) {
  const llvm::json::Object* object = value.getAsObject();
  if (object == nullptr) return JsonErrorAt(source, path, "expected an object");
  return object;
}

// `path` with the object key `key` added.
inline JsonPath Append(JsonPath path, std::string key) {
  path.push_back({std::move(key), -1});
  return path;
}

}  // namespace memplan::parsers::internal

#endif  // MEMPLAN_PARSERS_COLLECTIVE_JSON_FIELDS_H_
