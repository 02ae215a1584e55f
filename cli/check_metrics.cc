// `memplan check`: the metrics a check compares, from a program or from the
// JSON of `memplan analyze --format=json` (a baseline).
#include <algorithm>
#include <charconv>
#include <cmath>
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
#include "parsers/load_program.h"
#include "viz/describe.h"
#include "viz/format.h"
#include "viz/junit.h"

namespace memplan::cli {

// ---------------------------------------------------------------------------
// Metrics: from a program, or from `memplan analyze --format=json`.

ModuleMetrics MetricsOf(const ir::Program& program, const analyzer::Analysis& analysis) {
  ModuleMetrics m;
  m.module = program.module_name;
  m.source = program.source_files.empty() ? "" : program.source_files.front();
  const analyzer::MemoryStats& s = analysis.stats;
  if (analysis.peak) m.bytes[static_cast<int>(Metric::kPeak)] = analysis.peak->bytes;
  m.bytes[static_cast<int>(Metric::kTemp)] = s.temp_bytes;
  if (s.argument_known) m.bytes[static_cast<int>(Metric::kArgument)] = s.argument_bytes;
  if (s.output_known) m.bytes[static_cast<int>(Metric::kOutput)] = s.output_bytes;
  if (s.device_footprint_known) {
    m.bytes[static_cast<int>(Metric::kDeviceFootprint)] = s.device_footprint_bytes;
  }
  if (s.total_allocation_known) {
    m.bytes[static_cast<int>(Metric::kTotalAllocation)] = s.total_allocation_bytes;
  }
  for (const ir::Note& note : program.notes) {
    if (note.code == ir::NoteCode::kInputEndsEarly) m.untrusted = viz::DescribeNote(note);
  }
  return m;
}

bool LooksLikeAnalyzeJson(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return false;
  return text.substr(0, 4096).find("\"schema_version\"") != std::string_view::npos;
}

absl::StatusOr<ModuleMetrics> MetricsFromAnalyzeJson(std::string_view text,
                                                     const std::string& file_name) {
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse(llvm::StringRef(text.data(), text.size()));
  if (!parsed) {
    return absl::InvalidArgumentError(
        StrCat(file_name, ": error: invalid JSON: ", llvm::toString(parsed.takeError())));
  }
  const llvm::json::Object* root = parsed->getAsObject();
  if (root == nullptr) {
    return absl::InvalidArgumentError(
        StrCat(file_name, ": error: expected a JSON object from 'memplan analyze --format=json'"));
  }
  auto missing = [&](std::string_view key) {
    return absl::InvalidArgumentError(
        StrCat(file_name, ": error: expected key '", key,
               "' (an integer) of 'memplan analyze --format=json' (docs/json-schema.md)"));
  };
  ModuleMetrics m;
  m.source = file_name;
  if (llvm::Optional<llvm::StringRef> module = root->getString("module")) {
    m.module = module->str();
  } else {
    return missing("module");
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
    const llvm::json::Value* value = root->get(k.key);
    if (value != nullptr && value->getAsNull()) continue;  // the input did not know it
    const llvm::Optional<int64_t> bytes = root->getInteger(k.key);
    if (!bytes) return missing(k.key);
    m.bytes[static_cast<int>(k.metric)] = *bytes;
  }
  const llvm::json::Value* peak = root->get("live_peak");
  if (peak == nullptr) return missing("live_peak");
  if (const llvm::json::Object* p = peak->getAsObject()) {
    const llvm::Optional<int64_t> bytes = p->getInteger("bytes");
    if (!bytes) return missing("live_peak.bytes");
    m.bytes[static_cast<int>(Metric::kPeak)] = *bytes;
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
      llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
          llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
      if (!buffer) {
        return absl::InvalidArgumentError(
            StrCat(path, ": cannot read: ", buffer.getError().message()));
      }
      const llvm::StringRef text = (*buffer)->getBuffer();
      ASSIGN_OR_RETURN(ModuleMetrics m,
                       MetricsFromAnalyzeJson(std::string_view(text.data(), text.size()), path));
      return std::vector<ModuleMetrics>{std::move(m)};
    }
  }
  return LoadModules(path, module, nullptr);
}

}  // namespace memplan::cli
