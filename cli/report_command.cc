// memplan report: load, analyze, render one self-contained HTML page.
#include <cstdio>
#include <optional>
#include <string>

#include "analyzer/analysis.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "parsers/load_program.h"
#include "viz/describe.h"
#include "viz/html_report.h"

namespace memplan::cli {
namespace {

void PrintReportError(const absl::Status& status) {
  std::fprintf(stderr, "memplan: %.*s\n", static_cast<int>(status.message().size()),
               status.message().data());
}

}  // namespace

int RunReport(const ReportFlags& flags) {
  if (flags.output.empty()) {
    std::fprintf(stderr, "memplan: report: -o FILE is required\n");
    return kExitBadInput;
  }
  const std::optional<analyzer::AttributionKey> key = analyzer::AttributionKeyFromName(flags.by);
  if (!key) {
    std::fprintf(stderr, "memplan: --by=%s: expected op, source or type\n", flags.by.c_str());
    return kExitBadInput;
  }
  parsers::LoadOptions load_options;
  load_options.module = flags.module;
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(flags.path, load_options);
  if (!loaded.ok()) {
    PrintReportError(loaded.status());
    return kExitBadInput;
  }
  analyzer::Analysis::Options options;
  options.attribution_key = *key;
  const viz::HtmlReportLimits limits;
  options.top_n = limits.table_rows;
  const analyzer::Analysis analysis = analyzer::Analysis::Run(loaded->program, options);
  const std::string html =
      viz::RenderHtmlReport({loaded->program, analysis, viz::DescribeModuleChoice(*loaded), limits});
  if (absl::Status written = WriteOutput(flags.output, html); !written.ok()) {
    PrintReportError(written);
    return kExitBadInput;
  }
  if (loaded->choice && flags.output != "-") {
    std::fprintf(stderr, "memplan: %s (--module picks another)\n",
                 viz::DescribeModuleChoice(*loaded).c_str());
  }
  return kExitOk;
}

}  // namespace memplan::cli
