// Where a line-by-line parser stands in its input, and the located warnings
// and errors that follow from it. Parser states derive from it.
#ifndef MEMPLAN_PARSERS_LINE_POSITION_H_
#define MEMPLAN_PARSERS_LINE_POSITION_H_

#include <cstdint>
#include <cstring>
#include <string_view>

#include "absl/status/status.h"
#include "ir/diagnostics.h"
#include "ir/strings.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

struct LinePosition {
  const SourceText* source = nullptr;
  int64_t line_number = 0;           // 1-based, of the current line
  const char* line_start = nullptr;  // first byte of the current line

  // Takes the next line off the front of `text` (without its "\n" or
  // "\r\n"), making it the current line. False when `text` is empty.
  bool NextLine(std::string_view& text, std::string_view* line) {
    if (text.empty()) return false;
    const char* newline = static_cast<const char*>(std::memchr(text.data(), '\n', text.size()));
    const size_t length = newline ? static_cast<size_t>(newline - text.data()) : text.size();
    *line = text.substr(0, length);
    text.remove_prefix(newline ? length + 1 : length);
    ++line_number;
    line_start = line->data();
    if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
    return true;
  }

  // "file:line:col" of `at`, a pointer into the line numbered `line` that
  // starts at `start`: from the parse's own line count, without counting the
  // text's lines again (a derived text, parsers/input_text.h, locates into
  // the file as read).
  std::string LocationAt(const char* at, int64_t line, const char* start) const {
    if (source->origin() != nullptr) return source->LocationString(at);
    return StrCat(source->name(), ":", line, ":", at - start + 1);
  }
  // The same for a pointer into the current line.
  std::string LocationInLine(const char* at) const {
    return LocationAt(at, line_number, line_start);
  }

  // Counts a recoverable problem at `at` (a pointer into the current line);
  // the location string is built only for a kind's first occurrence.
  void WarnAt(ir::Diagnostics& diagnostics, std::string_view kind, const char* at) const {
    diagnostics.Warn(kind, [&] { return LocationInLine(at); });
  }
  // "file:line:col: error: <expected>", with the line and a caret.
  absl::Status Error(const char* at, std::string_view expected) const {
    return source->ErrorAt(at, expected);
  }
};

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_LINE_POSITION_H_
