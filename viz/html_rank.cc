// `memplan rank --format=html`: the ranking of viz/rank_report.h as a page:
// the budget, the candidates within it fastest first (each footprint drawn
// as a bar against the budget), those over it and those not priced, each
// with its reason.
#include <algorithm>
#include <string>
#include <vector>

#include "ir/strings.h"
#include "viz/format.h"
#include "viz/html_page.h"
#include "viz/html_views.h"

namespace memplan::viz {
namespace {

using simulator::RankedCandidate;
using simulator::Ranking;

std::string SignedBytes(int64_t bytes) {
  return bytes < 0 ? "-" + HumanBytes(-bytes) : HumanBytes(bytes);
}

// The footprint as a share of the budget: a bar up to 120 px (capped, red
// past the budget), the share in its tooltip.
std::string BudgetBar(int64_t footprint, int64_t budget) {
  const double share = budget <= 0 ? 1.0 : static_cast<double>(footprint) / static_cast<double>(budget);
  const int width = static_cast<int>(std::min(1.0, share) * 120.0 + 0.5);
  return StrCat("<td><span class=\"budget\" title=\"", HtmlEscape(Percent(100.0 * share)),
                " of the budget\"><span class=\"", share > 1.0 ? "fill over" : "fill",
                "\" style=\"width:", width, "px\"></span></span></td>");
}

void AppendCandidates(std::string& out, const Ranking& r, const std::vector<RankedCandidate>& list,
                      bool ranked) {
  StrAppend(&out, "<table>\n<tr>", HtmlTh("#", true), HtmlTh("mesh"), HtmlTh("plan"),
            HtmlTh("from"), HtmlTh("footprint", true), HtmlTh("of the budget"),
            HtmlTh(ranked ? "headroom" : "over by", true), HtmlTh("step", true),
            HtmlTh("compute", true), HtmlTh("comm", true), HtmlTh("exposed", true),
            HtmlTh("moved", true), "</tr>\n");
  int64_t n = 0;
  for (const RankedCandidate& c : list) {
    const simulator::StepTime& t = c.cost.step;
    StrAppend(&out, "<tr>", HtmlTd(ranked ? StrCat(++n) : "-", "num"),
              HtmlTdElided(c.cost.prediction.mesh.ToString(), 24, "mono"),
              HtmlTdElided(c.label, 32, "mono"),
              HtmlTdElided(c.source.empty() ? c.family : c.source, 32, "mono"),
              HtmlTd(HumanBytes(c.footprint_bytes), "num"),
              BudgetBar(c.footprint_bytes, r.budget_bytes),
              HtmlTd(ranked ? SignedBytes(c.headroom_bytes) : HumanBytes(-c.headroom_bytes), "num"),
              HtmlTd(HumanSeconds(t.step_seconds), "num"),
              HtmlTd(HumanSeconds(t.compute_seconds), "num"),
              HtmlTd(HumanSeconds(t.collective_seconds), "num"),
              HtmlTd(HumanSeconds(t.exposed_seconds), "num"),
              HtmlTd(HumanBytes(static_cast<int64_t>(c.cost.bytes_moved)), "num"), "</tr>\n");
  }
  out += "</table>\n";
}

}  // namespace

HtmlSection RenderRankHtmlSection(const RankReportInput& in) {
  const Ranking& r = in.ranking;
  std::string out;
  StrAppend(&out, "<p>", GroupedBytes(static_cast<int64_t>(r.fitting.size() + r.over_budget.size() +
                                                             r.skipped.size())),
            " candidates on ", r.devices, " devices (", HtmlEscape(in.hardware), ", ", r.nodes,
            r.nodes == 1 ? " node" : " nodes", " of ", r.gpus_per_node, " GPUs), budget <b>",
            HtmlEscape(HumanBytes(r.budget_bytes)), "</b> per device, overlap ",
            HtmlEscape(simulator::OverlapModelName(in.overlap)), ".</p>\n");
  if (r.fitting.empty()) {
    StrAppend(&out, "<p class=\"bad\">", HtmlEscape(DescribeNothingFits(r)), "</p>\n");
  } else {
    const RankedCandidate& best = r.fitting.front();
    StrAppend(&out, "<p>Chosen: <b>", HtmlEscape(best.label), "</b> (mesh <code>",
              HtmlEscape(best.cost.prediction.mesh.ToString()), "</code>), step ",
              HtmlEscape(HumanSeconds(best.cost.step.step_seconds)), ", footprint ",
              HtmlEscape(HumanBytes(best.footprint_bytes)), " of ",
              HtmlEscape(HumanBytes(r.budget_bytes)), ".</p>\n");
    StrAppend(&out, "<h3>Within the budget (", r.fitting.size(), "), fastest first</h3>\n");
    AppendCandidates(out, r, r.fitting, true);
  }
  if (!r.over_budget.empty()) {
    StrAppend(&out, "<h3>Over the budget (", r.over_budget.size(),
              "), smallest footprint first: dropped</h3>\n");
    AppendCandidates(out, r, r.over_budget, false);
  }
  if (!r.skipped.empty()) {
    StrAppend(&out, "<h3>Not priced (", r.skipped.size(), "): dropped</h3>\n<table>\n<tr>",
              HtmlTh("plan"), HtmlTh("from"), HtmlTh("reason"), "</tr>\n");
    for (const simulator::SkippedCandidate& k : r.skipped) {
      StrAppend(&out, "<tr>", HtmlTdElided(k.label, 32, "mono"),
                HtmlTdElided(k.source.empty() ? k.family : k.source, 32, "mono"),
                HtmlTd(DescribeSkip(k)), "</tr>\n");
    }
    out += "</table>\n";
  }
  return {"rank", "Candidate shardings, ranked", std::move(out)};
}

std::string RenderRankHtml(const RankReportInput& in) {
  HtmlPage page;
  page.title = StrCat("memplan rank: ", in.module_name);
  page.subtitle = StrCat(in.ranking.devices, " devices, ", in.hardware, ", budget ",
                         HumanBytes(in.ranking.budget_bytes), " per device");
  page.sections.push_back(RenderRankHtmlSection(in));
  return RenderHtmlPage(page);
}

}  // namespace memplan::viz
