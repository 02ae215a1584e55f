#include "cli/errors.h"

#include <cstdio>

#include "cli/commands.h"
#include "ir/strings.h"
#include "viz/format.h"

namespace memplan::cli {

void PrintPrefixed(std::string_view prefix, std::string_view message) {
  const std::string safe = viz::MarkupSafeText(message);
  std::fprintf(stderr, "%.*s%s\n", static_cast<int>(prefix.size()), prefix.data(), safe.c_str());
}

void PrintError(std::string_view message) { PrintPrefixed("memplan: ", message); }

void PrintError(const absl::Status& status) {
  PrintError(FromAbsl(status.message()));
}

int Fail(std::string_view message) {
  PrintError(message);
  return kExitBadInput;
}

}  // namespace memplan::cli
