#include <cstdio>
#include <optional>

#include "analyzer/analysis.h"
#include "analyzer/call_tree_analysis.h"
#include "analyzer/call_tree_peak.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/load_or_report.h"
#include "cli/output_file.h"
#include "parsers/load_call_tree.h"
#include "parsers/load_program.h"
#include "viz/call_tree_peak.h"
#include "viz/call_tree_report.h"
#include "viz/html_views.h"

namespace memplan::cli {

namespace {

// The program's live peak hung on the tree's nodes (--program). Filled in
// place: `input` points into `loaded` and `peak`.
struct ProgramPeak {
  std::optional<parsers::LoadedProgram> loaded;
  std::optional<analyzer::CallTreePeak> peak;
  std::optional<viz::CallTreePeakInput> input;
};

// Loads --program and hangs its peak on `tree`; false after reporting why not.
bool HangProgramPeak(const CalltreeFlags& flags, const ir::CallTree& tree, ProgramPeak& out) {
  if (flags.format != CalltreeFormat::kText && flags.format != CalltreeFormat::kJson) {
    std::fprintf(stderr, "memplan: --program needs --format=text or json\n");
    return false;
  }
  std::optional<parsers::LoadedProgram> program = LoadOrReport(flags.program, flags.module);
  if (!program) return false;
  out.loaded = *std::move(program);
  const analyzer::Analysis analysis = analyzer::Analysis::Run(out.loaded->program, {});
  if (!analysis.peak) {
    std::fprintf(stderr, "memplan: %s: the program has no live ranges, so no peak to hang on the tree\n",
                 flags.program.c_str());
    return false;
  }
  out.peak = analyzer::HangPeakOnCallTree(out.loaded->program, *analysis.peak, analysis.origins, tree);
  out.input.emplace(viz::CallTreePeakInput{tree, out.loaded->program, *out.peak, flags.top});
  return true;
}

std::string Render(const CalltreeFlags& flags, viz::CallTreeReportInput& input) {
  switch (flags.format) {
    case CalltreeFormat::kText:
      return viz::RenderCallTreeText(input);
    case CalltreeFormat::kJson:
      return viz::RenderCallTreeJson(input);
    case CalltreeFormat::kDot:
      if (!flags.top_given) input.top = 100;
      return viz::RenderCallTreeDot(input);
    case CalltreeFormat::kFolded:
      return viz::RenderCallTreeFolded(input);
    case CalltreeFormat::kHtml:
      return viz::RenderCallTreeHtml(input, input.tree.source_name);
  }
  return "";
}

}  // namespace

int RunCalltree(const CalltreeFlags& flags) {
  if (flags.top < 0) {
    std::fprintf(stderr, "memplan: --top must be 0 (all) or more\n");
    return kExitBadInput;
  }
  absl::StatusOr<ir::CallTree> tree = parsers::LoadCallTree(flags.path);
  if (!tree.ok()) {
    PrintError(tree.status());
    return kExitBadInput;
  }
  const analyzer::CallTreeSummary summary = analyzer::SummarizeCallTree(*tree);
  const analyzer::CallTreeMemory memory = analyzer::AnalyzeCallTreeMemory(*tree, summary);
  viz::CallTreeReportInput input{*tree, summary, memory, flags.top};
  ProgramPeak program_peak;
  if (!flags.program.empty()) {
    if (!HangProgramPeak(flags, *tree, program_peak)) return kExitBadInput;
    input.program_peak = &*program_peak.input;
  }
  const std::string rendered = Render(flags, input);
  if (absl::Status written = WriteOutput(flags.output, rendered); !written.ok()) {
    PrintError(written);
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace memplan::cli
