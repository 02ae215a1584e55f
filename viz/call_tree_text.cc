#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "ir/strings.h"
#include "viz/call_tree_peak.h"
#include "viz/call_tree_report.h"
#include "viz/format.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

using analyzer::CallingContext;
using analyzer::ContextId;
using Align = TextTable::Align;

size_t Shown(size_t available, int top) {
  return top <= 0 ? available : std::min(available, static_cast<size_t>(top));
}

std::string OfTotal(size_t shown, size_t total) {
  if (shown == total) return StrCat("(", total, ")");
  return StrCat("(top ", shown, " of ", GroupedBytes(static_cast<int64_t>(total)), ")");
}

bool Timed(const ir::CallTree& tree) { return tree.format == ir::CallTree::Format::kChromeTrace; }

std::string ContextFrame(const ir::CallTree& tree, const CallingContext& c) {
  if (c.kind == ir::CallNodeKind::kTrack) return TrackLabel(tree.track(c.track));
  return FunctionLabel(tree.function(c.function));
}

// The frames of a context, outermost first.
std::vector<ContextId> ContextPath(const analyzer::CallTreeSummary& s, ContextId id) {
  std::vector<ContextId> path;
  for (ContextId at = id; at > 0; at = s.contexts[static_cast<size_t>(at)].parent) path.push_back(at);
  std::reverse(path.begin(), path.end());
  return path;
}

void AppendStack(const CallTreeReportInput& in, const std::vector<ContextId>& path,
                 const std::string& indent, std::string* out) {
  for (size_t i = 0; i < path.size(); ++i) {
    StrAppend(out, indent, i == 0 ? "" : "> ",
              ContextFrame(in.tree, in.summary.contexts[static_cast<size_t>(path[i])]), "\n");
  }
}

void AppendFunctions(const CallTreeReportInput& in, std::string* out) {
  const auto& rows = in.summary.by_function;
  const size_t shown = Shown(rows.size(), in.top);
  StrAppend(out, "\nCalls per function ", OfTotal(shown, rows.size()), "\n");
  const bool timed = Timed(in.tree);
  std::vector<TextTable::Column> columns = {{"calls", Align::kRight},
                                            {"callers", Align::kRight},
                                            {"callees", Align::kRight},
                                            {"depth", Align::kRight}};
  if (timed) {
    columns.push_back({"total", Align::kRight});
    columns.push_back({"self", Align::kRight});
  }
  columns.push_back({"function", Align::kLeft});
  TextTable table(columns);
  for (size_t i = 0; i < shown; ++i) {
    const analyzer::FunctionCalls& f = rows[i];
    std::vector<std::string> cells = {
        GroupedBytes(f.calls), GroupedBytes(f.callers), GroupedBytes(f.callees),
        f.min_depth == f.max_depth ? StrCat(f.min_depth) : StrCat(f.min_depth, "-", f.max_depth)};
    if (timed) {
      cells.push_back(Duration(f.total_ns));
      cells.push_back(Duration(f.self_ns));
    }
    cells.push_back(FunctionLabel(in.tree.function(f.function)));
    table.AddRow(std::move(cells));
  }
  *out += table.Render();
}

void AppendFiles(const CallTreeReportInput& in, std::string* out) {
  const auto& rows = in.summary.by_file;
  const size_t shown = Shown(rows.size(), in.top);
  StrAppend(out, "\nCalls per file ", OfTotal(shown, rows.size()), "\n");
  const bool timed = Timed(in.tree);
  std::vector<TextTable::Column> columns = {{"calls", Align::kRight}, {"functions", Align::kRight}};
  if (timed) columns.push_back({"self", Align::kRight});
  columns.push_back({"file", Align::kLeft});
  TextTable table(columns);
  for (size_t i = 0; i < shown; ++i) {
    std::vector<std::string> cells = {GroupedBytes(rows[i].calls), GroupedBytes(rows[i].functions)};
    if (timed) cells.push_back(Duration(rows[i].self_ns));
    cells.push_back(rows[i].file.empty() ? "(no file)" : rows[i].file);
    table.AddRow(std::move(cells));
  }
  *out += table.Render();
}

void AppendDeepest(const CallTreeReportInput& in, std::string* out) {
  const auto& deepest = in.summary.deepest;
  const size_t shown = Shown(deepest.size(), std::min(in.top <= 0 ? 0 : in.top, 5));
  StrAppend(out, "\nDeepest call paths ", OfTotal(shown, deepest.size()), "\n");
  for (size_t i = 0; i < shown; ++i) {
    const CallingContext& c = in.summary.contexts[static_cast<size_t>(deepest[i])];
    StrAppend(out, "  depth ", c.depth, ", ", GroupedBytes(c.calls), c.calls == 1 ? " call" : " calls",
              ":\n");
    AppendStack(in, ContextPath(in.summary, c.id), "    ", out);
  }
}

void AppendRepeated(const CallTreeReportInput& in, std::string* out) {
  const auto& rows = in.summary.repeated;
  const size_t shown = Shown(rows.size(), in.top);
  StrAppend(out, "\nRepeated subtrees ", OfTotal(shown, rows.size()), "\n");
  if (rows.empty()) {
    *out += "  (none: no subtree of two or more calls occurs twice)\n";
    return;
  }
  TextTable table({{"times", Align::kRight},
                   {"side by side", Align::kRight},
                   {"calls each", Align::kRight},
                   {"subtree root", Align::kLeft},
                   {"first at", Align::kLeft}});
  for (size_t i = 0; i < shown; ++i) {
    const analyzer::RepeatedSubtree& r = rows[i];
    const ir::CallNode& node = in.tree.node(r.first);
    const std::string where = node.input_line > 0 ? StrCat("line ", node.input_line)
                                                  : StrCat("node ", node.id.value());
    table.AddRow({GroupedBytes(r.occurrences), GroupedBytes(r.longest_run), GroupedBytes(r.nodes),
                  FunctionLabel(in.tree.function(node.function)), where});
  }
  *out += table.Render();
}

// The tree with runs of identical sibling subtrees shown once, "N x".
void AppendCollapsed(const CallTreeReportInput& in, std::string* out) {
  const ir::CallTree& tree = in.tree;
  const size_t budget = in.top <= 0 ? SIZE_MAX : static_cast<size_t>(in.top) * 20;
  size_t visible = 0;
  for (const ir::CallNode& n : tree.nodes) {
    if (n.kind != ir::CallNodeKind::kRoot && in.summary.run[static_cast<size_t>(n.id.value())] > 0) {
      ++visible;
    }
  }
  StrAppend(out, "\nCollapsed tree (identical sibling subtrees once, with their count; ",
            GroupedBytes(static_cast<int64_t>(visible)), " of ", GroupedBytes(tree.CallCount()),
            " lines)\n");
  size_t printed = 0;
  // Iterative preorder over shown nodes, with each level's "last child" flag.
  struct Frame {
    ir::CallNodeId node;
    std::string prefix;
  };
  std::vector<Frame> stack;
  auto push_children = [&](const ir::CallNode& n, const std::string& prefix) {
    std::vector<ir::CallNodeId> shown;
    for (ir::CallNodeId c : n.children) {
      if (in.summary.run[static_cast<size_t>(c.value())] > 0) shown.push_back(c);
    }
    for (size_t k = shown.size(); k-- > 0;) {
      const bool last = k + 1 == shown.size();
      stack.push_back({shown[k], prefix + (last ? "L" : "T")});
    }
  };
  push_children(tree.node(tree.root()), "");
  while (!stack.empty()) {
    Frame f = std::move(stack.back());
    stack.pop_back();
    if (printed == budget) {
      StrAppend(out, "  ... ", GroupedBytes(static_cast<int64_t>(visible - printed)),
                " more lines (no row limit shows them all)\n");
      return;
    }
    // Prefix letters: T = a child with siblings below, L = the last child.
    std::string line = "  ";
    for (size_t i = 0; i + 1 < f.prefix.size(); ++i) line += f.prefix[i] == 'T' ? "\u2502   " : "    ";
    line += f.prefix.back() == 'T' ? "\u251c\u2500\u2500 " : "\u2514\u2500\u2500 ";
    const ir::CallNode& n = tree.node(f.node);
    const int64_t run = in.summary.run[static_cast<size_t>(n.id.value())];
    if (run > 1) StrAppend(&line, GroupedBytes(run), " \u00d7 ");
    if (n.kind == ir::CallNodeKind::kTrack) {
      line += TrackLabel(tree.track(n.track));
    } else {
      const ir::Function& fn = tree.function(n.function);
      line += fn.name;
      if (!fn.file.empty()) StrAppend(&line, ", ", fn.file, fn.line > 0 ? StrCat(":", fn.line) : "");
      if (n.duration_ns >= 0) StrAppend(&line, "  [", Duration(n.duration_ns), "]");
    }
    StrAppend(out, line, "\n");
    ++printed;
    // Children of a track/slice prefix continue the "│" of open levels.
    std::string child_prefix = f.prefix;
    push_children(n, child_prefix);
  }
}

// A device's event counts, its peak and the call stack of the allocation
// that reached it, and what was live there.
void AppendDevicePeak(const CallTreeReportInput& in, const analyzer::DeviceMemory& d,
                      std::string* out) {
  StrAppend(out, "  ", DeviceTypeName(d.device_type), d.device_id >= 0 ? StrCat(" ", d.device_id) : "",
            ": ", GroupedBytes(d.events), " events: ", GroupedBytes(d.allocations), " allocations (",
            HumanBytes(d.allocated_bytes), "), ", GroupedBytes(d.frees), " frees (",
            HumanBytes(d.freed_bytes), ")\n");
  const ir::MemoryEvent& peak = in.tree.memory_events[d.peak_event];
  StrAppend(out, "    peak ", d.allocator_totals ? "allocated" : "allocated since the trace began",
            ": ", HumanBytes(d.peak_allocated), " (", GroupedBytes(d.peak_allocated), " B) at ",
            Duration(peak.ts_ns - in.summary.start_ns));
  if (d.peak_reserved >= 0) StrAppend(out, "; reserved up to ", HumanBytes(d.peak_reserved));
  StrAppend(out, "\n    the allocation that reached it: ", HumanBytes(peak.bytes), " (",
            GroupedBytes(peak.bytes), " B), call stack:\n");
  const analyzer::ContextId context =
      peak.enclosing.valid() ? in.summary.context_of[static_cast<size_t>(peak.enclosing.value())] : 0;
  AppendStack(in, ContextPath(in.summary, context), "      ", out);
  StrAppend(out, "    live at the peak: ", HumanBytes(d.live_traced_bytes),
            " allocated during the trace");
  if (d.allocator_totals) {
    StrAppend(out, ", ", HumanBytes(d.live_untraced_bytes), " allocated before it began");
  }
  *out += "\n";
}

// The innermost three frames of a calling context, innermost first.
std::string InnermostFrames(const CallTreeReportInput& in, ContextId context) {
  std::string where;
  int frames = 0;
  for (ContextId at = context; at > 0 && frames < 3;
       at = in.summary.contexts[static_cast<size_t>(at)].parent, ++frames) {
    if (frames > 0) where += " < ";
    where += ContextFrame(in.tree, in.summary.contexts[static_cast<size_t>(at)]);
  }
  return where;
}

// The largest allocation sites live at a device's peak.
void AppendLiveAtPeak(const CallTreeReportInput& in, const analyzer::DeviceMemory& d,
                      std::string* out) {
  const size_t shown = Shown(d.live_at_peak.size(), in.top);
  if (shown == 0) return;
  TextTable table({{"bytes", Align::kRight}, {"blocks", Align::kRight}, {"allocated in", Align::kLeft}});
  for (size_t i = 0; i < shown; ++i) {
    const analyzer::LiveAtPeak& site = d.live_at_peak[i];
    table.AddRow({GroupedBytes(site.bytes), GroupedBytes(site.blocks),
                  site.context == 0 ? "(no slice)" : InnermostFrames(in, site.context)});
  }
  *out += table.Render("      ");
}

// A device's allocated/reserved timeline, sampled evenly, with the peak.
void AppendMemoryTimeline(const CallTreeReportInput& in, const analyzer::DeviceMemory& d,
                          std::string* out) {
  const size_t points = d.timeline.size();
  const size_t rows = in.top <= 0 ? points : std::min(points, static_cast<size_t>(in.top));
  StrAppend(out, "    timeline (", rows == points ? "every event" : StrCat(rows, " of ", points, " events"),
            ", times from the trace's start)\n");
  std::vector<size_t> picks;
  for (size_t k = 0; k < rows; ++k) picks.push_back(rows <= 1 ? 0 : k * (points - 1) / (rows - 1));
  size_t peak_index = 0;
  for (size_t k = 0; k < points; ++k) {
    if (d.timeline[k].allocated == d.peak_allocated) {
      peak_index = k;
      break;
    }
  }
  picks.push_back(peak_index);
  std::sort(picks.begin(), picks.end());
  picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
  TextTable table({{"time", Align::kRight}, {"allocated", Align::kRight}, {"reserved", Align::kRight},
                   {"", Align::kLeft}});
  for (size_t k : picks) {
    const auto& p = d.timeline[k];
    table.AddRow({Duration(p.ts_ns - in.summary.start_ns), HumanBytes(p.allocated),
                  p.reserved >= 0 ? HumanBytes(p.reserved) : "-", k == peak_index ? "peak" : ""});
  }
  *out += table.Render("      ");
}

void AppendMemory(const CallTreeReportInput& in, std::string* out) {
  if (in.memory.devices.empty() && in.memory.out_of_memory_events == 0) return;
  StrAppend(out, "\nMemory (PyTorch [memory] events)\n");
  if (in.memory.out_of_memory_events > 0) {
    StrAppend(out, "  out-of-memory events: ", in.memory.out_of_memory_events, "\n");
  }
  for (const analyzer::DeviceMemory& d : in.memory.devices) {
    AppendDevicePeak(in, d, out);
    AppendLiveAtPeak(in, d, out);
    AppendMemoryTimeline(in, d, out);
  }
}

}  // namespace

std::string RenderCallTreeText(const CallTreeReportInput& in) {
  const ir::CallTree& tree = in.tree;
  const analyzer::CallTreeSummary& s = in.summary;
  std::string out = StrCat("memplan calltree: ", tree.source_name, " (",
                           Timed(tree) ? "Chrome trace" : "text call tree", ")\n");
  StrAppend(&out, "  ", GroupedBytes(s.calls), " calls of ", GroupedBytes(s.functions), " functions in ",
            GroupedBytes(s.files), " files; deepest call at depth ", s.max_depth, "\n");
  if (Timed(tree)) {
    StrAppend(&out, "  ", tree.tracks.size(), " threads over ", Duration(s.end_ns - s.start_ns), "; ",
              GroupedBytes(static_cast<int64_t>(tree.memory_events.size())), " memory events, ",
              tree.counters.size(), " counter series\n");
  }
  AppendFunctions(in, &out);
  AppendFiles(in, &out);
  AppendDeepest(in, &out);
  AppendRepeated(in, &out);
  AppendMemory(in, &out);
  AppendCollapsed(in, &out);
  if (in.program_peak != nullptr) out += RenderCallTreePeakText(*in.program_peak);
  if (tree.diagnostics.total() > 0) {
    StrAppend(&out, "\nInput notes (", tree.diagnostics.total(), ")\n");
    for (const ir::Warning& w : tree.diagnostics.warnings()) {
      StrAppend(&out, "  ", GroupedBytes(w.count), " x ", w.kind, " (first at ", w.first_location, ")\n");
    }
  }
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

std::string FunctionLabel(const ir::Function& function) {
  if (function.file.empty()) return function.name;
  if (function.line <= 0) return StrCat(function.name, " (", function.file, ")");
  return StrCat(function.name, " (", function.file, ":", function.line, ")");
}

std::string TrackLabel(const ir::Track& track) {
  std::string out = StrCat("pid ", track.pid);
  if (!track.process_name.empty()) StrAppend(&out, " (", track.process_name, ")");
  StrAppend(&out, " tid ", track.tid);
  if (!track.thread_name.empty()) StrAppend(&out, " (", track.thread_name, ")");
  return out;
}

std::string DeviceTypeName(int32_t device_type) {
  // c10::DeviceType, c10/core/DeviceType.h.
  switch (device_type) {
    case 0: return "CPU";
    case 1: return "CUDA";
    case 2: return "MKLDNN";
    case 3: return "OPENGL";
    case 4: return "OPENCL";
    case 5: return "IDEEP";
    case 6: return "HIP";
    case 7: return "FPGA";
    case 8: return "MAIA";
    case 9: return "XLA";
    case 10: return "Vulkan";
    case 11: return "Metal";
    case 12: return "XPU";
    case 13: return "MPS";
    case 14: return "Meta";
    case 15: return "HPU";
    case 16: return "VE";
    case 17: return "Lazy";
    case 18: return "IPU";
    case 19: return "MTIA";
    case 20: return "PrivateUse1";
    default: return StrCat("device type ", device_type);
  }
}

std::string Duration(int64_t ns) {
  if (ns < 0) return "-";
  char buffer[48];
  if (ns < 1000) {
    std::snprintf(buffer, sizeof(buffer), "%lld ns", static_cast<long long>(ns));
  } else if (ns < 1000000) {
    std::snprintf(buffer, sizeof(buffer), "%lld.%03lld us", static_cast<long long>(ns / 1000),
                  static_cast<long long>(ns % 1000));
  } else if (ns < 1000000000) {
    std::snprintf(buffer, sizeof(buffer), "%lld.%03lld ms", static_cast<long long>(ns / 1000000),
                  static_cast<long long>(ns / 1000 % 1000));
  } else {
    std::snprintf(buffer, sizeof(buffer), "%lld.%03lld s", static_cast<long long>(ns / 1000000000),
                  static_cast<long long>(ns / 1000000 % 1000));
  }
  return buffer;
}

}  // namespace memplan::viz
