// Writing a command's output: to stdout, or atomically to a file (a temporary
// file beside it, then a rename), so a failed run never leaves half a file.
#ifndef MEMPLAN_CLI_OUTPUT_FILE_H_
#define MEMPLAN_CLI_OUTPUT_FILE_H_

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace llvm {
class raw_ostream;
}  // namespace llvm

namespace memplan::cli {

// `path` "-" or empty means stdout. An existing path that is not a regular
// file (/dev/null, a FIFO) is written in place, not replaced. A SIGTERM,
// SIGINT, SIGHUP, SIGQUIT or SIGPIPE that arrives while the temporary file
// exists removes it before the process dies of that signal (the handlers are
// installed on the first write to a file; an ignored signal stays ignored).
absl::Status WriteOutput(const std::string& path, std::string_view contents);

// The same, with the contents streamed by `write` instead of held in one
// string (for large reports): same destinations, same atomic replacement,
// same errors.
absl::Status WriteOutputWith(const std::string& path,
                             const std::function<void(llvm::raw_ostream&)>& write);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_OUTPUT_FILE_H_
