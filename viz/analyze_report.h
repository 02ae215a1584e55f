// Views of one `memplan analyze` result: an aligned text report and a JSON
// document (schema: docs/json-schema.md). Both are pure functions of their
// input and byte-for-byte deterministic.
#ifndef MEMPLAN_VIZ_ANALYZE_REPORT_H_
#define MEMPLAN_VIZ_ANALYZE_REPORT_H_

#include <string>

#include "analyzer/analysis.h"
#include "ir/program.h"

namespace llvm {
class raw_ostream;
}  // namespace llvm

namespace memplan::viz {

struct AnalyzeReportInput {
  const ir::Program& program;
  const analyzer::Analysis& analysis;
  std::string choice;  // which module of a dump directory, and why; may be empty
  int top_n = 10;      // rows in the text tables of values at the peak
};

std::string RenderAnalyzeText(const AnalyzeReportInput& input);
std::string RenderAnalyzeJson(const AnalyzeReportInput& input);
// The same JSON document, written to `os` as it is produced (no copy of the
// whole document in memory).
void WriteAnalyzeJson(const AnalyzeReportInput& input, llvm::raw_ostream& os);

// The JSON document's schema version; bump on incompatible change.
inline constexpr int kAnalyzeJsonSchemaVersion = 2;

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_ANALYZE_REPORT_H_
