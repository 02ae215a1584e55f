// Writing a command's output: to stdout, or atomically to a file (a temporary
// file beside it, then a rename), so a failed run never leaves half a file.
#ifndef MEMPLAN_CLI_OUTPUT_FILE_H_
#define MEMPLAN_CLI_OUTPUT_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace memplan::cli {

// `path` "-" or empty means stdout. An existing path that is not a regular
// file (/dev/null, a FIFO) is written in place, not replaced.
absl::Status WriteOutput(const std::string& path, std::string_view contents);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_OUTPUT_FILE_H_
