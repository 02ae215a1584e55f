#include "parsers/dump_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ir/strings.h"
#include "absl/strings/str_join.h"
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

// Reads "Total bytes used: N" from the first 64 KiB that hold it.
std::optional<int64_t> ReadStatedTotal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    Cursor c(line);
    int64_t total = 0;
    if (c.Consume("Total bytes used: ") && c.ConsumeInt(&total)) return total;
    if (line.starts_with("Used values:")) break;  // totals come before
  }
  return std::nullopt;
}

void FillSizeHint(DumpModule& module) {
  for (const std::string& file : module.files) {
    if (std::optional<int64_t> total = ReadStatedTotal(file)) {
      module.size_hint = *total;
      module.size_hint_is_total_bytes = true;
      return;
    }
  }
  std::error_code ec;
  for (const std::string& file : module.files) {
    module.size_hint += static_cast<int64_t>(fs::file_size(file, ec));
  }
}

std::string ListModules(const std::vector<DumpModule>& modules) {
  std::vector<std::string> names;
  for (const DumpModule& m : modules) names.push_back(m.name);
  return absl::StrJoin(names, ", ");
}

}  // namespace

std::string ModuleNameFromFileName(std::string_view file_name) {
  std::string_view stem = StripSuffixes(file_name);
  if (stem == file_name && file_name.ends_with(kMemoryUsageReportSuffix)) {
    stem = file_name.substr(0, file_name.size() - kMemoryUsageReportSuffix.size());
  }
  if (stem == file_name) {
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
  DumpModule module;
  module.name = ModuleNameFromFileName(file_name);
  const std::string_view stem = StripSuffixes(file_name);
  module.stem = std::string(stem);
  if (stem == file_name) {
    module.files = {path};
  } else {
    const fs::path dir = p.parent_path();
    for (std::string_view suffix : {kBufferAssignmentSuffix, kValuesSuffix, kLiveRangeSuffix}) {
      const fs::path candidate = dir / StrCat(stem, suffix);
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec)) module.files.push_back(candidate.string());
    }
    if (module.files.empty()) module.files = {path};
    std::error_code ec;
    const fs::path hlo_text = dir / StrCat(stem, ".txt");
    if (fs::is_regular_file(hlo_text, ec)) module.hlo_text_file = hlo_text.string();
  }
  FillSizeHint(module);
  return module;
}

absl::StatusOr<std::vector<DumpModule>> FindDumpModules(const std::string& directory) {
  std::error_code ec;
  std::vector<std::string> mains;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file(ec) && name.ends_with(kBufferAssignmentSuffix)) {
      mains.push_back(entry.path().string());
    }
  }
  if (ec) return absl::InvalidArgumentError(StrCat(directory, ": cannot list: ", ec.message()));
  if (mains.empty()) {
    return absl::NotFoundError(StrCat(
        directory, ": no '*", kBufferAssignmentSuffix,
        "' found; dump with XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text"));
  }
  std::sort(mains.begin(), mains.end());
  std::vector<DumpModule> modules;
  for (const std::string& main : mains) modules.push_back(ModuleForFile(main));
  return modules;
}

absl::StatusOr<DumpModule> ChooseModule(const std::vector<DumpModule>& modules,
                                        std::string_view wanted) {
  if (modules.empty()) return absl::NotFoundError("no modules to choose from");
  if (wanted.empty()) {
    // Largest first; ties go to the first stem so the choice is stable.
    return *std::max_element(modules.begin(), modules.end(),
                             [](const DumpModule& a, const DumpModule& b) {
                               if (a.size_hint != b.size_hint) return a.size_hint < b.size_hint;
                               return a.stem > b.stem;
                             });
  }
  for (const DumpModule& m : modules) {
    if (m.name == wanted || m.stem == wanted) return m;
  }
  std::vector<const DumpModule*> partial;
  for (const DumpModule& m : modules) {
    if (m.stem.find(wanted) != std::string::npos) partial.push_back(&m);
  }
  if (partial.size() == 1) return *partial.front();
  return absl::InvalidArgumentError(StrCat(
      "--module=", wanted, partial.empty() ? " matches no module" : " matches several modules",
      "; modules in the dump: ", ListModules(modules)));
}

}  // namespace memplan::parsers
