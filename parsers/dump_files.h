// Finding the files of an XLA dump: the modules in an --xla_dump_to
// directory, the companion files of a split buffer assignment, and the
// module name a file name carries.
#ifndef MEMPLAN_PARSERS_DUMP_FILES_H_
#define MEMPLAN_PARSERS_DUMP_FILES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace memplan::parsers {

inline constexpr std::string_view kBufferAssignmentSuffix = "-buffer-assignment.txt";
inline constexpr std::string_view kValuesSuffix = "-buffer-assignment-values.txt";
inline constexpr std::string_view kLiveRangeSuffix = "-live-range.txt";
// Not a buffer-assignment companion: a report of its own, loaded alone.
inline constexpr std::string_view kMemoryUsageReportSuffix = "-memory-usage-report.txt";

// One module's buffer-assignment files in a dump.
struct DumpModule {
  std::string name;   // "jit_train_step"
  std::string stem;   // "module_0005.jit_train_step.cpu_after_optimizations"
  std::vector<std::string> files;  // main file first, then values, live range
  // The module's HLO text ("<stem>.txt") beside a buffer-assignment dump,
  // read for its stack-frame tables; empty when absent.
  std::string hlo_text_file;
  // "Total bytes used" when a file states it, else the files' byte count.
  int64_t size_hint = 0;
  bool size_hint_is_total_bytes = false;
};

// The module name a dump file name carries: "module_0005.jit_f.cpu_after_
// optimizations-buffer-assignment.txt" -> "jit_f" (also for the values,
// live-range and memory-usage-report suffixes); any other file name gives its
// stem without extension.
std::string ModuleNameFromFileName(std::string_view file_name);

// The files of the module `path` belongs to: for a file ending in one of the
// three suffixes, the main file plus the companions that exist beside it.
// Any other file stands alone.
DumpModule ModuleForFile(const std::string& path);

// Every module with a "*-buffer-assignment.txt" in `directory`, sorted by
// stem. NotFound when there is none.
absl::StatusOr<std::vector<DumpModule>> FindDumpModules(const std::string& directory);

// The module named `wanted` (exact name or stem, else a unique substring of
// either), or when `wanted` is empty the one with the largest size hint.
// InvalidArgument listing the candidates when none or several match.
absl::StatusOr<DumpModule> ChooseModule(const std::vector<DumpModule>& modules,
                                        std::string_view wanted);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_DUMP_FILES_H_
