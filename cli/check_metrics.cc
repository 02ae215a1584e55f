// `memplan check`: the metrics a check compares, from the programs at a path
// or from a baseline (a program, or the JSON of `memplan analyze`).
#include <filesystem>
#include <fstream>
#include <memory>
#include <system_error>
#include <utility>

#include "analyzer/analysis.h"
#include "cli/check.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/analyze_json_metrics.h"
#include "parsers/load_program.h"
#include "parsers/source_text.h"
#include "viz/analyze_report.h"

namespace memplan::cli {

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

absl::StatusOr<std::vector<analyzer::ModuleMetrics>> LoadModules(
    const std::string& path, const std::string& module,
    std::vector<std::pair<std::string, std::string>>* names_and_stems) {
  parsers::LoadOptions options;
  options.module = module;
  ASSIGN_OR_RETURN(parsers::LoadedProgram first, parsers::LoadProgram(path, options));
  std::vector<analyzer::ModuleMetrics> out;
  auto add = [&](const parsers::LoadedProgram& loaded, const std::string& stem) {
    const analyzer::Analysis analysis = analyzer::Analysis::Run(loaded.program, {});
    out.push_back(analyzer::MetricsOf(loaded.program, analysis));
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

absl::StatusOr<std::vector<analyzer::ModuleMetrics>> LoadBaseline(const std::string& path,
                                                                  const std::string& module) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    ASSIGN_OR_RETURN(std::string head, ReadHead(path, 4096));
    if (parsers::LooksLikeAnalyzeJson(head)) {
      ASSIGN_OR_RETURN(std::shared_ptr<const parsers::SourceText> file,
                       parsers::SourceText::FromFile(path));
      ASSIGN_OR_RETURN(analyzer::ModuleMetrics m,
                       parsers::MetricsFromAnalyzeJson(file->text(), path,
                                                       viz::kAnalyzeJsonSchemaVersion));
      return std::vector<analyzer::ModuleMetrics>{std::move(m)};
    }
  }
  return LoadModules(path, module, nullptr);
}

}  // namespace memplan::cli
