// `memplan check`: the metrics a check compares, from a program or from the
// JSON of `memplan analyze --format=json` (a baseline).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <utility>
#include "analyzer/analysis.h"
#include "cli/check.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "parsers/json_text.h"
#include "parsers/load_program.h"
#include "parsers/source_text.h"
#include "viz/analyze_report.h"
#include "viz/format.h"
#include "viz/junit.h"

namespace memplan::cli {

// ---------------------------------------------------------------------------
// Metrics: from a program, or from `memplan analyze --format=json`.

bool LooksLikeAnalyzeJson(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return false;
  return text.substr(0, 4096).find("\"schema_version\"") != std::string_view::npos;
}

namespace {

// The integer at `path` under `root`: a whole number in [0, 2^63).
absl::StatusOr<int64_t> ByteCountAt(const parsers::SourceText& source,
                                    const llvm::json::Object& root, const parsers::JsonPath& path) {
  const llvm::json::Value* value = nullptr;
  const llvm::json::Object* object = &root;
  for (size_t i = 0; i < path.size(); ++i) {
    value = object != nullptr ? object->get(path[i].key) : nullptr;
    if (value == nullptr) {
      return parsers::JsonErrorAt(
          source, path,
          "expected this key (an integer) of 'memplan analyze --format=json' (docs/json-schema.md)");
    }
    object = value->getAsObject();
  }
  // llvm::json keeps an integer as int64, as uint64 beyond it, else as a
  // double; only whole numbers in [0, 2^63) are byte counts.
  const llvm::Optional<double> number = value->getAsNumber();
  if (number && *number < 0) {
    return parsers::JsonErrorAt(source, path, "expected a byte count of 0 or more");
  }
  if (const llvm::Optional<uint64_t> whole = value->getAsUINT64()) {
    // LLVM 14's parser reads an integer past int64 (strtoll) as INT64_MAX:
    // that one must be written as itself.
    bool clamped = false;
    if (*whole == static_cast<uint64_t>(INT64_MAX)) {
      const std::string_view text = source.text();
      const std::optional<size_t> at = parsers::LocateJsonValue(text, path);
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
  return parsers::JsonErrorAt(source, path, "expected a byte count: an integer from 0 to 2^63-1");
}

}  // namespace

absl::StatusOr<ModuleMetrics> MetricsFromAnalyzeJson(std::string_view text,
                                                     const std::string& file_name) {
  const std::shared_ptr<const parsers::SourceText> source =
      parsers::SourceText::FromString(file_name, text);
  ASSIGN_OR_RETURN(const llvm::json::Value parsed, parsers::ParseJsonText(*source));
  const llvm::json::Object* root = parsed.getAsObject();
  if (root == nullptr) {
    return parsers::JsonErrorAt(*source, {},
                                "expected a JSON object from 'memplan analyze --format=json'");
  }
  const llvm::Optional<int64_t> version = root->getInteger("schema_version");
  if (!version || *version < 1 || *version > viz::kAnalyzeJsonSchemaVersion) {
    return parsers::JsonErrorAt(
        *source, {{"schema_version"}},
        StrCat("expected a schema_version from 1 to ", viz::kAnalyzeJsonSchemaVersion,
               " (this memplan's 'analyze --format=json', docs/json-schema.md)"));
  }
  ModuleMetrics m;
  m.source = file_name;
  if (llvm::Optional<llvm::StringRef> module = root->getString("module")) {
    m.module = module->str();
  } else {
    return parsers::JsonErrorAt(*source, {{"module"}},
                                "expected the module's name (a string) of 'memplan analyze "
                                "--format=json' (docs/json-schema.md)");
  }
  static constexpr struct {
    Metric metric;
    const char* key;
  } kKeys[] = {{Metric::kTemp, "temp_bytes"},
               {Metric::kArgument, "argument_bytes"},
               {Metric::kOutput, "output_bytes"},
               {Metric::kDeviceFootprint, "device_footprint_bytes"},
               {Metric::kTotalAllocation, "total_allocation_bytes"}};
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
    return parsers::JsonErrorAt(*source, {{"live_peak"}},
                                "expected this key (an object or null) of 'memplan analyze "
                                "--format=json' (docs/json-schema.md)");
  }
  if (peak->getAsObject() != nullptr) {
    ASSIGN_OR_RETURN(m.bytes[static_cast<int>(Metric::kPeak)],
                     ByteCountAt(*source, *root, {{peak_key}, {"bytes"}}));
  } else if (peak->kind() != llvm::json::Value::Null) {
    return parsers::JsonErrorAt(*source, {{peak_key}},
                                "expected an object with \"bytes\", or null");
  }
  return m;
}

namespace {

absl::StatusOr<std::string> ReadHead(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat(path, ": cannot open"));
  std::string head(limit, '\0');
  in.read(head.data(), static_cast<std::streamsize>(limit));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

}  // namespace

absl::StatusOr<std::vector<ModuleMetrics>> LoadModules(
    const std::string& path, const std::string& module,
    std::vector<std::pair<std::string, std::string>>* names_and_stems) {
  parsers::LoadOptions options;
  options.module = module;
  ASSIGN_OR_RETURN(parsers::LoadedProgram first, parsers::LoadProgram(path, options));
  std::vector<ModuleMetrics> out;
  auto add = [&](const parsers::LoadedProgram& loaded, const std::string& stem) {
    const analyzer::Analysis analysis = analyzer::Analysis::Run(loaded.program, {});
    out.push_back(MetricsOf(loaded.program, analysis));
    if (names_and_stems) names_and_stems->emplace_back(loaded.program.module_name, stem);
  };
  if (!module.empty() || first.modules.size() <= 1) {
    add(first, first.modules.size() == 1 ? first.modules.front().stem : "");
    return out;
  }
  for (const parsers::DumpModule& m : first.modules) {
    options.module = m.stem;
    ASSIGN_OR_RETURN(parsers::LoadedProgram loaded, parsers::LoadProgram(path, options));
    add(loaded, m.stem);
  }
  return out;
}

absl::StatusOr<std::vector<ModuleMetrics>> LoadBaseline(const std::string& path,
                                                        const std::string& module) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    ASSIGN_OR_RETURN(std::string head, ReadHead(path, 4096));
    if (LooksLikeAnalyzeJson(head)) {
      ASSIGN_OR_RETURN(std::shared_ptr<const parsers::SourceText> file,
                       parsers::SourceText::FromFile(path));
      ASSIGN_OR_RETURN(ModuleMetrics m, MetricsFromAnalyzeJson(file->text(), path));
      return std::vector<ModuleMetrics>{std::move(m)};
    }
  }
  return LoadModules(path, module, nullptr);
}

}  // namespace memplan::cli
