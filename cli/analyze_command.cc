#include <cstdio>
#include <optional>

#include "analyzer/analysis.h"
#include "cli/commands.h"
#include "cli/device_memory.h"
#include "cli/keep_until_exit.h"
#include "cli/output_file.h"
#include "parsers/load_program.h"
#include "viz/analyze_report.h"
#include "viz/describe.h"
#include "viz/chrome_trace.h"
#include "viz/dot_report.h"
#include "viz/svg_render.h"
#include "llvm/Support/raw_ostream.h"

namespace memplan::cli {
namespace {

// Values DOT, SVG and the Chrome trace draw when --top is not given.
constexpr int kDefaultDrawnValues = 100;

}  // namespace

void PrintError(const absl::Status& status) {
  std::fprintf(stderr, "memplan: %.*s\n", static_cast<int>(status.message().size()),
               status.message().data());
}

int RunAnalyze(const AnalyzeFlags& flags) {
  switch (parsers::SniffAnalyzeInput(flags.path)) {
    case parsers::AnalyzeInputKind::kJaxpr:
      return RunAnalyzeJaxpr(flags);
    case parsers::AnalyzeInputKind::kAlpaStageProfile:
      return RunAnalyzeAlpa(flags);
    case parsers::AnalyzeInputKind::kProgram:
      break;
  }
  parsers::LoadOptions load_options;
  load_options.module = flags.module;
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(flags.path, load_options);
  if (!loaded.ok()) {
    PrintError(loaded.status());
    return kExitBadInput;
  }
  const ir::Program& program = loaded->program;
  if (program.values.empty() && program.allocations.empty()) {
    // A file of CR-only lines, or a header alone, parses to nothing.
    std::fprintf(stderr,
                 "memplan: warning: %s: no allocations or values found; expected a buffer "
                 "assignment, HloProto, HLO module, memory-usage report or OOM message\n",
                 program.source_files.empty() ? flags.path.c_str()
                                              : program.source_files.front().c_str());
  }
  analyzer::Analysis::Options options;
  options.top_n = flags.top;
  const std::optional<analyzer::AttributionKey> key = analyzer::AttributionKeyFromName(flags.by);
  if (!key) {
    std::fprintf(stderr, "memplan: --by=%s: expected op, source or type\n", flags.by.c_str());
    return kExitBadInput;
  }
  options.attribution_key = *key;
  if (flags.width < 0) {
    std::fprintf(stderr, "memplan: --width=%d: expected a number of columns, or 0 for no limit\n",
                 flags.width);
    return kExitBadInput;
  }
  std::optional<viz::DeviceMemory> device;
  if (!flags.device.empty()) {
    const std::optional<int64_t> bytes = DeviceMemoryBytes(flags.device);
    if (!bytes) {
      std::fprintf(stderr, "memplan: --device=%s: expected %s\n", flags.device.c_str(),
                   DeviceMemoryNames().c_str());
      return kExitBadInput;
    }
    device = viz::DeviceMemory{flags.device, *bytes};
  }
  analyzer::Analysis analysis = analyzer::Analysis::Run(loaded->program, options);
  viz::AnalyzeReportInput input{loaded->program, analysis, viz::DescribeModuleChoice(*loaded),
                                flags.top};
  input.width = flags.width;
  input.device = device;
  std::string rendered;
  switch (flags.format) {
    case AnalyzeFormat::kText:
      rendered = viz::RenderAnalyzeText(input);
      break;
    case AnalyzeFormat::kJson:
      break;  // streamed below: the document can be large
    case AnalyzeFormat::kFolded:
      rendered = analyzer::FoldedStacks(loaded->program, analysis.origins,
                                        analysis.attributed_values, *key);
      break;
    case AnalyzeFormat::kDot:
    case AnalyzeFormat::kSvg: {
      viz::DotOptions dot_options;
      dot_options.max_values = flags.top_given ? flags.top : kDefaultDrawnValues;
      rendered = viz::RenderDot(loaded->program, analysis, dot_options);
      if (flags.format == AnalyzeFormat::kSvg) {
        absl::StatusOr<std::string> svg = viz::RenderSvgFromDot(rendered);
        if (!svg.ok()) {
          PrintError(svg.status());
          return kExitBadInput;
        }
        rendered = *std::move(svg);
      }
      break;
    }
    case AnalyzeFormat::kChromeTrace: {
      viz::ChromeTraceOptions trace_options;
      trace_options.max_values = flags.top_given ? flags.top : kDefaultDrawnValues;
      rendered = viz::RenderChromeTrace(loaded->program, analysis, trace_options);
      break;
    }
  }
  absl::Status written =
      flags.format == AnalyzeFormat::kJson
          ? WriteOutputWith(flags.output,
                            [&](llvm::raw_ostream& os) { viz::WriteAnalyzeJson(input, os); })
          : WriteOutput(flags.output, rendered);
  if (!written.ok()) {
    PrintError(written);
    return kExitBadInput;
  }
  if (loaded->choice && flags.output != "-") {
    std::fprintf(stderr, "memplan: %s (--module picks another)\n",
                 viz::DescribeModuleChoice(*loaded).c_str());
  }
  // The output is written: leave the program and its analysis to the exit.
  KeepUntilExit(*std::move(loaded));
  KeepUntilExit(std::move(analysis));
  return kExitOk;
}

}  // namespace memplan::cli
