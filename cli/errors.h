// How every subcommand reports an error: "memplan: <message>" on stderr.
#ifndef MEMPLAN_CLI_ERRORS_H_
#define MEMPLAN_CLI_ERRORS_H_

#include <string_view>

#include "absl/status/status.h"

namespace memplan::cli {

// Prints "<prefix><message>\n" to stderr with `message` made safe for a
// terminal (viz::MarkupSafeText: valid UTF-8, no control characters but tab
// and newline), since messages quote names and lines of the input: an escape
// sequence or a carriage return there must not reach the terminal.
void PrintPrefixed(std::string_view prefix, std::string_view message);

// PrintPrefixed("memplan: ", message).
void PrintError(std::string_view message);
void PrintError(const absl::Status& status);

// PrintError, then the bad-input exit code (kExitBadInput).
int Fail(std::string_view message);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_ERRORS_H_
