#include <cstdio>
#include <deque>

#include "analyzer/analysis.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/output_file.h"
#include "parsers/dump_files.h"
#include "parsers/load_program.h"
#include "viz/modules_table.h"

namespace memplan::cli {

int RunModules(const ModulesFlags& flags) {
  absl::StatusOr<std::vector<parsers::DumpModule>> modules =
      parsers::FindDumpModules(flags.path);
  if (!modules.ok()) {
    PrintError(modules.status());
    return kExitBadInput;
  }
  absl::StatusOr<parsers::ModuleChoice> choice = parsers::ChooseModule(*modules, "");
  std::deque<analyzer::Analysis> analyses;  // stable addresses for the rows
  std::vector<viz::ModuleRow> rows;
  for (size_t i = 0; i < modules->size(); ++i) {
    viz::ModuleRow row{(*modules)[i], nullptr, {}, false};
    row.chosen = choice.ok() && choice->index == i;
    absl::StatusOr<ir::Program> program = parsers::LoadModule((*modules)[i]);
    if (program.ok()) {
      analyses.push_back(analyzer::Analysis::Run(*program, {}));
      row.analysis = &analyses.back();
    } else {
      row.error = std::string(program.status().message());
    }
    rows.push_back(std::move(row));
  }
  const std::string rendered = flags.format == ModulesFormat::kJson
                                   ? viz::RenderModulesJson(rows)
                                   : viz::RenderModulesText(rows);
  if (absl::Status written = WriteOutput(flags.output, rendered); !written.ok()) {
    PrintError(written);
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace memplan::cli
