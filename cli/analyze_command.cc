#include <cstdio>

#include "analyzer/analysis.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "parsers/load_program.h"
#include "viz/analyze_report.h"

namespace memplan::cli {

void PrintError(const absl::Status& status) {
  std::fprintf(stderr, "memplan: %.*s\n", static_cast<int>(status.message().size()),
               status.message().data());
}

int RunAnalyze(const AnalyzeFlags& flags) {
  parsers::LoadOptions load_options;
  load_options.module = flags.module;
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(flags.path, load_options);
  if (!loaded.ok()) {
    PrintError(loaded.status());
    return kExitBadInput;
  }
  analyzer::Analysis::Options options;
  options.top_n = flags.top;
  const analyzer::Analysis analysis = analyzer::Analysis::Run(loaded->program, options);
  const viz::AnalyzeReportInput input{loaded->program, analysis, loaded->choice, flags.top};
  const std::string rendered = flags.format == AnalyzeFormat::kJson
                                   ? viz::RenderAnalyzeJson(input)
                                   : viz::RenderAnalyzeText(input);
  if (absl::Status written = WriteOutput(flags.output, rendered); !written.ok()) {
    PrintError(written);
    return kExitBadInput;
  }
  if (!loaded->choice.empty() && flags.output != "-") {
    std::fprintf(stderr, "memplan: %s\n", loaded->choice.c_str());
  }
  return kExitOk;
}

}  // namespace memplan::cli
