// `memplan check`: the modules to check and the baseline, loaded for the
// command and its tests. The budget file is read by parsers/budget_file.h
// (format in docs/ci.md), a baseline's JSON by parsers/analyze_json_metrics.h;
// the evaluation is analyzer/budget_check.h, its words viz/check_report.h.
#ifndef MEMPLAN_CLI_CHECK_H_
#define MEMPLAN_CLI_CHECK_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/budget_check.h"

namespace memplan::cli {

// Every module at `path` (all of a dump directory, or only `module`),
// loaded and analyzed; `names_and_stems` (optional) gets each module's name
// and file stem.
absl::StatusOr<std::vector<analyzer::ModuleMetrics>> LoadModules(
    const std::string& path, const std::string& module,
    std::vector<std::pair<std::string, std::string>>* names_and_stems);

// The baseline's metrics: from an analyze JSON, else from a dump that
// LoadProgram reads (every module of a dump directory, or only `module`).
absl::StatusOr<std::vector<analyzer::ModuleMetrics>> LoadBaseline(const std::string& path,
                                                                  const std::string& module);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_CHECK_H_
