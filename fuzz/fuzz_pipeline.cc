#include "fuzz/fuzz_pipeline.h"

#include <cstdio>
#include <cstdlib>

#include "analyzer/analysis.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "parsers/utf8.h"
#include "viz/analyze_report.h"
#include "viz/chrome_trace.h"
#include "viz/dot_report.h"
#include "viz/html_report.h"

namespace memplan::fuzz {
namespace {

[[noreturn]] void Fail(std::string_view target, const char* what, const std::string& detail) {
  std::fprintf(stderr, "%.*s: %s\n%s\n", static_cast<int>(target.size()), target.data(), what,
               detail.c_str());
  std::abort();
}

template <typename Item>
bool SortedById(const std::vector<Item>& items) {
  for (size_t i = 1; i < items.size(); ++i) {
    if (!(items[i - 1].id < items[i].id)) return false;
  }
  return true;
}

// Valid UTF-8, and no control characters but tab, newline and CR.
bool CleanText(std::string_view text) {
  if (parsers::FirstInvalidUtf8(text) != text.size()) return false;
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7F) return false;
  }
  return true;
}

}  // namespace

int RunPipeline(std::string_view target, std::string_view file_name, ParseFunction parse,
                const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::vector<std::shared_ptr<const parsers::SourceText>> files = {
      parsers::SourceText::FromString(std::string(file_name), bytes)};
  absl::StatusOr<ir::Program> program = parse(files, ir::Program::Named("fuzz"));
  if (!program.ok()) {
    const std::string message(program.status().message());
    if (!std::string_view(message).starts_with(std::string(file_name) + ":")) {
      Fail(target, "parse error without a location", message);
    }
    return 0;
  }
  if (!SortedById(program->values)) Fail(target, "values not sorted by id", "");
  if (!SortedById(program->allocations)) Fail(target, "allocations not sorted by id", "");

  analyzer::Analysis::Options options;
  options.top_n = 10;
  const analyzer::Analysis analysis = analyzer::Analysis::Run(*program, options);
  const viz::AnalyzeReportInput input{.program = *program,
                                      .analysis = analysis,
                                      .choice = "",
                                      .top_n = options.top_n,
                                      .width = viz::kDefaultTextWidth,
                                      .device = std::nullopt};
  const std::string text = viz::RenderAnalyzeText(input);
  const std::string json = viz::RenderAnalyzeJson(input);
  if (text != viz::RenderAnalyzeText(input)) Fail(target, "text report not deterministic", text);
  if (json != viz::RenderAnalyzeJson(input)) Fail(target, "JSON report not deterministic", json);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) {
    Fail(target, "JSON report does not parse", llvm::toString(parsed.takeError()) + "\n" + json);
  }
  // The interchange views: valid UTF-8 without raw control characters
  // (DOT, HTML), JSON that parses (Chrome trace).
  viz::DotOptions dot_options;
  dot_options.max_values = 20;
  const std::string dot = viz::RenderDot(*program, analysis, dot_options);
  if (!CleanText(dot)) Fail(target, "DOT has invalid UTF-8 or a control character", dot);
  viz::ChromeTraceOptions trace_options;
  trace_options.max_values = 20;
  const std::string trace = viz::RenderChromeTrace(*program, analysis, trace_options);
  llvm::Expected<llvm::json::Value> trace_json = llvm::json::parse(trace);
  if (!trace_json) {
    Fail(target, "Chrome trace does not parse", llvm::toString(trace_json.takeError()) + "\n" + trace);
  }
  viz::HtmlReportLimits limits;
  limits.timeline_columns = 50;
  limits.map_rects = 50;
  limits.table_rows = 10;
  const std::string html = viz::RenderHtmlReport({*program, analysis, "", limits});
  if (!CleanText(html)) Fail(target, "HTML has invalid UTF-8 or a control character", "");
  return 0;
}

}  // namespace memplan::fuzz
