// libFuzzer target: `memplan check --budget` files (parsers/budget_file.h's
// ParseBudgets) and the budgets they resolve to. Beyond "no crash, no
// sanitizer report, no hang" it aborts when a promise breaks:
//   - an error names the input and its line ("fuzz-budgets.yaml:") and says
//     what was expected;
//   - an accepted file resolves, for every entry, to limits of 0 bytes or
//     more (no overflow to negative sizes).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/budget_file.h"

namespace {

constexpr std::string_view kName = "fuzz-budgets.yaml";

// Two device names, as the CLI's catalog (the hardware presets) resolves
// them; the fuzzer links no simulator.
std::optional<int64_t> DeviceMemory(std::string_view name) {
  if (name == "h100" || name == "H100-80GB") return int64_t{80} << 30;
  return std::nullopt;
}

[[noreturn]] void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "budget_yaml_fuzzer: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<parsers::BudgetFile> file = parsers::ParseBudgets(
      text, std::string(kName), parsers::DeviceCatalog{DeviceMemory, "h100 or H100-80GB"});
  if (!file.ok()) {
    const std::string_view message(file.status().message().data(), file.status().message().size());
    if (!message.starts_with(std::string(kName) + ":")) Fail("error does not name the input", message);
    if (message.find("expected") == std::string_view::npos) {
      Fail("error does not say what was expected", message);
    }
    return 0;
  }
  if (file->modules.empty()) Fail("accepted a file without budgets", text);
  for (const parsers::ModuleBudget& m : file->modules) {
    const std::optional<parsers::ResolvedBudget> r = parsers::ResolveBudget(*file, m.key);
    if (!r) Fail("an entry does not resolve", m.key);
    for (const std::optional<int64_t>& bytes : r->limit_bytes) {
      if (bytes && *bytes < 0) Fail("a limit resolves to negative bytes", m.key);
    }
  }
  return 0;
}
