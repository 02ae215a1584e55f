// `memplan modules DIR`: one row per module of a dump directory.
#ifndef MEMPLAN_VIZ_MODULES_TABLE_H_
#define MEMPLAN_VIZ_MODULES_TABLE_H_

#include <optional>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "parsers/dump_files.h"

namespace memplan::viz {

// One module as listed: what FindDumpModules says of it and, when it could
// be read, its analysis; otherwise the reason it could not.
struct ModuleRow {
  const parsers::DumpModule& module;
  const analyzer::Analysis* analysis = nullptr;  // null when unread
  std::string error;                             // why it could not be read
  bool chosen = false;                           // what analyze reads by default
};

// An aligned table: number, name, instructions, total, live peak, temp,
// device footprint, format, and a mark on the default module.
std::string RenderModulesText(const std::vector<ModuleRow>& rows);
// The same rows as a JSON array of objects (docs/json-schema.md).
std::string RenderModulesJson(const std::vector<ModuleRow>& rows);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_MODULES_TABLE_H_
