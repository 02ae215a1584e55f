#include "parsers/dump_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/str_join.h"
#include "ir/strings.h"
#include "parsers/cursor.h"

namespace memplan::parsers {
namespace {

namespace fs = std::filesystem;

std::string_view StripSuffixes(std::string_view name) {
  for (std::string_view suffix : {kValuesSuffix, kLiveRangeSuffix, kBufferAssignmentSuffix}) {
    if (name.ends_with(suffix)) return name.substr(0, name.size() - suffix.size());
  }
  return name;
}

// The stem of any file a module has in a dump, or "" for other files.
std::string_view DumpStem(std::string_view name) {
  for (std::string_view suffix : {kBufferAssignmentSuffix, kValuesSuffix, kLiveRangeSuffix,
                                  kMemoryUsageReportSuffix, kHloProtoSuffix}) {
    if (name.ends_with(suffix)) return name.substr(0, name.size() - suffix.size());
  }
  return {};
}

// Calls `visit` on each line of `path` until it returns false. Only a regular
// file is read: a FIFO or device is read once, by its parser, and nowhere else.
template <typename Visit>
void ForEachLine(const std::string& path, Visit visit) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return;
  std::ifstream in(path, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!visit(std::string_view(line))) return;
  }
}

// Reads "Total bytes used: N" from a buffer assignment's head.
std::optional<int64_t> ReadStatedTotal(const std::string& path) {
  std::optional<int64_t> total;
  ForEachLine(path, [&](std::string_view line) {
    Cursor c(line);
    int64_t bytes = 0;
    if (c.Consume("Total bytes used: ") && c.ConsumeInt(&bytes)) {
      total = bytes;
      return false;
    }
    return !line.starts_with("Used values:");  // totals come before
  });
  return total;
}

void FillSizeHint(DumpModule& module) {
  if (module.files.front().ends_with(kBufferAssignmentSuffix)) {
    for (const std::string& file : module.files) {
      if (std::optional<int64_t> total = ReadStatedTotal(file)) {
        module.size_hint = *total;
        module.size_hint_is_total_bytes = true;
        return;
      }
    }
  }
  std::error_code ec;
  for (const std::string& file : module.files) {
    const uintmax_t size = fs::file_size(file, ec);
    if (!ec) module.size_hint += static_cast<int64_t>(size);
  }
}

// Counts a module's instructions by the best basis at hand: its HLO text's
// instruction lines ("  %x = ..." inside a computation), else the
// HloLiveRange's last step, else the values the buffer assignment lists.
void FillInstructionCount(DumpModule& module) {
  if (!module.hlo_text_file.empty()) {
    int64_t count = 0;
    ForEachLine(module.hlo_text_file, [&](std::string_view line) {
      count += line.starts_with("  ") && line.find(" = ") != std::string_view::npos;
      return true;
    });
    module.instruction_count = count;
    module.instruction_count_basis = InstructionCountBasis::kModuleText;
    return;
  }
  if (!module.files.front().ends_with(kBufferAssignmentSuffix)) return;
  int64_t values = 0;
  std::optional<int64_t> last_step;
  for (const std::string& file : module.files) {
    ForEachLine(file, [&](std::string_view line) {
      values += line.starts_with(" value: <");
      Cursor c(line);
      int64_t max = 0;
      if (c.Consume("HloLiveRange (max ") && c.ConsumeInt(&max)) last_step = max;
      return true;
    });
  }
  if (last_step) {
    module.instruction_count = *last_step;
    module.instruction_count_basis = InstructionCountBasis::kSchedule;
  } else {
    module.instruction_count = values;
    module.instruction_count_basis = InstructionCountBasis::kValues;
  }
}

std::optional<int64_t> ModuleNumber(std::string_view file_name) {
  Cursor c(file_name);
  int64_t number = 0;
  if (c.Consume("module_") && c.ConsumeInt(&number) && c.ConsumeChar('.')) return number;
  return std::nullopt;
}

std::string ListModules(const std::vector<const DumpModule*>& modules) {
  std::vector<std::string> names;
  for (const DumpModule* m : modules) names.push_back(m->stem);
  return absl::StrJoin(names, ", ");
}

// How good a main file is: a buffer assignment (schedule and live ranges)
// before an HloProto (the whole graph, no live ranges) before a report.
int MainFileRank(std::string_view name) {
  if (name.ends_with(kBufferAssignmentSuffix)) return 0;
  if (name.ends_with(kHloProtoSuffix)) return 1;
  return 2;
}

}  // namespace

std::string ModuleNameFromFileName(std::string_view file_name) {
  std::string_view stem = DumpStem(file_name);
  if (stem.empty()) {
    stem = file_name;
    const size_t dot = stem.rfind('.');
    if (dot != std::string_view::npos && dot > 0) stem = stem.substr(0, dot);
  }
  Cursor c(stem);
  int64_t number = 0;
  if (c.Consume("module_") && c.ConsumeInt(&number) && c.ConsumeChar('.')) stem = c.rest();
  // Drop the ".<backend>_after_optimizations" (or other phase) part.
  for (std::string_view backend : {".cpu_", ".gpu_", ".tpu_", ".sm_", ".rocm_", ".host_"}) {
    const size_t at = stem.find(backend);
    if (at != std::string_view::npos && at > 0) stem = stem.substr(0, at);
  }
  return std::string(stem);
}

DumpModule ModuleForFile(const std::string& path) {
  const fs::path p(path);
  const std::string file_name = p.filename().string();
  const fs::path dir = p.parent_path();
  DumpModule module;
  module.name = ModuleNameFromFileName(file_name);
  module.number = ModuleNumber(file_name);
  const std::string_view stem = StripSuffixes(file_name);
  const std::string_view dump_stem = DumpStem(file_name);
  module.stem = std::string(dump_stem.empty() ? stem : dump_stem);
  std::error_code ec;
  if (stem != file_name) {
    for (std::string_view suffix : {kBufferAssignmentSuffix, kValuesSuffix, kLiveRangeSuffix}) {
      const fs::path candidate = dir / StrCat(stem, suffix);
      if (fs::is_regular_file(candidate, ec)) module.files.push_back(candidate.string());
    }
  }
  if (module.files.empty()) module.files = {path};
  if (!dump_stem.empty()) {
    const fs::path hlo_text = dir / StrCat(dump_stem, ".txt");
    if (fs::is_regular_file(hlo_text, ec)) module.hlo_text_file = hlo_text.string();
  }
  FillSizeHint(module);
  FillInstructionCount(module);
  return module;
}

absl::StatusOr<std::vector<DumpModule>> FindDumpModules(const std::string& directory) {
  std::error_code ec;
  // Per stem, its best main file.
  std::map<std::string, std::string> main_by_stem;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(ec)) continue;
    const bool main = name.ends_with(kBufferAssignmentSuffix) ||
                      name.ends_with(kMemoryUsageReportSuffix) ||
                      // XLA also dumps the module before optimizations, which
                      // has no buffer assignment.
                      (name.ends_with(kHloProtoSuffix) &&
                       name.find("before_optimizations") == std::string::npos);
    if (!main) continue;
    const std::string stem(DumpStem(name));
    auto [it, inserted] = main_by_stem.try_emplace(stem, entry.path().string());
    if (!inserted && MainFileRank(name) <
                         MainFileRank(fs::path(it->second).filename().string())) {
      it->second = entry.path().string();
    }
  }
  if (ec) return absl::InvalidArgumentError(StrCat(directory, ": cannot list: ", ec.message()));
  if (main_by_stem.empty()) {
    return absl::NotFoundError(StrCat(
        directory, ": no module found (expected '*", kBufferAssignmentSuffix, "', '*",
        kHloProtoSuffix, "' or '*", kMemoryUsageReportSuffix,
        "'); dump with XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text"));
  }
  std::vector<DumpModule> modules;
  for (const auto& [stem, main] : main_by_stem) modules.push_back(ModuleForFile(main));
  return modules;
}

absl::StatusOr<ModuleChoice> ChooseModule(const std::vector<DumpModule>& modules,
                                          std::string_view wanted) {
  if (modules.empty()) return absl::NotFoundError("no modules to choose from");
  if (wanted.empty()) {
    if (modules.size() == 1) return ModuleChoice{0, ModuleChoiceReason::kOnlyModule};
    // The program the user ran, not a helper jit: most instructions, then
    // most bytes; ties go to the first stem so the choice is stable.
    size_t best = 0;
    for (size_t i = 1; i < modules.size(); ++i) {
      const DumpModule& a = modules[i];
      const DumpModule& b = modules[best];
      if (a.instruction_count != b.instruction_count) {
        if (a.instruction_count > b.instruction_count) best = i;
      } else if (a.size_hint != b.size_hint) {
        if (a.size_hint > b.size_hint) best = i;
      } else if (a.stem < b.stem) {
        best = i;
      }
    }
    return ModuleChoice{best, ModuleChoiceReason::kMostInstructions};
  }
  std::vector<const DumpModule*> all;
  for (const DumpModule& m : modules) all.push_back(&m);
  const auto index_of = [&](const DumpModule* m) {
    return static_cast<size_t>(m - modules.data());
  };
  for (const DumpModule& m : modules) {
    if (m.stem == wanted) return ModuleChoice{index_of(&m), ModuleChoiceReason::kNamed};
  }
  std::vector<const DumpModule*> named;
  for (const DumpModule& m : modules) {
    if (m.name == wanted) named.push_back(&m);
  }
  if (named.empty()) {
    for (const DumpModule& m : modules) {
      if (m.stem.find(wanted) != std::string::npos) named.push_back(&m);
    }
  }
  if (named.size() == 1) return ModuleChoice{index_of(named.front()), ModuleChoiceReason::kNamed};
  if (named.empty()) {
    return absl::InvalidArgumentError(StrCat("module '", wanted,
                                             "' matches no module; modules in the dump: ",
                                             ListModules(all)));
  }
  return absl::InvalidArgumentError(StrCat("module '", wanted, "' matches several modules: ",
                                           ListModules(named), "; name one by its stem"));
}

}  // namespace memplan::parsers
