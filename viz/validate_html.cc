// `memplan validate --format=html`: predicted against measured as a section
// of memplan's HTML page shell (viz/html_page.h), one table of ranks and one
// table of ops per rank. The numbers are the text view's, from the same
// executor functions.
#include <cstdio>

#include "executor/collective_data.h"
#include "ir/strings.h"
#include "viz/format.h"
#include "viz/html_page.h"
#include "viz/validate_report.h"

namespace memplan::viz {
namespace {

using executor::OpMeasurement;
using executor::PlanOp;
using executor::RankOutcome;
using executor::RankReport;

std::string Fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

std::string Cell(std::string_view text, bool numeric = false) {
  return StrCat(numeric ? "<td class=\"num\">" : "<td>", HtmlEscape(text), "</td>");
}

std::string Header(std::initializer_list<const char*> names) {
  std::string out = "<tr>";
  for (const char* n : names) StrAppend(&out, "<th>", HtmlEscape(n), "</th>");
  return out + "</tr>";
}

bool Measured(const RankReport& rank) {
  return rank.outcome == RankOutcome::kOk || rank.outcome == RankOutcome::kFailed ||
         rank.outcome == RankOutcome::kTimedOut;
}

std::string RanksTable(const ValidateViewInput& input) {
  std::string out = "<table>";
  out += Header({"rank", "device", "outcome", "mode", "planned peak", "measured peak", "error",
                 "step time (us)", "predicted (us)"});
  for (const RankReport& rank : input.report.ranks) {
    const executor::RankPlan& plan = input.plan.ranks[rank.rank];
    const std::string problem = RankProblemSentence(rank);
    out += "<tr>";
    out += Cell(StrCat(rank.rank), true);
    out += Cell(rank.device.empty() ? "-" : rank.device);
    out += Cell(problem.empty() ? "ok" : problem.substr(problem.find(": ") + 2));
    out += Cell(executor::AllocationModeName(rank.mode));
    out += Cell(HumanBytes(rank.planned_peak_bytes), true);
    out += Cell(Measured(rank) ? HumanBytes(rank.measured_peak_bytes) : "-", true);
    out += Cell(Measured(rank) ? SignedPercent(executor::PeakErrorPercent(rank)) : "-", true);
    out += Cell(Measured(rank) ? Fixed(rank.step_seconds * 1e6, 2) : "-", true);
    out += Cell(plan.predicted_step_seconds ? Fixed(*plan.predicted_step_seconds * 1e6, 2) : "-", true);
    out += "</tr>";
  }
  return out + "</table>";
}

std::string OpRow(const PlanOp& op, const OpMeasurement& m) {
  std::string out = "<tr>";
  out += Cell(StrCat(m.index), true);
  out += Cell(StrCat(op.step), true);
  const bool collective = op.kind == PlanOp::Kind::kCollective;
  out += Cell(collective ? StrCat(executor::CollectiveName(op.collective.kind), " ",
                                  ir::DTypeName(op.collective.dtype), " over ",
                                  op.collective.group.size(), " ranks")
                         : StrCat("gemm ", op.gemm.m, "x", op.gemm.n, "x", op.gemm.k, " ",
                                  ir::DTypeName(op.gemm.dtype)));
  out += Cell(collective ? HumanBytes(op.collective.bytes) : "-", true);
  out += Cell(Fixed(m.seconds * 1e6, 2), true);
  out += Cell(op.predicted_seconds ? Fixed(*op.predicted_seconds * 1e6, 2) : "-", true);
  const double error = op.predicted_seconds && *op.predicted_seconds > 0
                           ? 100.0 * (m.seconds - *op.predicted_seconds) / *op.predicted_seconds
                           : 0.0;
  out += Cell(op.predicted_seconds ? SignedPercent(error) : "-", true);
  if (collective) {
    const int n = static_cast<int>(op.collective.group.size());
    out += Cell(Fixed(executor::BusBandwidthGBps(op.collective.kind, n, op.collective.bytes, m.seconds), 2),
                true);
    out += Cell("-", true);
    out += Cell(StrCat(m.wrong), true);
  } else {
    out += Cell("-", true);
    out += Cell(m.seconds > 0 ? Fixed(executor::GemmFlops(op.gemm) / m.seconds / 1e12, 3) : "-", true);
    out += Cell("-", true);
  }
  return out + "</tr>";
}

std::string OpsTables(const ValidateViewInput& input) {
  std::string out;
  for (const RankReport& rank : input.report.ranks) {
    if (rank.ops.empty()) continue;
    const executor::RankPlan& plan = input.plan.ranks[rank.rank];
    StrAppend(&out, "<h3>rank ", rank.rank, "</h3><table>");
    out += Header({"op", "step", "what", "size", "time (us)", "predicted (us)", "error", "busbw (GB/s)",
                   "TFLOP/s", "#wrong"});
    for (const OpMeasurement& m : rank.ops) out += OpRow(plan.ops[m.index], m);
    out += "</table>";
  }
  return out;
}

}  // namespace

HtmlSection RenderValidateHtmlSection(const ValidateViewInput& input) {
  std::string body = StrCat("<p>", HtmlEscape(StrCat("Plan ", input.report.plan_path, " replayed on the ",
                                                     input.report.backend, " backend (",
                                                     input.report.ranks.size(), " ranks).")),
                            "</p>");
  body += RanksTable(input);
  body += OpsTables(input);
  return {"validate", "Predicted against measured", std::move(body)};
}

std::string RenderValidateHtml(const ValidateViewInput& input) {
  HtmlPage page;
  page.title = StrCat("memplan validate: ", input.report.plan_path);
  page.sections.push_back(RenderValidateHtmlSection(input));
  return RenderHtmlPage(page);
}

}  // namespace memplan::viz
