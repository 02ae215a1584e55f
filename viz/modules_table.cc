#include "viz/modules_table.h"

#include "viz/json_text.h"
#include "analyzer/memory_stats.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/describe.h"
#include "viz/format.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

std::string_view FormatOf(const parsers::DumpModule& m) {
  const std::string& main = m.files.front();
  if (main.ends_with(parsers::kBufferAssignmentSuffix)) return "buffer assignment";
  if (main.ends_with(parsers::kHloProtoSuffix)) return "HloProto";
  if (main.ends_with(parsers::kMemoryUsageReportSuffix)) return "memory-usage report";
  return "file";
}

std::string_view BasisName(parsers::InstructionCountBasis basis) {
  switch (basis) {
    case parsers::InstructionCountBasis::kModuleText:
      return "module-text";
    case parsers::InstructionCountBasis::kSchedule:
      return "schedule";
    case parsers::InstructionCountBasis::kValues:
      return "values";
    case parsers::InstructionCountBasis::kNone:
      return "none";
  }
  return "none";
}

}  // namespace

std::string RenderModulesText(const std::vector<ModuleRow>& rows) {
  using Align = TextTable::Align;
  TextTable table({{"", Align::kLeft},
                   {"#", Align::kRight},
                   {"module"},
                   {"instructions", Align::kRight},
                   {"total", Align::kRight},
                   {"live peak", Align::kRight},
                   {"temp", Align::kRight},
                   {"footprint", Align::kRight},
                   {"read from"}});
  for (const ModuleRow& row : rows) {
    const parsers::DumpModule& m = row.module;
    std::vector<std::string> cells = {row.chosen ? "*" : "",
                                      m.number ? StrCat(*m.number) : std::string("-"), m.name,
                                      m.instruction_count_basis ==
                                              parsers::InstructionCountBasis::kNone
                                          ? std::string("-")
                                          : GroupedBytes(m.instruction_count)};
    if (row.analysis != nullptr) {
      const analyzer::MemoryStats& s = row.analysis->stats;
      // A number the input does not state is "?", never 0.
      auto stated = [&](analyzer::StatsField field) {
        const std::optional<int64_t> bytes = s.Get(field);
        return bytes ? HumanBytes(*bytes) : std::string("?");
      };
      cells.push_back(stated(analyzer::StatsField::kTotalAllocation));
      cells.push_back(row.analysis->occupied_peak
                          ? HumanBytes(row.analysis->occupied_peak->bytes)
                          : "-");
      cells.push_back(stated(analyzer::StatsField::kTemp));
      cells.push_back(stated(analyzer::StatsField::kDeviceFootprint));
      cells.push_back(std::string(FormatOf(m)));
    } else {
      cells.insert(cells.end(), {"-", "-", "-", "-", StrCat("unreadable: ", row.error)});
    }
    table.AddRow(std::move(cells));
  }
  // Names come from the input: no terminal escapes.
  return MarkupSafeText(
      StrCat(table.Render(), "* the module analyze reads by default (the most instructions)\n"));
}

std::string RenderModulesJson(const std::vector<ModuleRow>& rows) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream j(os, 2);
  j.array([&] {
    for (const ModuleRow& row : rows) {
      const parsers::DumpModule& m = row.module;
      j.object([&] {
        if (m.number) {
          j.attribute("number", *m.number);
        } else {
          j.attribute("number", nullptr);
        }
        j.attribute("name", JsonRef(m.name));
        j.attribute("stem", JsonRef(m.stem));
        j.attribute("default", row.chosen);
        j.attribute("instructions", m.instruction_count);
        j.attribute("instructions_from", JsonRef(BasisName(m.instruction_count_basis)));
        j.attributeArray("files", [&] {
          for (const std::string& f : m.files) j.value(JsonRef(f));
        });
        if (row.analysis == nullptr) {
          j.attribute("error", JsonRef(row.error));
          return;
        }
        const analyzer::MemoryStats& s = row.analysis->stats;
        auto stated = [&](const char* key, analyzer::StatsField field) {
          if (const std::optional<int64_t> bytes = s.Get(field)) {
            j.attribute(key, *bytes);
          } else {
            j.attribute(key, nullptr);  // not stated by the input
          }
        };
        stated("total_allocation_bytes", analyzer::StatsField::kTotalAllocation);
        if (row.analysis->peak && row.analysis->occupied_peak) {
          j.attribute("occupied_peak_bytes", row.analysis->occupied_peak->bytes);
          j.attribute("live_peak_bytes", row.analysis->peak->bytes);
        } else {
          j.attribute("occupied_peak_bytes", nullptr);
          j.attribute("live_peak_bytes", nullptr);
        }
        stated("temp_bytes", analyzer::StatsField::kTemp);
        stated("device_footprint_bytes", analyzer::StatsField::kDeviceFootprint);
      });
    }
  });
  os << "\n";
  os.flush();
  return out;
}

}  // namespace memplan::viz
