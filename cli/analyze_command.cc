#include <cstdio>
#include <optional>

#include "analyzer/analysis.h"
#include "cli/commands.h"
#include "cli/device_memory.h"
#include "cli/errors.h"
#include "cli/load_or_report.h"
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

namespace {

// What the flags ask of the analysis and the views, checked.
struct AnalyzeSettings {
  analyzer::Analysis::Options options;
  std::optional<viz::DeviceMemory> device;
};

// The settings, or the flag error printed and nullopt.
std::optional<AnalyzeSettings> SettingsFromFlags(const AnalyzeFlags& flags) {
  AnalyzeSettings settings;
  settings.options.top_n = flags.top;
  const std::optional<analyzer::AttributionKey> key = analyzer::AttributionKeyFromName(flags.by);
  if (!key) {
    std::fprintf(stderr, "memplan: --by=%s: expected op, source or type\n", flags.by.c_str());
    return std::nullopt;
  }
  settings.options.attribution_key = *key;
  if (flags.width < 0) {
    std::fprintf(stderr, "memplan: --width=%d: expected a number of columns, or 0 for no limit\n",
                 flags.width);
    return std::nullopt;
  }
  if (!flags.device.empty()) {
    const std::optional<int64_t> bytes = DeviceMemoryBytes(flags.device);
    if (!bytes) {
      std::fprintf(stderr, "memplan: --device=%s: expected %s\n", flags.device.c_str(),
                   DeviceMemoryNames().c_str());
      return std::nullopt;
    }
    settings.device = viz::DeviceMemory{flags.device, *bytes};
  }
  return settings;
}

// The report in every format but JSON (which is streamed to the output).
absl::StatusOr<std::string> Render(const AnalyzeFlags& flags, const viz::AnalyzeReportInput& input,
                                   analyzer::AttributionKey key) {
  const int drawn = flags.top_given ? flags.top : kDefaultDrawnValues;
  switch (flags.format) {
    case AnalyzeFormat::kText:
      return viz::RenderAnalyzeText(input);
    case AnalyzeFormat::kJson:
      return std::string();
    case AnalyzeFormat::kFolded:
      return analyzer::FoldedStacks(input.program, input.analysis.origins,
                                    input.analysis.attributed_values, key);
    case AnalyzeFormat::kDot:
    case AnalyzeFormat::kSvg: {
      viz::DotOptions dot_options;
      dot_options.max_values = drawn;
      std::string dot = viz::RenderDot(input.program, input.analysis, dot_options);
      if (flags.format == AnalyzeFormat::kDot) return dot;
      return viz::RenderSvgFromDot(dot);
    }
    case AnalyzeFormat::kChromeTrace: {
      viz::ChromeTraceOptions trace_options;
      trace_options.max_values = drawn;
      return viz::RenderChromeTrace(input.program, input.analysis, trace_options);
    }
  }
  return std::string();
}

// A file of CR-only lines, or a header alone, parses to nothing: say so.
// An HLO module read alone has its graph but nothing to analyze: say that
// instead of listing it among what was expected.
void WarnIfEmpty(const ir::Program& program, const std::string& path) {
  if (!program.values.empty() || !program.allocations.empty()) return;
  const std::string file =
      program.source_files.empty() ? path : program.source_files.front();
  if (program.module.instruction_count() > 0) {
    PrintError("warning: " + file +
               ": an HLO module without its buffer assignment: no allocations or values to "
               "analyze; expected the buffer assignment beside it (XLA writes it with "
               "--xla_dump_hlo_as_text)");
    return;
  }
  PrintError("warning: " + file +
             ": no allocations or values found; expected a buffer assignment, HloProto, HLO "
             "module, memory-usage report or OOM message");
}

}  // namespace

int RunAnalyze(const AnalyzeFlags& flags) {
  switch (parsers::SniffAnalyzeInput(flags.path)) {
    case parsers::AnalyzeInputKind::kJaxpr:
      return RunAnalyzeJaxpr(flags);
    case parsers::AnalyzeInputKind::kAlpaStageProfile:
      return RunAnalyzeAlpa(flags);
    case parsers::AnalyzeInputKind::kProgram:
      break;
  }
  std::optional<parsers::LoadedProgram> loaded = LoadOrReport(flags.path, flags.module);
  if (!loaded) return kExitBadInput;
  WarnIfEmpty(loaded->program, flags.path);
  const std::optional<AnalyzeSettings> settings = SettingsFromFlags(flags);
  if (!settings) return kExitBadInput;
  analyzer::Analysis analysis = analyzer::Analysis::Run(loaded->program, settings->options);
  const viz::AnalyzeReportInput input{loaded->program, analysis,
                                      viz::DescribeModuleChoice(*loaded), flags.top,
                                      flags.width, settings->device};
  absl::StatusOr<std::string> rendered = Render(flags, input, settings->options.attribution_key);
  if (!rendered.ok()) {
    PrintError(rendered.status());
    return kExitBadInput;
  }
  absl::Status written =
      flags.format == AnalyzeFormat::kJson
          ? WriteOutputWith(flags.output,
                            [&](llvm::raw_ostream& os) { viz::WriteAnalyzeJson(input, os); })
          : WriteOutput(flags.output, *rendered);
  if (!written.ok()) {
    PrintError(written);
    return kExitBadInput;
  }
  if (flags.output != "-") PrintModuleChoice(*loaded);
  // The output is written: leave the program and its analysis to the exit.
  KeepUntilExit(*std::move(loaded));
  KeepUntilExit(std::move(analysis));
  return kExitOk;
}

}  // namespace memplan::cli
