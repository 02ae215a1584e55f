// Views of one `memplan analyze` result: an aligned text report and a JSON
// document (schema: docs/json-schema.md). Both are pure functions of their
// input and byte-for-byte deterministic.
#ifndef MEMPLAN_VIZ_ANALYZE_REPORT_H_
#define MEMPLAN_VIZ_ANALYZE_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "analyzer/analysis.h"
#include "ir/program.h"

namespace llvm {
class raw_ostream;
}  // namespace llvm

namespace memplan::viz {

// The device whose memory the report measures shares against.
struct DeviceMemory {
  std::string name;  // as the user wrote it ("H100-80GB", "h100")
  int64_t bytes = 0;  // its memory; > 0
};

// The default width of the text report, in display columns.
inline constexpr int kDefaultTextWidth = 120;

struct AnalyzeReportInput {
  const ir::Program& program;
  const analyzer::Analysis& analysis;
  std::string choice;  // which module of a dump directory, and why; may be empty
  int top_n = 10;      // rows in the text tables of values at the peak
  // The text report's lines fit in this many columns (long names lose their
  // middle, sentences wrap); 0: no limit.
  int width = kDefaultTextWidth;
  // With a device: each headline number's share of its memory.
  std::optional<DeviceMemory> device{};
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
