// Views of `memplan diff OLD NEW`: an aligned text report and a JSON
// document (schema in docs/ci.md). Pure functions of their input.
#ifndef MEMPLAN_VIZ_DIFF_REPORT_H_
#define MEMPLAN_VIZ_DIFF_REPORT_H_

#include <string>

#include "analyzer/diff.h"

namespace memplan::viz {

struct DiffReportInput {
  const analyzer::ProgramDiff& diff;
  std::string old_path;
  std::string new_path;
};

std::string RenderDiffText(const DiffReportInput& input);
std::string RenderDiffJson(const DiffReportInput& input);

inline constexpr int kDiffJsonSchemaVersion = 1;

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_DIFF_REPORT_H_
