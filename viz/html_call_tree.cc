// `memplan calltree --format=html`: the call tree's summary as a page:
// calls per function and per file, the deepest call paths, repeated
// subtrees and, from a trace with PyTorch memory events, each device's
// memory timeline with its peak and the call stacks live there. The numbers
// are those of the text view (viz/call_tree_text.cc), from the same
// analyzer results.
#include <algorithm>
#include <string>
#include <vector>

#include "ir/strings.h"
#include "viz/format.h"
#include "viz/html_page.h"
#include "viz/html_sections.h"
#include "viz/html_views.h"
#include "viz/svg.h"

namespace memplan::viz {
namespace {

using analyzer::CallingContext;
using analyzer::ContextId;

size_t Shown(size_t available, int top) {
  return top <= 0 ? available : std::min(available, static_cast<size_t>(top));
}

bool Timed(const ir::CallTree& tree) { return tree.format == ir::CallTree::Format::kChromeTrace; }

std::string Frame(const CallTreeReportInput& in, ContextId id) {
  const CallingContext& c = in.summary.contexts[static_cast<size_t>(id)];
  if (c.kind == ir::CallNodeKind::kTrack) return TrackLabel(in.tree.track(c.track));
  return FunctionLabel(in.tree.function(c.function));
}

// The frames of a context, outermost first.
std::vector<ContextId> Path(const analyzer::CallTreeSummary& s, ContextId id) {
  std::vector<ContextId> path;
  for (ContextId at = id; at > 0; at = s.contexts[static_cast<size_t>(at)].parent) path.push_back(at);
  std::reverse(path.begin(), path.end());
  return path;
}

std::string Stack(const CallTreeReportInput& in, ContextId id) {
  std::string out = "<ol class=\"stack\">";
  for (ContextId at : Path(in.summary, id)) {
    StrAppend(&out, "<li>", ElidedHtml(Frame(in, at), 120), "</li>");
  }
  return out + "</ol>\n";
}

std::string Heading(std::string_view what, size_t shown, size_t total) {
  return StrCat("<h3>", HtmlEscape(what), " (",
                shown == total ? GroupedBytes(static_cast<int64_t>(total))
                               : StrCat("top ", shown, " of ", GroupedBytes(static_cast<int64_t>(total))),
                ")</h3>\n");
}

void AppendFunctions(std::string& out, const CallTreeReportInput& in) {
  const auto& rows = in.summary.by_function;
  const size_t shown = Shown(rows.size(), in.top);
  const bool timed = Timed(in.tree);
  out += Heading("Calls per function", shown, rows.size());
  StrAppend(&out, "<table>\n<tr>", HtmlTh("calls", true), HtmlTh("callers", true),
            HtmlTh("callees", true), HtmlTh("depth", true));
  if (timed) StrAppend(&out, HtmlTh("total", true), HtmlTh("self", true));
  StrAppend(&out, HtmlTh("function"), "</tr>\n");
  for (size_t i = 0; i < shown; ++i) {
    const analyzer::FunctionCalls& f = rows[i];
    StrAppend(&out, "<tr>", HtmlTd(GroupedBytes(f.calls), "num"),
              HtmlTd(GroupedBytes(f.callers), "num"), HtmlTd(GroupedBytes(f.callees), "num"),
              HtmlTd(f.min_depth == f.max_depth ? StrCat(f.min_depth)
                                                : StrCat(f.min_depth, "\xE2\x80\x93", f.max_depth),
                     "num"));
    if (timed) StrAppend(&out, HtmlTd(Duration(f.total_ns), "num"), HtmlTd(Duration(f.self_ns), "num"));
    StrAppend(&out, HtmlTdElided(FunctionLabel(in.tree.function(f.function)), 100, "mono"),
              "</tr>\n");
  }
  out += "</table>\n";
}

void AppendFiles(std::string& out, const CallTreeReportInput& in) {
  const auto& rows = in.summary.by_file;
  const size_t shown = Shown(rows.size(), in.top);
  const bool timed = Timed(in.tree);
  out += Heading("Calls per file", shown, rows.size());
  StrAppend(&out, "<table>\n<tr>", HtmlTh("calls", true), HtmlTh("functions", true));
  if (timed) out += HtmlTh("self", true);
  StrAppend(&out, HtmlTh("file"), "</tr>\n");
  for (size_t i = 0; i < shown; ++i) {
    StrAppend(&out, "<tr>", HtmlTd(GroupedBytes(rows[i].calls), "num"),
              HtmlTd(GroupedBytes(rows[i].functions), "num"));
    if (timed) out += HtmlTd(Duration(rows[i].self_ns), "num");
    StrAppend(&out, HtmlTdElided(rows[i].file.empty() ? "(no file)" : rows[i].file, 100, "mono"),
              "</tr>\n");
  }
  out += "</table>\n";
}

void AppendDeepest(std::string& out, const CallTreeReportInput& in) {
  const auto& deepest = in.summary.deepest;
  const size_t shown = Shown(deepest.size(), std::min(in.top <= 0 ? 0 : in.top, 5));
  out += Heading("Deepest call paths", shown, deepest.size());
  for (size_t i = 0; i < shown; ++i) {
    const CallingContext& c = in.summary.contexts[static_cast<size_t>(deepest[i])];
    StrAppend(&out, "<details", i == 0 ? " open" : "", "><summary>depth ", c.depth, ", ",
              GroupedBytes(c.calls), c.calls == 1 ? " call" : " calls", ": ",
              ElidedHtml(Frame(in, c.id), 80), "</summary>\n", Stack(in, c.id), "</details>\n");
  }
}

void AppendRepeated(std::string& out, const CallTreeReportInput& in) {
  const auto& rows = in.summary.repeated;
  const size_t shown = Shown(rows.size(), in.top);
  out += Heading("Repeated subtrees", shown, rows.size());
  if (rows.empty()) {
    out += "<p class=\"muted\">None: no subtree of two or more calls occurs twice.</p>\n";
    return;
  }
  StrAppend(&out, "<table>\n<tr>", HtmlTh("times", true), HtmlTh("side by side", true),
            HtmlTh("calls each", true), HtmlTh("subtree root"), HtmlTh("first at"), "</tr>\n");
  for (size_t i = 0; i < shown; ++i) {
    const analyzer::RepeatedSubtree& r = rows[i];
    const ir::CallNode& node = in.tree.node(r.first);
    StrAppend(&out, "<tr>", HtmlTd(GroupedBytes(r.occurrences), "num"),
              HtmlTd(GroupedBytes(r.longest_run), "num"), HtmlTd(GroupedBytes(r.nodes), "num"),
              HtmlTdElided(FunctionLabel(in.tree.function(node.function)), 90, "mono"),
              HtmlTd(node.input_line > 0 ? StrCat("line ", node.input_line)
                                         : StrCat("node ", node.id.value())),
              "</tr>\n");
  }
  out += "</table>\n";
}

constexpr double kWidth = 1180, kHeight = 260;
constexpr double kLeft = 84, kRight = 1140, kTop = 36, kBottom = 222;
constexpr size_t kColumns = 1200;

// Allocated bytes over time, as a step line; at most kColumns columns, each
// the most allocated within it (so the peak survives).
std::string MemorySvg(const CallTreeReportInput& in, const analyzer::DeviceMemory& d) {
  const auto& points = d.timeline;
  if (points.empty()) return "";
  const int64_t t0 = in.summary.start_ns;
  const int64_t span = std::max<int64_t>(1, in.summary.end_ns - t0);
  int64_t y_max = d.peak_allocated;
  for (const auto& p : points) y_max = std::max({y_max, p.allocated, p.reserved});
  y_max = std::max<int64_t>(1, static_cast<int64_t>(y_max * 1.06));
  auto x_of = [&](int64_t ts) {
    return kLeft + static_cast<double>(ts - t0) / static_cast<double>(span) * (kRight - kLeft);
  };
  auto y_of = [&](int64_t bytes) {
    return kBottom - static_cast<double>(bytes) / static_cast<double>(y_max) * (kBottom - kTop);
  };
  const size_t group = (points.size() + kColumns - 1) / kColumns;
  std::string path = StrCat("M", SvgNumber(kLeft), " ", SvgNumber(y_of(0)));
  for (size_t k = 0; k < points.size(); k += group) {
    int64_t most = points[k].allocated;
    for (size_t j = k; j < std::min(points.size(), k + group); ++j) {
      most = std::max(most, points[j].allocated);
    }
    StrAppend(&path, "H", SvgNumber(x_of(points[k].ts_ns)), "V", SvgNumber(y_of(most)));
  }
  StrAppend(&path, "H", SvgNumber(kRight));
  std::string out;
  StrAppend(&out, "<svg class=\"memory\" viewBox=\"0 0 ", SvgNumber(kWidth), " ", SvgNumber(kHeight),
            "\" width=\"", SvgNumber(kWidth), "\" height=\"", SvgNumber(kHeight),
            "\" role=\"img\" aria-label=\"memory timeline\">\n");
  for (int64_t tick : NiceByteTicks(y_max, 4)) {
    const double y = y_of(tick);
    AppendSvgLine(out, kLeft, y, kRight, y, "grid");
    AppendSvgText(out, kLeft - 6, y + 4, AxisBytes(tick), "end");
  }
  for (int64_t tick : NiceTicks(span, 8)) {
    const double x = x_of(t0 + tick);
    AppendSvgLine(out, x, kBottom, x, kBottom + 4, "axis");
    AppendSvgText(out, x, kBottom + 18, Duration(tick), "middle");
  }
  AppendSvgText(out, (kLeft + kRight) / 2, kHeight - 4, "time from the trace's start", "middle");
  StrAppend(&out, "\n<path class=\"allocated\" d=\"", path, "\"/>\n");
  const ir::MemoryEvent& peak = in.tree.memory_events[d.peak_event];
  const double px = x_of(peak.ts_ns);
  AppendSvgLine(out, px, kTop - 8, px, kBottom, "peak");
  AppendPlacedLabels(out,
                     {{px, StrCat("peak ", HumanBytes(d.peak_allocated), " at ",
                                  Duration(peak.ts_ns - t0)),
                       "peaklabel"}},
                     {kTop - 14}, 4, kWidth - 4);
  AppendSvgLine(out, kLeft, kBottom, kRight, kBottom, "axis");
  AppendSvgLine(out, kLeft, kTop, kLeft, kBottom, "axis");
  out += "\n</svg>\n";
  return out;
}

void AppendMemory(std::string& out, const CallTreeReportInput& in) {
  if (in.memory.devices.empty() && in.memory.out_of_memory_events == 0) return;
  out += "<h3>Memory (PyTorch [memory] events)</h3>\n";
  if (in.memory.out_of_memory_events > 0) {
    StrAppend(&out, "<p class=\"bad\">", in.memory.out_of_memory_events,
              " out-of-memory events.</p>\n");
  }
  for (const analyzer::DeviceMemory& d : in.memory.devices) {
    const ir::MemoryEvent& peak = in.tree.memory_events[d.peak_event];
    StrAppend(&out, "<h3>", HtmlEscape(DeviceTypeName(d.device_type)),
              d.device_id >= 0 ? StrCat(" ", d.device_id) : "", ": peak ",
              HtmlEscape(HumanBytes(d.peak_allocated)), "</h3>\n");
    StrAppend(&out, "<p>", GroupedBytes(d.events), " events: ", GroupedBytes(d.allocations),
              " allocations (", HtmlEscape(HumanBytes(d.allocated_bytes)), "), ",
              GroupedBytes(d.frees), " frees (", HtmlEscape(HumanBytes(d.freed_bytes)), "). Peak ",
              d.allocator_totals ? "allocated" : "allocated since the trace began", ": ",
              GroupedBytes(d.peak_allocated), " bytes at ",
              HtmlEscape(Duration(peak.ts_ns - in.summary.start_ns)));
    if (d.peak_reserved >= 0) {
      StrAppend(&out, "; reserved up to ", HtmlEscape(HumanBytes(d.peak_reserved)));
    }
    out += ".</p>\n";
    out += MemorySvg(in, d);
    const ContextId context =
        peak.enclosing.valid() ? in.summary.context_of[static_cast<size_t>(peak.enclosing.value())] : 0;
    StrAppend(&out, "<p>The allocation that reached the peak: ", HtmlEscape(HumanBytes(peak.bytes)),
              ", call stack:</p>\n", Stack(in, context));
    const size_t shown = Shown(d.live_at_peak.size(), in.top);
    if (shown == 0) continue;
    StrAppend(&out, "<p>Live at the peak: ", HtmlEscape(HumanBytes(d.live_traced_bytes)),
              " allocated during the trace");
    if (d.allocator_totals) {
      StrAppend(&out, ", ", HtmlEscape(HumanBytes(d.live_untraced_bytes)), " before it began");
    }
    StrAppend(&out, ".</p>\n<table>\n<tr>", HtmlTh("bytes", true), HtmlTh("size", true),
              HtmlTh("blocks", true), HtmlTh("allocated in (innermost frame)"), "</tr>\n");
    for (size_t i = 0; i < shown; ++i) {
      const analyzer::LiveAtPeak& site = d.live_at_peak[i];
      StrAppend(&out, "<tr>", HtmlTd(GroupedBytes(site.bytes), "num"),
                HtmlTd(HumanBytes(site.bytes), "num"), HtmlTd(GroupedBytes(site.blocks), "num"),
                HtmlTdElided(site.context == 0 ? std::string("(no slice)") : Frame(in, site.context),
                             100, "mono"),
                "</tr>\n");
    }
    out += "</table>\n";
  }
}

}  // namespace

HtmlSection RenderCallTreeHtmlSection(const CallTreeReportInput& in) {
  const ir::CallTree& tree = in.tree;
  const analyzer::CallTreeSummary& s = in.summary;
  std::string out = "<div class=\"cards\">";
  auto card = [&](std::string_view label, std::string_view big) {
    StrAppend(&out, "<div class=\"card\"><div class=\"label\">", HtmlEscape(label),
              "</div><div class=\"big\">", HtmlEscape(big), "</div></div>");
  };
  card("calls", GroupedBytes(s.calls));
  card("functions", GroupedBytes(s.functions));
  card("files", GroupedBytes(s.files));
  card("deepest call", StrCat("depth ", s.max_depth));
  if (Timed(tree)) card("time", Duration(s.end_ns - s.start_ns));
  out += "</div>\n";
  AppendMemory(out, in);
  AppendFunctions(out, in);
  AppendFiles(out, in);
  AppendDeepest(out, in);
  AppendRepeated(out, in);
  if (tree.diagnostics.total() > 0) {
    StrAppend(&out, "<h3>Input notes (", tree.diagnostics.total(), ")</h3>\n<table>\n<tr>",
              HtmlTh("count", true), HtmlTh("kind"), HtmlTh("first at"), "</tr>\n");
    for (const ir::Warning& w : tree.diagnostics.warnings()) {
      StrAppend(&out, "<tr>", HtmlTd(GroupedBytes(w.count), "num"), HtmlTd(w.kind),
                HtmlTdElided(w.first_location, 80, "mono"), "</tr>\n");
    }
    out += "</table>\n";
  }
  return {"calltree", "Call tree", std::move(out)};
}

std::string RenderCallTreeHtml(const CallTreeReportInput& in, std::string_view title) {
  HtmlPage page;
  page.title = StrCat("memplan calltree: ", title);
  page.subtitle = Timed(in.tree) ? "Chrome trace" : "text call tree";
  page.sections.push_back(RenderCallTreeHtmlSection(in));
  return RenderHtmlPage(page);
}

}  // namespace memplan::viz
