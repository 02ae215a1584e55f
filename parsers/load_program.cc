#include "parsers/load_program.h"

#include <filesystem>

#include "ir/strings.h"
#include "ir/status_macros.h"
#include "parsers/buffer_assignment_parser.h"
#include "parsers/source_text.h"

namespace memplan::parsers {
namespace {

absl::StatusOr<ir::Program> ParseModule(const DumpModule& module) {
  std::vector<std::shared_ptr<const SourceText>> sources;
  for (const std::string& file : module.files) {
    ASSIGN_OR_RETURN(auto source, SourceText::FromFile(file));
    sources.push_back(std::move(source));
  }
  return ParseBufferAssignment(sources, module.name);
}

std::string DescribeChoice(const DumpModule& chosen, size_t module_count,
                           const LoadOptions& options) {
  if (module_count <= 1) return "";
  if (!options.module.empty()) {
    return StrCat("analyzing module ", chosen.name, " (named by --module), one of ",
                        module_count, " in the dump");
  }
  return StrCat("analyzing module ", chosen.name, ", the largest of ", module_count,
                      " in the dump by ",
                      chosen.size_hint_is_total_bytes ? "'Total bytes used'" : "file size",
                      " (", chosen.size_hint, " bytes); pick another with --module");
}

}  // namespace

absl::StatusOr<LoadedProgram> LoadProgram(const std::string& path,
                                          const LoadOptions& options) {
  std::error_code ec;
  LoadedProgram loaded;
  DumpModule chosen;
  if (std::filesystem::is_directory(path, ec)) {
    ASSIGN_OR_RETURN(loaded.modules, FindDumpModules(path));
    ASSIGN_OR_RETURN(chosen, ChooseModule(loaded.modules, options.module));
    loaded.choice = DescribeChoice(chosen, loaded.modules.size(), options);
  } else if (std::filesystem::exists(path, ec)) {
    chosen = ModuleForFile(path);
  } else {
    return absl::NotFoundError(StrCat(path, ": no such file or directory"));
  }
  ASSIGN_OR_RETURN(loaded.program, ParseModule(chosen));
  return loaded;
}

}  // namespace memplan::parsers
