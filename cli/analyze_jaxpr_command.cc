// `memplan analyze` on a jaxpr (liveness, peak, flops) and on Alpa's stage
// profile log (the stage table with predicted temp).
#include <charconv>
#include <cstdio>
#include <optional>
#include <string_view>
#include <vector>

#include "analyzer/alpa_stage_memory.h"
#include "analyzer/jaxpr_flops.h"
#include "analyzer/jaxpr_liveness.h"
#include "analyzer/jaxpr_schedule.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/output_file.h"
#include "parsers/alpa_stage_profile_parser.h"
#include "parsers/jaxpr_parser.h"
#include "parsers/load_program.h"
#include "viz/jaxpr_report.h"

namespace memplan::cli {

namespace {

std::optional<int64_t> Index(std::string_view s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0 || v > (1 << 24)) return std::nullopt;
  return v;
}

// "0,2,5-9" as flags per input; nullopt when malformed.
std::optional<std::vector<bool>> DonatedInputs(std::string_view list) {
  std::vector<bool> donated;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    const size_t dash = item.find('-');
    const std::optional<int64_t> first = Index(item.substr(0, dash));
    const std::optional<int64_t> last =
        dash == std::string_view::npos ? first : Index(item.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    if (donated.size() <= static_cast<size_t>(*last)) donated.resize(static_cast<size_t>(*last) + 1, false);
    for (int64_t i = *first; i <= *last; ++i) donated[static_cast<size_t>(i)] = true;
  }
  return donated;
}

bool TextOrJson(const AnalyzeFlags& flags, const char* what) {
  if (flags.format == AnalyzeFormat::kText || flags.format == AnalyzeFormat::kJson) return true;
  std::fprintf(stderr, "memplan: %s: %s is reported as --format=text or json\n", flags.path.c_str(), what);
  return false;
}

int Write(const AnalyzeFlags& flags, const std::string& text,
          const std::function<void(llvm::raw_ostream&)>& json) {
  const absl::Status written = flags.format == AnalyzeFormat::kJson ? WriteOutputWith(flags.output, json)
                                                                     : WriteOutput(flags.output, text);
  if (!written.ok()) {
    PrintError(written);
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

int RunAnalyzeJaxpr(const AnalyzeFlags& flags) {
  if (!TextOrJson(flags, "a jaxpr")) return kExitBadInput;
  const std::optional<std::vector<bool>> donated = DonatedInputs(flags.donate);
  if (!donated) {
    std::fprintf(stderr, "memplan: --donate=%s: expected input numbers and ranges, e.g. 0,2,5-9\n",
                 flags.donate.c_str());
    return kExitBadInput;
  }
  absl::StatusOr<std::shared_ptr<const parsers::SourceText>> source = parsers::ReadInputFile(flags.path);
  if (!source.ok()) {
    PrintError(source.status());
    return kExitBadInput;
  }
  absl::StatusOr<ir::JaxprModule> module = parsers::ParseJaxpr(**source);
  if (!module.ok()) {
    PrintError(module.status());
    return kExitBadInput;
  }
  analyzer::JaxprScheduleOptions options;
  options.donated = *donated;
  options.inline_calls = flags.inline_calls;
  absl::StatusOr<analyzer::JaxprSchedule> schedule = analyzer::ScheduleJaxpr(*module, options);
  if (!schedule.ok()) {
    PrintError(schedule.status());
    return kExitBadInput;
  }
  const analyzer::JaxprLiveness liveness = analyzer::ComputeJaxprLiveness(
      *module, *schedule,
      flags.fused ? analyzer::JaxprMemoryModel::kFused : analyzer::JaxprMemoryModel::kEveryValue);
  const analyzer::JaxprFlops flops = analyzer::CountJaxprFlops(*module, module->top);
  const viz::JaxprReportInput input{*module, *schedule, liveness, flops, flags.top};
  return Write(flags, flags.format == AnalyzeFormat::kText ? viz::RenderJaxprText(input) : "",
               [&](llvm::raw_ostream& os) { viz::WriteJaxprJson(input, os); });
}

int RunAnalyzeAlpa(const AnalyzeFlags& flags) {
  if (!TextOrJson(flags, "an Alpa stage profile")) return kExitBadInput;
  absl::StatusOr<std::shared_ptr<const parsers::SourceText>> source = parsers::ReadInputFile(flags.path);
  if (!source.ok()) {
    PrintError(source.status());
    return kExitBadInput;
  }
  absl::StatusOr<ir::AlpaStageDocument> doc = parsers::ParseAlpaStageProfile(**source);
  if (!doc.ok()) {
    PrintError(doc.status());
    return kExitBadInput;
  }
  std::vector<analyzer::AlpaStageMemory> stages;
  for (size_t p = 0; p < doc->profiles.size(); ++p) {
    absl::StatusOr<analyzer::AlpaStageMemory> stage = analyzer::AlpaStageMemoryTable(*doc, p);
    if (!stage.ok()) {
      PrintError(stage.status());
      return kExitBadInput;
    }
    stages.push_back(*std::move(stage));
  }
  const viz::AlpaReportInput input{*doc, stages};
  return Write(flags, flags.format == AnalyzeFormat::kText ? viz::RenderAlpaText(input) : "",
               [&](llvm::raw_ostream& os) { viz::WriteAlpaJson(input, os); });
}

}  // namespace memplan::cli
