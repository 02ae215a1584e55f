// How every subcommand reports an error: "memplan: <message>" on stderr.
#ifndef MEMPLAN_CLI_ERRORS_H_
#define MEMPLAN_CLI_ERRORS_H_

#include <string_view>

#include "absl/status/status.h"

namespace memplan::cli {

// Prints "memplan: <message>\n" to stderr.
void PrintError(std::string_view message);
void PrintError(const absl::Status& status);

// PrintError, then the bad-input exit code (kExitBadInput).
int Fail(std::string_view message);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_ERRORS_H_
