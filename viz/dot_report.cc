#include "viz/dot_report.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "analyzer/value_category.h"
#include "ir/strings.h"
#include "viz/describe.h"
#include "viz/format.h"
#include "viz/svg.h"

namespace memplan::viz {
namespace {

constexpr size_t kMaxLabelLine = 60;
// Users drawn per value; the label counts the rest.
constexpr size_t kMaxUsersPerValue = 8;

// The category colour every view uses (viz/svg.h), white when unassigned.
std::string_view FillColor(const ir::Program& program, const ir::Value& v) {
  const ir::Allocation* a = program.FindAllocation(v.allocation);
  if (a == nullptr) return "#ffffff";
  return CategoryColor(static_cast<int>(analyzer::CategoryOf(*a)));
}

std::string Shorten(std::string_view s) {
  if (s.size() <= kMaxLabelLine) return std::string(s);
  return StrCat(Utf8Prefix(s, kMaxLabelLine - 3), "...");
}

// Lines joined with DOT's centered line break, each escaped.
std::string Label(const std::vector<std::string>& lines) {
  std::string inner;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) inner += "\\n";
    for (char c : MarkupSafeText(lines[i])) {
      if (c == '"' || c == '\\') inner += '\\';
      inner += c;
    }
  }
  return StrCat("\"", inner, "\"");
}

std::string Fixed2(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", x);
  return buffer;
}

std::string ValueNode(const ir::Value& v) { return StrCat("\"v", v.id.value(), "\""); }
std::string InstructionNode(const ir::Program& program, ir::InstructionId id) {
  return DotQuote(StrCat("i:", program.InstructionName(id)));
}

// The values to draw from: live at the peak, else every value; largest
// first, then by id.
std::vector<const ir::Value*> Candidates(const ir::Program& program,
                                         const analyzer::Analysis& analysis) {
  std::vector<const ir::Value*> values;
  if (analysis.peak) {
    for (ir::ValueId id : analysis.peak->values) values.push_back(program.FindValue(id));
    return values;
  }
  for (const ir::Value& v : program.values) values.push_back(&v);
  std::stable_sort(values.begin(), values.end(), [](const ir::Value* a, const ir::Value* b) {
    if (a->size != b->size) return a->size > b->size;
    return a->id < b->id;
  });
  return values;
}

}  // namespace

std::string DotQuote(std::string_view text) {
  const std::string s = MarkupSafeText(text);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

namespace {

// What the graph draws: the shown values, the instructions that define
// them and up to kMaxUsersPerValue users of each (earliest in the schedule
// first), and what was left out.
struct DotGraph {
  std::vector<const ir::Value*> shown;
  size_t candidates = 0;
  int64_t hidden_bytes = 0;
  std::set<ir::InstructionId> defining;
  std::set<ir::InstructionId> instructions;
  std::map<ir::ValueId, std::vector<ir::InstructionId>> users_of;  // drawn users
  std::map<ir::ValueId, int64_t> hidden_users;
};

// Orders instructions by name, then id.
struct ByName {
  const ir::Program& program;
  bool operator()(ir::InstructionId a, ir::InstructionId b) const {
    const std::string_view na = program.InstructionName(a);
    const std::string_view nb = program.InstructionName(b);
    return na != nb ? na < nb : a < b;
  }
};

// A value's distinct users in schedule order (unscheduled last, then by
// name).
std::vector<ir::InstructionId> UsersInOrder(const ir::Program& program, const ir::Value& v,
                                            const std::map<ir::InstructionId, int64_t>& step_of) {
  std::vector<ir::InstructionId> users;
  for (const ir::ValueUse& use : v.uses) users.push_back(use.instruction);
  const ByName by_name{program};
  std::sort(users.begin(), users.end(), [&](ir::InstructionId a, ir::InstructionId b) {
    const auto sa = step_of.find(a);
    const auto sb = step_of.find(b);
    const int64_t ia = sa == step_of.end() ? INT64_MAX : sa->second;
    const int64_t ib = sb == step_of.end() ? INT64_MAX : sb->second;
    if (ia != ib) return ia < ib;
    return by_name(a, b);
  });
  users.erase(std::unique(users.begin(), users.end()), users.end());
  return users;
}

DotGraph SelectGraph(const ir::Program& program, const analyzer::Analysis& analysis,
                     const DotOptions& options) {
  const std::vector<const ir::Value*> candidates = Candidates(program, analysis);
  const size_t shown_count =
      options.max_values <= 0
          ? candidates.size()
          : std::min(candidates.size(), static_cast<size_t>(options.max_values));
  DotGraph g;
  g.shown.assign(candidates.begin(), candidates.begin() + shown_count);
  g.candidates = candidates.size();
  for (size_t i = shown_count; i < candidates.size(); ++i) g.hidden_bytes += candidates[i]->size;
  std::map<ir::InstructionId, int64_t> step_of;
  for (size_t i = 0; i < program.schedule.instructions.size(); ++i) {
    step_of.emplace(program.schedule.instructions[i], static_cast<int64_t>(i));
  }
  for (const ir::Value* v : g.shown) {
    if (v->instruction.valid()) g.defining.insert(v->instruction);
  }
  g.instructions = g.defining;
  for (const ir::Value* v : g.shown) {
    std::vector<ir::InstructionId> users = UsersInOrder(program, *v, step_of);
    if (users.size() > kMaxUsersPerValue) {
      g.hidden_users[v->id] = static_cast<int64_t>(users.size() - kMaxUsersPerValue);
      users.resize(kMaxUsersPerValue);
    }
    g.instructions.insert(users.begin(), users.end());
    g.users_of[v->id] = std::move(users);
  }
  return g;
}

void AppendHeader(const ir::Program& program, const analyzer::Analysis& analysis, std::string& out) {
  out += "digraph memplan {\n";
  std::string title;
  if (analysis.peak) {
    title = StrCat(program.module_name, ": live peak ", HumanBytes(analysis.peak->bytes), " (",
                   GroupedBytes(analysis.peak->bytes), " bytes) at step ", analysis.peak->step);
    if (analysis.peak->instruction.valid()) {
      StrAppend(&title, ", ", program.InstructionName(analysis.peak->instruction));
    }
  } else {
    title = StrCat(program.module_name, ": largest values (the input has no live ranges)");
  }
  StrAppend(&out, "  graph [label=", DotQuote(title),
            ", labelloc=t, fontname=\"Helvetica\", fontsize=14, rankdir=TB];\n");
  out += "  node [fontname=\"Helvetica\", fontsize=10];\n";
  out += "  edge [color=\"#555555\", arrowsize=0.7];\n\n";
}

void AppendInstructions(const ir::Program& program, const analyzer::Analysis& analysis,
                        const DotGraph& g, std::string& out) {
  out += "  // instructions\n";
  std::vector<ir::InstructionId> listed(g.instructions.begin(), g.instructions.end());
  std::sort(listed.begin(), listed.end(), ByName{program});
  for (ir::InstructionId id : listed) {
    std::vector<std::string> lines = {Shorten(program.InstructionName(id))};
    const std::string_view opcode = program.module.instruction(id).opcode_text;
    if (!opcode.empty()) lines.push_back(StrCat("(", opcode, ")"));
    const bool at_peak = analysis.peak && id == analysis.peak->instruction;
    if (at_peak) lines.push_back(StrCat("at the peak, step ", analysis.peak->step));
    std::string style = g.defining.count(id) ? "rounded" : "\"rounded,dashed\"";
    StrAppend(&out, "  ", InstructionNode(program, id), " [shape=box, style=", style,
              ", label=", Label(lines),
              at_peak ? ", color=\"#d62728\", fontcolor=\"#d62728\", penwidth=2" : "", "];\n");
  }
}

// A value's edges: from its defining instruction, to its drawn users, and
// dashed to other drawn instructions that hold it.
void AppendValueEdges(const ir::Program& program, const DotGraph& g, const ir::Value& v,
                      const std::vector<ir::InstructionId>& users, std::string& edges) {
  if (v.instruction.valid()) {
    StrAppend(&edges, "  ", InstructionNode(program, v.instruction), " -> ", ValueNode(v), ";\n");
  }
  for (ir::InstructionId user : users) {
    StrAppend(&edges, "  ", ValueNode(v), " -> ", InstructionNode(program, user), ";\n");
  }
  std::set<ir::InstructionId> held;
  for (const ir::ValuePosition& p : v.positions) {
    if (p.instruction == v.instruction ||
        std::find(users.begin(), users.end(), p.instruction) != users.end() ||
        !g.instructions.count(p.instruction) || !held.insert(p.instruction).second) {
      continue;
    }
    StrAppend(&edges, "  ", ValueNode(v), " -> ", InstructionNode(program, p.instruction),
              " [style=dashed, arrowhead=none];\n");
  }
}

// The value nodes into `out`, their edges into `edges`.
void AppendValues(const ir::Program& program, DotGraph& g, std::string& out, std::string& edges) {
  out += "\n  // values, largest first\n";
  int64_t max_size = 1;
  for (const ir::Value* v : g.shown) max_size = std::max(max_size, v->size);
  for (const ir::Value* v : g.shown) {
    const std::vector<ir::InstructionId>& users = g.users_of[v->id];
    std::vector<std::string> lines = {Shorten(program.ValueName(*v)), Shorten(v->shape_text),
                                      StrCat(HumanBytes(v->size), " (", GroupedBytes(v->size),
                                             " B)")};
    if (const int64_t hidden = g.hidden_users[v->id]; hidden > 0) {
      lines.push_back(StrCat(hidden, hidden == 1 ? " more user" : " more users", " not shown"));
    }
    const double scale = std::sqrt(static_cast<double>(v->size) / static_cast<double>(max_size));
    StrAppend(&out, "  ", ValueNode(*v), " [shape=ellipse, style=filled, fontcolor=\"#ffffff\", fillcolor=\"",
              FillColor(program, *v), "\", width=", Fixed2(1.0 + 2.5 * scale),
              ", height=", Fixed2(0.5 + 0.5 * scale), ", label=", Label(lines), "];\n");
    AppendValueEdges(program, g, *v, users, edges);
  }
}

void AppendLeftOut(const analyzer::Analysis& analysis, const DotGraph& g, std::string& out) {
  if (g.shown.size() >= g.candidates) return;
  const size_t hidden = g.candidates - g.shown.size();
  StrAppend(&out, "  \"left out\" [shape=note, label=",
            Label({StrCat(hidden, hidden == 1 ? " more value" : " more values",
                          analysis.peak ? " live at the peak" : "", " not shown"),
                   StrCat(HumanBytes(g.hidden_bytes), " (", GroupedBytes(g.hidden_bytes), " B)")}),
            "];\n");
}

void AppendLegend(std::string& out) {
  out += "\n  subgraph cluster_legend {\n    label=\"category\"; fontsize=10; color=\"#bbbbbb\";\n";
  for (int c = 0; c < analyzer::kNumValueCategories; ++c) {
    const std::string_view name = CategoryWord(static_cast<analyzer::ValueCategory>(c));
    StrAppend(&out, "    \"legend:", name, "\" [shape=box, style=filled, fillcolor=\"",
              CategoryColor(c), "\", fontcolor=\"#ffffff\", label=\"", name, "\"];\n");
  }
  out += "  }\n";
}

}  // namespace

std::string RenderDot(const ir::Program& program, const analyzer::Analysis& analysis,
                      const DotOptions& options) {
  DotGraph g = SelectGraph(program, analysis, options);
  std::string out;
  AppendHeader(program, analysis, out);
  AppendInstructions(program, analysis, g, out);
  std::string edges;
  AppendValues(program, g, out, edges);
  AppendLeftOut(analysis, g, out);
  out += "\n  // dataflow: defining instruction -> value -> user\n";
  out += edges;
  AppendLegend(out);
  out += "}\n";
  return out;
}

}  // namespace memplan::viz
