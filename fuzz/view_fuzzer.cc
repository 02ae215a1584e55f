// libFuzzer target over the views (issue 14, "fuzz the views too"): the
// input is parsed by one of the program parsers, then rendered as every view
// `memplan analyze`, `report` and `check` write, and each output is checked
// for well-formedness with fuzz/markup_check.h: the text reports (UTF-8, no
// control characters), the JSON report and the Chrome trace (JSON), DOT, the
// HTML report, and `check`'s JUnit XML. A malformed output aborts.
//
// Input: byte 0 picks the parser (buffer assignment, HLO text, memory-usage
// report, OOM message); the bytes up to the first newline (at most 256) are
// the file name, which views print as the source path; the rest is the file.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analyzer/analysis.h"
#include "analyzer/budget_check.h"
#include "fuzz/markup_check.h"
#include "parsers/buffer_assignment_parser.h"
#include "parsers/hlo_text_program.h"
#include "parsers/memory_usage_report_parser.h"
#include "parsers/oom_message_parser.h"
#include "parsers/source_text.h"
#include "viz/analyze_report.h"
#include "viz/check_report.h"
#include "viz/chrome_trace.h"
#include "viz/dot_report.h"
#include "viz/html_report.h"

namespace memplan::fuzz {
namespace {

using Parse = absl::StatusOr<ir::Program> (*)(
    const std::vector<std::shared_ptr<const parsers::SourceText>>&, ir::Program);
constexpr Parse kParsers[] = {parsers::ParseBufferAssignment, parsers::ParseHloTextProgram,
                              parsers::ParseMemoryUsageReport, parsers::ParseOomMessage};

void Expect(std::string_view view, const std::optional<std::string>& problem,
            const std::string& output) {
  if (!problem) return;
  std::fprintf(stderr, "view_fuzzer: %.*s is not well-formed: %s\n%s\n",
               static_cast<int>(view.size()), view.data(), problem->c_str(),
               output.substr(0, 1 << 16).c_str());
  std::abort();
}

// `memplan check`'s views for the program: a budget at half of each number
// (so that some checks fail and carry messages) against a baseline of 90%.
void CheckViews(const ir::Program& program, const analyzer::Analysis& analysis) {
  const analyzer::ModuleMetrics metrics = analyzer::MetricsOf(program, analysis);
  analyzer::BudgetLimits limits;
  analyzer::ModuleMetrics baseline = metrics;
  for (int m = 0; m < analyzer::kNumMetrics; ++m) {
    if (metrics.bytes[m]) {
      limits.limit_bytes[m] = *metrics.bytes[m] / 2;
      baseline.bytes[m] = *metrics.bytes[m] / 10 * 9;
    }
  }
  limits.regression_percent = 5.0;
  viz::CheckModuleReport report;
  report.module = program.module_name;
  report.source = program.source_files.empty() ? "" : program.source_files.front();
  report.budget_key = program.module_name;
  report.baseline = report.source;
  report.limit_text[0] = "0.5 * " + program.module_name;
  report.outcomes = analyzer::CheckModule(metrics, limits, &baseline);
  viz::CheckModuleReport skipped = report;
  skipped.budget_key.clear();
  skipped.outcomes.clear();
  const std::vector<viz::CheckModuleReport> reports = {report, skipped};
  const std::string text = viz::RenderCheckText(reports);
  Expect("check text", TextProblem(text), text);
  const std::string junit = viz::RenderCheckJUnit(reports);
  Expect("JUnit XML", XmlProblem(junit), junit);
}

int Run(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Parse parse = kParsers[data[0] % std::size(kParsers)];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string name = "fuzz-input.txt";
  const size_t newline = rest.substr(0, 257).find('\n');
  if (newline != std::string_view::npos && newline > 0) {
    name = std::string(rest.substr(0, newline));
    rest.remove_prefix(newline + 1);
  }
  const std::vector<std::shared_ptr<const parsers::SourceText>> files = {
      parsers::SourceText::FromString(name, rest)};
  absl::StatusOr<ir::Program> program = parse(files, ir::Program::Named(name));
  if (!program.ok()) return 0;

  analyzer::Analysis::Options options;
  options.top_n = 10;
  const analyzer::Analysis analysis = analyzer::Analysis::Run(*program, options);
  const viz::AnalyzeReportInput input{*program, analysis, name, options.top_n,
                                      viz::kDefaultTextWidth, std::nullopt};
  const std::string text = viz::RenderAnalyzeText(input);
  Expect("text report", TextProblem(text), text);
  const std::string json = viz::RenderAnalyzeJson(input);
  Expect("JSON report", JsonProblem(json), json);

  viz::DotOptions dot_options;
  dot_options.max_values = 20;
  const std::string dot = viz::RenderDot(*program, analysis, dot_options);
  Expect("DOT", DotProblem(dot), dot);
  viz::ChromeTraceOptions trace_options;
  trace_options.max_values = 20;
  const std::string trace = viz::RenderChromeTrace(*program, analysis, trace_options);
  Expect("Chrome trace", JsonProblem(trace), trace);
  viz::HtmlReportLimits limits;
  limits.timeline_columns = 50;
  limits.map_rects = 50;
  limits.table_rows = 10;
  const std::string html = viz::RenderHtmlReport({*program, analysis, name, limits});
  Expect("HTML report", HtmlProblem(html), html);
  CheckViews(*program, analysis);
  return 0;
}

}  // namespace
}  // namespace memplan::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return memplan::fuzz::Run(data, size);
}
