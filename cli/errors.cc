#include "cli/errors.h"

#include <cstdio>

#include "cli/commands.h"

namespace memplan::cli {

void PrintError(std::string_view message) {
  std::fprintf(stderr, "memplan: %.*s\n", static_cast<int>(message.size()), message.data());
}

void PrintError(const absl::Status& status) {
  PrintError(std::string_view(status.message().data(), status.message().size()));
}

int Fail(std::string_view message) {
  PrintError(message);
  return kExitBadInput;
}

}  // namespace memplan::cli
