#include <cstdio>

#include "analyzer/analysis.h"
#include "analyzer/diff.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/load_or_report.h"
#include "cli/output_file.h"
#include "parsers/load_program.h"
#include "viz/describe.h"
#include "viz/diff_report.h"

namespace memplan::cli {

int RunDiff(const DiffFlags& flags) {
  std::optional<parsers::LoadedProgram> old_loaded = LoadOrReport(flags.old_path, flags.module);
  if (!old_loaded) return kExitBadInput;
  std::optional<parsers::LoadedProgram> new_loaded = LoadOrReport(flags.new_path, flags.module);
  if (!new_loaded) return kExitBadInput;
  const analyzer::Analysis old_analysis = analyzer::Analysis::Run(old_loaded->program, {});
  const analyzer::Analysis new_analysis = analyzer::Analysis::Run(new_loaded->program, {});
  analyzer::ProgramDiff::Options diff_options;
  diff_options.top_n = flags.top;
  const analyzer::ProgramDiff diff = analyzer::DiffPrograms(
      old_loaded->program, old_analysis, new_loaded->program, new_analysis, diff_options);
  const viz::DiffReportInput input{diff, flags.old_path, flags.new_path};
  const std::string rendered =
      flags.format == DiffFormat::kJson ? viz::RenderDiffJson(input) : viz::RenderDiffText(input);
  if (absl::Status written = WriteOutput(flags.output, rendered); !written.ok()) {
    PrintError(written);
    return kExitBadInput;
  }
  for (const auto* loaded : {&*old_loaded, &*new_loaded}) PrintModuleChoice(*loaded);
  return kExitOk;
}

}  // namespace memplan::cli
