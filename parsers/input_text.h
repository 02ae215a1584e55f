// What people paste is rarely the file a tool wrote: a byte-order mark,
// Windows or old-Mac line ends, colour codes, a log prefix on every line,
// long lines broken by the terminal. These functions undo that before a
// format is sniffed and parsed, as a derived SourceText whose locations
// still point into the file as read (SourceText::Derived), and say what
// they did as data (InputCleanup), for a note.
#ifndef MEMPLAN_PARSERS_INPUT_TEXT_H_
#define MEMPLAN_PARSERS_INPUT_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/notes.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// A prefix a logger puts before every line it writes.
enum class LogPrefixKind : int64_t {
  kNone = 0,
  kRay,            // "(MeshHostWorker pid=489) ", colour codes around it
  kGlog,           // "I1122 10:00:00.123456 1234 file.cc:42] ", "E0000 ..."
  kTensorFlowLog,  // "2020-05-04 09:05:40.719332: E 1578 file.cc:76] "
  kPythonLogging,  // "2024-01-01 10:00:00,000 - INFO - "
};

// A stable keyword for the kind ("glog"), for notes.
std::string_view LogPrefixKindName(LogPrefixKind kind);

// What cleaning changed; all zero when the text was read as it is.
struct InputCleanup {
  bool byte_order_mark = false;
  int64_t crlf_line_ends = 0;
  int64_t cr_line_ends = 0;  // lone '\r's read as line ends
  int64_t colour_codes = 0;  // ANSI escape sequences removed
  LogPrefixKind log_prefix = LogPrefixKind::kNone;
  int64_t prefixed_lines = 0;  // lines the prefix was removed from
  int64_t joined_lines = 0;    // continuation lines joined to the line before
  int64_t wrap_width = 0;      // the terminal width they were wrapped at; 0: none

  bool any() const {
    return byte_order_mark || crlf_line_ends > 0 || cr_line_ends > 0 || colour_codes > 0 ||
           prefixed_lines > 0 || joined_lines > 0;
  }
};

// An ir::Note (kInputCleaned) saying what `cleanup` did, for `file`.
// numbers: {byte-order mark 0/1, CRLF line ends, lone-CR line ends, colour
// codes, prefixed lines, joined lines, wrap width}; texts: {file, prefix kind
// keyword or ""}.
ir::Note CleanupNote(const InputCleanup& cleanup, std::string_view file);

// True when `head` (a file's first bytes) is binary (a NUL byte, or gzip's
// magic): such files are not cleaned.
bool LooksBinary(std::string_view head);

// Removes a UTF-8 byte-order mark, reads "\r\n" (and lone '\r' when those
// are the file's line ends) as "\n", removes ANSI colour codes, and removes
// a log prefix from every line that has it when at least half of the
// non-empty lines among the first few thousand share one kind
// (LogPrefixKind). Returns `raw` itself when there is nothing to do.
// `cleanup` (optional) gets what was done, added to what it holds.
std::shared_ptr<const SourceText> CleanInputText(std::shared_ptr<const SourceText> raw,
                                                 InputCleanup* cleanup);

// How one format's lines begin, for re-joining lines a terminal wrapped.
struct LineRules {
  // A line the format can begin with (a continuation never is one).
  bool (*starts_line)(std::string_view line) = nullptr;
  // Optional: a line that cannot end where it does (an open quote).
  bool (*unfinished)(std::string_view line) = nullptr;
};

// Joins to the line before each line that a terminal broke off it: a line
// the format does not begin (per `rules`) that follows a line that it does
// (or a joined one), when the line before is unfinished, or when its width
// as the file shows it (log prefix included, colour codes not) is the
// terminal width: the width most such breaks share, at least 40 columns.
// Returns `text` itself when nothing is joined.
std::shared_ptr<const SourceText> JoinWrappedLines(std::shared_ptr<const SourceText> text,
                                                   const LineRules& rules,
                                                   InputCleanup* cleanup);

// The path that names standard input.
inline constexpr std::string_view kStandardInputPath = "-";

// Reads standard input to its end, once per process (a second call returns
// the same text), named "<stdin>". InvalidArgument when it holds more than
// `limit` bytes, or cannot be read.
absl::StatusOr<std::shared_ptr<const SourceText>> ReadStandardInput(size_t limit);

// The most standard input may hold.
inline constexpr size_t kStandardInputLimit = size_t{1} << 30;

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_INPUT_TEXT_H_
