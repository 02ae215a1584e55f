// The prediction section of `memplan report PROGRAM --plan PLAN`: the
// numbers of `memplan predict` (viz/predict_report.h) as tables.
#include <algorithm>
#include <string>
#include <vector>

#include "ir/strings.h"
#include "viz/format.h"
#include "viz/html_page.h"
#include "viz/html_sections.h"
#include "viz/html_views.h"
#include "viz/predict_report.h"

namespace memplan::viz {
namespace {

std::string Card(std::string_view label, std::string_view big, std::string_view small) {
  return StrCat("<div class=\"card\"><div class=\"label\">", HtmlEscape(label),
                "</div><div class=\"big\">", HtmlEscape(big), "</div><div class=\"small\">",
                HtmlEscape(small), "</div></div>");
}

// "1.50 KiB" with the exact bytes in the cell's tooltip.
std::string BytesTd(int64_t bytes) {
  return StrCat("<td class=\"num\" title=\"", GroupedBytes(bytes), " bytes\">", HumanBytes(bytes),
                "</td>");
}

bool SameNumbers(const predictor::DeviceMemory& a, const predictor::DeviceMemory& b) {
  return a.argument_bytes == b.argument_bytes && a.output_bytes == b.output_bytes &&
         a.alias_bytes == b.alias_bytes && a.temp_bytes == b.temp_bytes &&
         a.device_footprint_bytes == b.device_footprint_bytes &&
         a.live_peak_bytes == b.live_peak_bytes;
}

// Devices with the same numbers side by side: (first, last) indices.
std::vector<std::pair<size_t, size_t>> Runs(const std::vector<predictor::DeviceMemory>& d) {
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < d.size(); ++i) {
    if (!runs.empty() && SameNumbers(d[runs.back().second], d[i])) {
      runs.back().second = i;
    } else {
      runs.push_back({i, i});
    }
  }
  return runs;
}

// At most this many columns of devices; the rest are summed up in a line.
constexpr size_t kDeviceColumns = 4;
constexpr size_t kUnknownRows = 50;

void AppendDeviceTable(std::string& out, const predictor::Prediction& p) {
  const auto runs = Runs(p.devices);
  const size_t shown = std::min(runs.size(), kDeviceColumns);
  StrAppend(&out, "<table>\n<tr>", HtmlTh(""), HtmlTh("one device, as compiled", true));
  for (size_t r = 0; r < shown; ++r) {
    const auto [first, last] = runs[r];
    out += HtmlTh(first == last ? StrCat("device ", p.devices[first].device)
                                : StrCat("devices ", p.devices[first].device, "\xE2\x80\x93",
                                         p.devices[last].device, " (each)"),
                  true);
    out += HtmlTh("change", true);
  }
  out += "</tr>\n";
  const analyzer::MemoryStats& u = p.unsharded;
  auto row = [&](std::string_view name, int64_t before, int64_t predictor::DeviceMemory::*field) {
    StrAppend(&out, "<tr>", HtmlTh(name), BytesTd(before));
    for (size_t r = 0; r < shown; ++r) {
      const int64_t now = p.devices[runs[r].first].*field;
      StrAppend(&out, BytesTd(now), HtmlTd(SignedPercent(ChangePercent(now, before)), "num"));
    }
    out += "</tr>\n";
  };
  row("argument", u.argument_bytes, &predictor::DeviceMemory::argument_bytes);
  row("output", u.output_bytes, &predictor::DeviceMemory::output_bytes);
  row("alias", u.alias_bytes, &predictor::DeviceMemory::alias_bytes);
  row("temp", u.temp_bytes, &predictor::DeviceMemory::temp_bytes);
  row("device footprint", u.device_footprint_bytes,
      &predictor::DeviceMemory::device_footprint_bytes);
  StrAppend(&out, "<tr>", HtmlTh("live peak"), HtmlTd("", "num"));
  for (size_t r = 0; r < shown; ++r) {
    const predictor::DeviceMemory& d = p.devices[runs[r].first];
    StrAppend(&out, BytesTd(d.live_peak_bytes),
              HtmlTd(StrCat("step ", d.live_peak_step), "num"));
  }
  out += "</tr>\n</table>\n";
  if (shown < runs.size()) {
    out += SamplingNotice(StrCat("showing ", shown, " of ", runs.size(),
                                     " groups of devices with the same numbers; the JSON of "
                                     "memplan predict lists every device"));
  }
}

void AppendCollectives(std::string& out, const predictor::Prediction& p) {
  out += "<h3>Collectives the shardings imply (per device, all-reduces combined)</h3>\n";
  if (p.collectives.empty()) {
    out += "<p class=\"muted\">None.</p>\n";
    return;
  }
  StrAppend(&out, "<table>\n<tr>", HtmlTh("kind"), HtmlTh("mesh axes"), HtmlTh("ops", true),
            HtmlTh("combined from", true), HtmlTh("bytes", true), HtmlTh("size", true),
            "</tr>\n");
  for (const predictor::CollectiveGroup& g : p.collectives) {
    StrAppend(&out, "<tr>", HtmlTd(predictor::CollectiveKindName(g.kind)),
              HtmlTdElided(AxisNames(p.mesh, g.axes), 40, "mono"),
              HtmlTd(GroupedBytes(g.count), "num"), HtmlTd(GroupedBytes(g.combined), "num"),
              HtmlTd(GroupedBytes(g.result_bytes), "num"), HtmlTd(HumanBytes(g.result_bytes), "num"),
              "</tr>\n");
  }
  out += "</table>\n";
}

// The buffers live at the peak, largest first (as the JSON keeps them).
void AppendLiveAtPeak(std::string& out, const PredictReportInput& in) {
  const predictor::Prediction& p = in.prediction;
  if (p.live_at_peak == nullptr || p.devices.empty()) return;
  const predictor::PeakContents& c = *p.live_at_peak;
  const predictor::DeviceMemory& d = p.devices.front();
  StrAppend(&out, "<h3>Live at the peak (step ", d.live_peak_step);
  if (d.live_peak_instruction.valid()) {
    StrAppend(&out, ", <code>", HtmlEscape(in.module.instruction(d.live_peak_instruction).name),
              "</code>");
  }
  StrAppend(&out, ", ", HtmlEscape(HumanBytes(d.live_peak_bytes)), " per device)</h3>\n");
  StrAppend(&out, "<p>Arguments ", HtmlEscape(HumanBytes(d.argument_bytes)),
            " (live throughout), then the largest buffers:</p>\n");
  StrAppend(&out, "<table>\n<tr>", HtmlTh("bytes", true), HtmlTh("buffer"), HtmlTh("shape"),
            HtmlTh("sharding"), HtmlTh("held in"), HtmlTh("steps", true), "</tr>\n");
  for (const predictor::PeakBuffer& b : c.largest) {
    const PeakBufferText t = DescribePeakBuffer(in.module, p, b);
    StrAppend(&out, "<tr>", BytesTd(b.bytes), HtmlTdElided(t.name, 60, "mono"),
              HtmlTdElided(t.shape, 40, "mono"), HtmlTdElided(t.sharding, 40, "mono"),
              HtmlTdElided(t.held, 60), HtmlTd(StrCat(b.start, "\xE2\x80\x93", b.end), "num"),
              "</tr>\n");
  }
  if (c.other_count > 0) {
    StrAppend(&out, "<tr>", BytesTd(c.other_bytes),
              HtmlTd(StrCat(GroupedBytes(c.other_count), " more buffers")), HtmlTd(""), HtmlTd(""),
              HtmlTd(""), HtmlTd(""), "</tr>\n");
  }
  out += "</table>\n";
}

void AppendReplicated(std::string& out, const PredictReportInput& in) {
  const predictor::Prediction& p = in.prediction;
  out += "<h3>Replicated by default</h3>\n";
  StrAppend(&out, "<p>", GroupedBytes(p.unmatched_arguments),
            p.unmatched_arguments == 1 ? " argument" : " arguments",
            " the plan names no sharding for (replicated); ",
            GroupedBytes(static_cast<int64_t>(p.unknown.size())),
            p.unknown.size() == 1 ? " place" : " places",
            " no propagation rule covers (replicated there).</p>\n");
  if (p.unknown.empty()) return;
  const size_t shown = std::min(p.unknown.size(), kUnknownRows);
  if (shown < p.unknown.size()) {
    out += SamplingNotice(StrCat("showing the first ", shown, " of ", p.unknown.size()));
  }
  StrAppend(&out, "<table>\n<tr>", HtmlTh("instruction"), HtmlTh("opcode"),
            HtmlTh("sharded operands"), "</tr>\n");
  for (size_t k = 0; k < shown; ++k) {
    const ir::Instruction& i = in.module.instruction(p.unknown[k].instruction);
    StrAppend(&out, "<tr>", HtmlTdElided(i.name, 60, "mono"), HtmlTdElided(i.opcode_text, 30),
              HtmlTd(p.unknown[k].had_sharded_operand ? "all-gathered" : "none"), "</tr>\n");
  }
  out += "</table>\n";
}

}  // namespace

std::string RenderPredictionHtmlBody(const PredictReportInput& in) {
  const predictor::Prediction& p = in.prediction;
  std::string out;
  StrAppend(&out, "<p>Predicted from the single-device compile under <b>",
            HtmlEscape(p.label.empty() ? std::string("the plan") : p.label), "</b>: mesh <code>",
            HtmlEscape(p.mesh.ToString()), "</code>, ", p.devices.size(),
            p.devices.size() == 1 ? " device" : " devices", ".</p>\n");
  const int64_t before = p.unsharded.device_footprint_bytes;
  int64_t ops = 0;
  for (const predictor::CollectiveGroup& g : p.collectives) ops += g.count;
  out += "<div class=\"cards\">";
  out += Card("max device footprint", HumanBytes(p.max_device_footprint_bytes),
              StrCat(SignedPercent(ChangePercent(p.max_device_footprint_bytes, before)),
                     " against one device (", HumanBytes(before), ")"));
  out += Card("collectives", GroupedBytes(ops), StrCat(p.collectives.size(), " kinds by mesh axes"));
  out += Card("replicated by default",
              GroupedBytes(p.unmatched_arguments + static_cast<int64_t>(p.unknown.size())),
              StrCat(p.unmatched_arguments, " arguments, ", p.unknown.size(), " places"));
  out += "</div>\n";
  AppendDeviceTable(out, p);
  AppendLiveAtPeak(out, in);
  AppendCollectives(out, p);
  AppendReplicated(out, in);
  return out;
}

std::string RenderPredictionSection(const ReportContext& context) {
  if (context.prediction == nullptr) return "";
  return RenderPredictionHtmlBody(
      {context.program.module, context.program.module_name, *context.prediction});
}

}  // namespace memplan::viz
