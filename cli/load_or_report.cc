#include "cli/load_or_report.h"

#include <utility>

#include "cli/errors.h"
#include "viz/describe.h"

namespace memplan::cli {

std::optional<parsers::LoadedProgram> LoadOrReport(const std::string& path,
                                                   const std::string& module,
                                                   const ir::JaxprProgramOptions& jaxpr) {
  parsers::LoadOptions options;
  options.module = module;
  options.jaxpr = jaxpr;
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(path, options);
  if (!loaded.ok()) {
    PrintError(loaded.status());
    return std::nullopt;
  }
  return *std::move(loaded);
}

void PrintModuleChoice(const parsers::LoadedProgram& loaded) {
  const std::string choice = viz::DescribeModuleChoice(loaded);
  if (!choice.empty()) PrintError(choice + " (--module picks another)");
}

}  // namespace memplan::cli
