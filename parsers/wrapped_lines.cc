// JoinWrappedLines (parsers/input_text.h): lines a terminal broke, joined
// back by the width most breaks share.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parsers/input_text.h"
#include "parsers/text_lines.h"

namespace memplan::parsers {
namespace {

// Display width of the root line holding `text`'s byte at `offset`: code
// points, colour codes and line-end bytes not counted.
int64_t RootLineWidth(const SourceText& text, size_t offset) {
  const std::string_view root = text.root().text();
  size_t at = std::min(text.RootOffset(offset), root.size());
  size_t begin = at;
  while (begin > 0 && root[begin - 1] != '\n' && root[begin - 1] != '\r') --begin;
  size_t end = at;
  while (end < root.size() && root[end] != '\n' && root[end] != '\r') ++end;
  int64_t width = 0;
  for (size_t i = begin; i < end;) {
    if (root[i] == '\x1b') {
      i += AnsiEscapeLength(root.substr(i, end - i));
      continue;
    }
    if ((static_cast<unsigned char>(root[i]) & 0xC0) != 0x80) ++width;
    ++i;
  }
  return width;
}

// The widest line of `root` in display columns (as RootLineWidth counts).
int64_t MaxLineWidth(std::string_view root) {
  int64_t widest = 0;
  int64_t width = 0;
  for (size_t i = 0; i < root.size();) {
    const char c = root[i];
    if (c == '\n' || c == '\r') {
      widest = std::max(widest, width);
      width = 0;
      ++i;
    } else if (c == '\x1b') {
      i += AnsiEscapeLength(root.substr(i));
    } else {
      if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
      ++i;
    }
  }
  return std::max(widest, width);
}

// A line break the format's rules say a terminal may have made: where the
// line before it ends, and that line's width as the file shows it.
struct Break {
  size_t line_end = 0;  // offset of the '\n'
  int64_t width = 0;
  bool unfinished = false;
};

// The breaks of `all` (text's whole text) that `rules` allow: a line (begun
// by the format, or itself a continuation) followed by a non-blank line the
// format does not begin, in file order. One pass, no line list: dumps run to
// millions of lines. Releases what it has read from resident memory as it
// goes when the text is large (SourceText::ReleaseResident).
std::vector<Break> FindBreaks(const SourceText& text, const LineRules& rules) {
  const std::string_view all = text.text();
  const auto blank = [](std::string_view s) {
    return s.find_first_not_of(" \t") == std::string_view::npos;
  };
  std::vector<Break> breaks;
  std::string_view previous;
  size_t previous_start = 0;
  bool previous_has_newline = false;
  bool previous_begun = false;
  bool in_run = false;
  // This pass reads a large text once before its parse: what it has read
  // leaves resident memory as it goes (SourceText::ReleaseResident; a no-op
  // unless mapped), so the parse does not start with the whole file
  // resident beside the heap it builds.
  constexpr size_t kReleaseEvery = size_t{8} << 20;
  const bool release = all.size() > 4 * kReleaseEvery;
  size_t released = 0;
  ForEachLine(all, false, [&](std::string_view line, size_t start, size_t end_length) {
    if (release && previous_start - released >= kReleaseEvery) {
      text.ReleaseResident(all.data() + released, all.data() + previous_start);
      released = previous_start;
    }
    const bool is_blank = blank(line);
    const bool starts = !is_blank && rules.starts_line(line);
    if (previous_begun && previous_has_newline && !is_blank && !starts) {
      const size_t end = previous_start + previous.size();
      breaks.push_back({end, RootLineWidth(text, end),
                        rules.unfinished != nullptr && rules.unfinished(previous)});
      in_run = true;
    } else {
      in_run = false;
    }
    previous = line;
    previous_start = start;
    previous_has_newline = end_length > 0;
    previous_begun = !is_blank && (starts || in_run);
    return true;
  });
  if (release) text.ReleaseResident(all.data() + released, all.data() + all.size());
  return breaks;
}

// The terminal width the breaks share: the width (40 columns or more) most
// breaks have, the widest of the tied ones; 0 when no width qualifies, or
// when a single break has it and `root` holds a wider line.
int64_t WrapWidth(const std::vector<Break>& breaks, std::string_view root) {
  std::map<int64_t, int64_t> widths;  // width -> breaks
  for (const Break& b : breaks) {
    if (b.width >= 40) ++widths[b.width];
  }
  int64_t wrap = 0;
  int64_t most = 0;
  for (const auto& [w, count] : widths) {
    if (count >= most) wrap = w, most = count;
  }
  // One break alone is a terminal's only when no line is wider.
  if (most == 1 && MaxLineWidth(root) > wrap) wrap = 0;
  return wrap;
}

// `text` with the '\n's at `joins` (ascending offsets) dropped, each kept
// byte mapped back to its offset in `text`.
std::shared_ptr<const SourceText> DropNewlines(std::shared_ptr<const SourceText> text,
                                               const std::vector<size_t>& joins) {
  const std::string_view all = text->text();
  DerivedBuilder builder;
  builder.text().reserve(all.size());
  size_t from = 0;
  for (size_t newline : joins) {
    builder.Append(all.substr(from, newline - from), from);
    from = newline + 1;
  }
  builder.Append(all.substr(from), from);
  return SourceText::Derived(std::move(text), std::move(builder.text()), std::move(builder.map()),
                             false);
}

}  // namespace

std::shared_ptr<const SourceText> JoinWrappedLines(std::shared_ptr<const SourceText> text,
                                                   const LineRules& rules,
                                                   InputCleanup* cleanup) {
  if (rules.starts_line == nullptr) return text;
  const std::vector<Break> breaks = FindBreaks(*text, rules);
  if (breaks.empty()) return text;
  const int64_t wrap = WrapWidth(breaks, text->root().text());
  std::vector<size_t> joins;  // offsets of the '\n's to drop, ascending
  for (const Break& b : breaks) {
    if ((wrap > 0 && b.width == wrap) || b.unfinished) joins.push_back(b.line_end);
  }
  if (joins.empty()) return text;
  if (cleanup != nullptr) {
    cleanup->joined_lines += static_cast<int64_t>(joins.size());
    cleanup->wrap_width = wrap;
  }
  return DropNewlines(std::move(text), joins);
}

}  // namespace memplan::parsers
