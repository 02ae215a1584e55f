// Line splitting and derived texts shared by input cleaning
// (input_text.cc) and the joining of terminal-wrapped lines
// (wrapped_lines.cc). Internal to parsers/.
#ifndef MEMPLAN_PARSERS_TEXT_LINES_H_
#define MEMPLAN_PARSERS_TEXT_LINES_H_

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/source_text.h"

namespace memplan::parsers {

// Text being derived from another, with the map back to it.
class DerivedBuilder {
 public:
  // Appends `piece`, which starts at `origin` in the text derived from.
  void Append(std::string_view piece, size_t origin) {
    if (piece.empty()) return;
    if (map_.empty() || map_.back().origin + (out_.size() - map_.back().derived) != origin) {
      map_.push_back({out_.size(), origin});
    }
    out_.append(piece);
  }
  // Appends "\n" standing for the line end at `origin`.
  void AppendNewline(size_t origin) { Append("\n", origin); }
  // The "\n" replaces bytes that are not a '\n': map it on its own.
  void AppendReplacedNewline(size_t origin) {
    map_.push_back({out_.size(), origin});
    out_.push_back('\n');
    map_.push_back({out_.size(), origin + 1});
  }

  std::string& text() { return out_; }
  std::vector<SourceText::OffsetMapEntry>& map() { return map_; }

 private:
  std::string out_;
  std::vector<SourceText::OffsetMapEntry> map_;
};

// Length of the ANSI escape sequence at the start of `s` (which starts with
// ESC): CSI "ESC [ params final" or a two-byte "ESC x".
size_t AnsiEscapeLength(std::string_view s);

// Calls `visit(line, line_start, end_length)` for each line of `text`;
// end_length is the line end's byte count (0 for a last line without one).
template <typename Visit>
void ForEachLine(std::string_view text, bool lone_cr_ends_lines, Visit visit) {
  size_t start = 0;
  if (!lone_cr_ends_lines) {
    // Only "\n" ends a line ("\r\n" being one with its '\r'): memchr finds
    // it many bytes at a time (a dump runs to a gigabyte).
    while (start < text.size()) {
      const char* found =
          static_cast<const char*>(std::memchr(text.data() + start, '\n', text.size() - start));
      size_t end = found != nullptr ? static_cast<size_t>(found - text.data()) : text.size();
      size_t end_length = found != nullptr ? 1 : 0;
      if (found != nullptr && end > start && text[end - 1] == '\r') --end, end_length = 2;
      if (!visit(text.substr(start, end - start), start, end_length)) return;
      start = end + end_length;
    }
    return;
  }
  while (start < text.size()) {
    size_t end = start;
    size_t end_length = 0;
    while (end < text.size()) {
      const char c = text[end];
      if (c == '\n') {
        end_length = 1;
        break;
      }
      if (c == '\r') {
        if (end + 1 < text.size() && text[end + 1] == '\n') {
          end_length = 2;
          break;
        }
        if (lone_cr_ends_lines) {
          end_length = 1;
          break;
        }
      }
      ++end;
    }
    if (!visit(text.substr(start, end - start), start, end_length)) return;
    start = end + end_length;
  }
}

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_TEXT_LINES_H_
