#include "viz/diff_report.h"

#include <optional>
#include <string>
#include <string_view>

#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/format.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

using analyzer::CategoryDelta;
using analyzer::ValueChange;
using analyzer::ValueChangeKind;
using Align = TextTable::Align;

std::string SignedHumanBytes(int64_t bytes) {
  return bytes > 0 ? StrCat("+", HumanBytes(bytes)) : HumanBytes(bytes);
}
std::string SignedGroupedBytes(int64_t bytes) {
  return bytes > 0 ? StrCat("+", GroupedBytes(bytes)) : GroupedBytes(bytes);
}

std::string OrUnknown(const std::optional<int64_t>& bytes) {
  return bytes ? HumanBytes(*bytes) : "n/a";
}

constexpr ValueChangeKind kKinds[] = {ValueChangeKind::kAppeared, ValueChangeKind::kGrew,
                                      ValueChangeKind::kShrank, ValueChangeKind::kVanished};

// Writes `key`: `v`, or null when `v` is empty.
void OptionalIntJson(llvm::json::OStream& j, llvm::StringRef key, const std::optional<int64_t>& v) {
  if (v) {
    j.attribute(key, *v);
  } else {
    j.attribute(key, nullptr);
  }
}

// Writes one category's bytes before and after as a JSON object.
void WriteCategoryJson(llvm::json::OStream& j, const CategoryDelta& c) {
  j.object([&] {
    j.attribute("name", c.name);
    OptionalIntJson(j, "old_bytes", c.old_bytes);
    OptionalIntJson(j, "new_bytes", c.new_bytes);
    OptionalIntJson(j, "delta_bytes", c.delta());
    if (const std::optional<double> p = c.percent()) {
      j.attribute("delta_percent", *p);
    } else {
      j.attribute("delta_percent", nullptr);
    }
  });
}

// Writes, inside the "values" object, each change kind's count and bytes
// and the unchanged and changed counts.
void WriteValueSummaryJson(llvm::json::OStream& j, const analyzer::ProgramDiff& diff) {
  for (ValueChangeKind kind : kKinds) {
    const analyzer::ChangeSummary& s = diff.summary[static_cast<int>(kind)];
    j.attributeObject(llvm::StringRef(analyzer::ValueChangeKindName(kind).data(),
                                      analyzer::ValueChangeKindName(kind).size()),
                      [&] {
                        j.attribute("count", s.count);
                        j.attribute("delta_bytes", s.bytes);
                      });
  }
  j.attribute("unchanged", diff.unchanged_values);
  j.attribute("changed", diff.changed_values);
}

// Writes one value's change as a JSON object; the side it lacks is null.
void WriteChangeJson(llvm::json::OStream& j, const ValueChange& c) {
  j.object([&] {
    const std::string_view kind = analyzer::ValueChangeKindName(c.kind);
    j.attribute("change", llvm::StringRef(kind.data(), kind.size()));
    j.attribute("name", c.name);
    const bool has_old = c.kind != ValueChangeKind::kAppeared;
    const bool has_new = c.kind != ValueChangeKind::kVanished;
    OptionalIntJson(j, "old_id", has_old ? std::optional<int64_t>(c.old_id.value()) : std::nullopt);
    OptionalIntJson(j, "new_id", has_new ? std::optional<int64_t>(c.new_id.value()) : std::nullopt);
    if (has_old) {
      j.attribute("old_shape", c.old_shape);
    } else {
      j.attribute("old_shape", nullptr);
    }
    if (has_new) {
      j.attribute("new_shape", c.new_shape);
    } else {
      j.attribute("new_shape", nullptr);
    }
    j.attribute("old_bytes", c.old_bytes);
    j.attribute("new_bytes", c.new_bytes);
    j.attribute("delta_bytes", c.delta());
  });
}

std::string CategoryTable(const analyzer::ProgramDiff& diff) {
  TextTable categories({{"category"}, {"old", Align::kRight}, {"new", Align::kRight},
                        {"delta", Align::kRight}, {"delta bytes", Align::kRight},
                        {"change", Align::kRight}});
  for (const CategoryDelta& c : diff.categories) {
    const std::optional<int64_t> delta = c.delta();
    const std::optional<double> percent = c.percent();
    std::string change = "n/a";
    if (percent) {
      change = SignedPercent(*percent);
    } else if (delta && *delta == 0) {
      change = "0.00%";
    } else if (delta) {
      change = "new";
    }
    categories.AddRow({c.name, OrUnknown(c.old_bytes), OrUnknown(c.new_bytes),
                       delta ? SignedHumanBytes(*delta) : "n/a",
                       delta ? SignedGroupedBytes(*delta) : "n/a", change});
  }
  return categories.Render();
}

// "old -> new" when the shape changed, else the one shape.
std::string ShapeChange(const ValueChange& c) {
  if (c.old_shape.empty()) return c.new_shape;
  if (c.new_shape.empty()) return c.old_shape;
  if (c.old_shape == c.new_shape) return c.new_shape;
  return StrCat(c.old_shape, " -> ", c.new_shape);
}

std::string ChangeTable(const analyzer::ProgramDiff& diff) {
  TextTable table({{"#", Align::kRight}, {"change"}, {"value"}, {"old", Align::kRight},
                   {"new", Align::kRight}, {"delta", Align::kRight}, {"shape"}});
  int rank = 0;
  for (const ValueChange& c : diff.changes) {
    const bool has_old = c.kind != ValueChangeKind::kAppeared;
    const bool has_new = c.kind != ValueChangeKind::kVanished;
    table.AddRow({StrCat(++rank), std::string(analyzer::ValueChangeKindName(c.kind)), c.name,
                  has_old ? HumanBytes(c.old_bytes) : "-", has_new ? HumanBytes(c.new_bytes) : "-",
                  SignedHumanBytes(c.delta()), ShapeChange(c)});
  }
  return table.Render();
}

}  // namespace

std::string RenderDiffText(const DiffReportInput& input) {
  const analyzer::ProgramDiff& diff = input.diff;
  std::string out;
  StrAppend(&out, "Old: ", input.old_path, " (module ", diff.old_module, ")\n");
  StrAppend(&out, "New: ", input.new_path, " (module ", diff.new_module, ")\n\n");
  if (diff.Empty()) {
    out += "No change: every category and every value has the same size.\n";
    return out;
  }
  StrAppend(&out, "Memory by category\n", CategoryTable(diff), "\n");
  out += "Values (matched by what they are: instruction in the graph, shape index, position)\n";
  for (ValueChangeKind kind : kKinds) {
    const analyzer::ChangeSummary& s = diff.summary[static_cast<int>(kind)];
    StrAppend(&out, "  ", analyzer::ValueChangeKindName(kind), ": ", s.count);
    if (s.count > 0) StrAppend(&out, " (", SignedHumanBytes(s.bytes), ")");
    out += "\n";
  }
  StrAppend(&out, "  unchanged: ", diff.unchanged_values, "\n\n");
  if (diff.changes.empty()) return out;
  StrAppend(&out, "Largest changes (", diff.changes.size(), " of ", diff.changed_values, ")\n");
  out += ChangeTable(diff);
  if (diff.changed_values > static_cast<int64_t>(diff.changes.size())) {
    StrAppend(&out, "  ... ", diff.changed_values - static_cast<int64_t>(diff.changes.size()),
              " more (no row limit lists them all)\n");
  }
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

std::string RenderDiffJson(const DiffReportInput& input) {
  const analyzer::ProgramDiff& diff = input.diff;
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream j(os, /*IndentSize=*/2);
  j.object([&] {
    j.attribute("schema_version", kDiffJsonSchemaVersion);
    j.attributeObject("old", [&] {
      j.attribute("path", input.old_path);
      j.attribute("module", diff.old_module);
    });
    j.attributeObject("new", [&] {
      j.attribute("path", input.new_path);
      j.attribute("module", diff.new_module);
    });
    j.attribute("changed", !diff.Empty());
    j.attributeArray("categories", [&] {
      for (const CategoryDelta& c : diff.categories) WriteCategoryJson(j, c);
    });
    j.attributeObject("values", [&] { WriteValueSummaryJson(j, diff); });
    j.attributeArray("changes", [&] {
      for (const ValueChange& c : diff.changes) WriteChangeJson(j, c);
    });
  });
  os << "\n";
  os.flush();
  return out;
}

}  // namespace memplan::viz
