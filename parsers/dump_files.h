// Finding the files of an XLA dump: the modules in an --xla_dump_to
// directory, the companion files of a split buffer assignment, the module
// name a file name carries, and which module to read by default.
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
inline constexpr std::string_view kHloProtoSuffix = ".hlo.pb";

// Where DumpModule::instruction_count comes from, best first.
enum class InstructionCountBasis {
  kModuleText,  // instruction lines of the module's HLO text
  kSchedule,    // the HloLiveRange's schedule length
  kValues,      // values the buffer assignment lists (no text, no schedule)
  kNone,        // nothing to count
};

// One module of a dump: the files memplan reads for it.
struct DumpModule {
  std::string name;   // "jit_train_step"
  std::string stem;   // "module_0005.jit_train_step.cpu_after_optimizations"
  // The number XLA gave the module ("module_0005." gives 5), when it has one.
  std::optional<int64_t> number;
  // The main file first (a buffer assignment, else an HloProto, else a
  // memory-usage report), then a split buffer assignment's values and live
  // range files.
  std::vector<std::string> files;
  // The module's HLO text ("<stem>.txt") beside it; empty when absent.
  std::string hlo_text_file;
  // "Total bytes used" when a file states it, else the files' byte count.
  int64_t size_hint = 0;
  bool size_hint_is_total_bytes = false;
  // How many HLO instructions the module has, by the best basis at hand.
  int64_t instruction_count = 0;
  InstructionCountBasis instruction_count_basis = InstructionCountBasis::kNone;
};

// The module name a dump file name carries: "module_0005.jit_f.cpu_after_
// optimizations-buffer-assignment.txt" -> "jit_f" (also for the values,
// live-range, memory-usage-report and .hlo.pb names); any other file name
// gives its stem without extension.
std::string ModuleNameFromFileName(std::string_view file_name);

// The files of the module `path` belongs to: for a file ending in one of the
// three buffer-assignment suffixes, the main file plus the companions that
// exist beside it. Any other file stands alone (with its HLO text beside it
// when there is one).
DumpModule ModuleForFile(const std::string& path);

// Every module in `directory` with a buffer assignment, an HloProto after
// optimizations, or a memory-usage report, one entry per module (the
// buffer assignment preferred, then the proto, then the report), sorted by
// stem. NotFound when there is none.
absl::StatusOr<std::vector<DumpModule>> FindDumpModules(const std::string& directory);

// Why ChooseModule picked a module.
enum class ModuleChoiceReason {
  kOnlyModule,        // the dump holds one
  kNamed,             // the caller named it
  kMostInstructions,  // the program the user ran: most HLO instructions, then
                      // most bytes, then the first stem
};

struct ModuleChoice {
  size_t index = 0;  // into the modules chosen from
  ModuleChoiceReason reason = ModuleChoiceReason::kOnlyModule;
};

// The module named `wanted` (its exact name or stem, else a unique substring
// of either), or when `wanted` is empty the one with the most instructions.
// InvalidArgument listing the candidates when `wanted` matches none or
// several (two modules of one name are told apart by stem).
absl::StatusOr<ModuleChoice> ChooseModule(const std::vector<DumpModule>& modules,
                                          std::string_view wanted);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_DUMP_FILES_H_
