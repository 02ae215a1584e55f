#include "viz/format.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_join.h"
#include "ir/strings.h"
#include "parsers/utf8.h"

namespace memplan::viz {

std::string HumanBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  const bool negative = bytes < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(bytes) : bytes;
  if (magnitude < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(magnitude);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%s%.2f %s", negative ? "-" : "", value, kUnits[unit]);
  return buffer;
}

std::string GroupedBytes(int64_t bytes) {
  const bool negative = bytes < 0;
  std::string digits = std::to_string(negative ? 0 - static_cast<uint64_t>(bytes)
                                               : static_cast<uint64_t>(bytes));
  std::string out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

std::string HumanSeconds(double s) {
  char buffer[64];
  if (s >= 1) {
    std::snprintf(buffer, sizeof(buffer), "%.3f s", s);
  } else if (s >= 1e-3) {
    std::snprintf(buffer, sizeof(buffer), "%.3f ms", s * 1e3);
  } else if (s >= 1e-6) {
    std::snprintf(buffer, sizeof(buffer), "%.3f us", s * 1e6);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.1f ns", s * 1e9);
  }
  return buffer;
}

double ChangePercent(int64_t now, int64_t before) {
  return before == 0 ? 0.0 : 100.0 * static_cast<double>(now - before) / static_cast<double>(before);
}

std::string SignedPercent(double percent) {
  if (percent > -0.005 && percent < 0.005) return "0.00%";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%+.2f%%", percent);
  return buffer;
}

std::string Percent(double percent) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f%%", percent);
  return buffer;
}

std::string AllocationKindLabel(const ir::Allocation& a) {
  std::vector<std::string> kinds;
  if (a.is_entry_parameter()) kinds.push_back(StrCat("argument ", *a.parameter_number));
  if (a.output_shape_text) {
    kinds.push_back("output tuple");
  } else if (a.maybe_live_out) {
    kinds.push_back("output");
  }
  if (a.is_preallocated_temp) kinds.push_back("temp");
  if (a.is_constant) kinds.push_back("constant");
  if (a.is_thread_local) kinds.push_back("thread-local");
  if (a.color != 0) kinds.push_back(StrCat("color ", a.color));
  return kinds.empty() ? "other" : absl::StrJoin(kinds, ", ");
}

std::string MarkupSafeText(std::string_view text) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const size_t valid = parsers::FirstInvalidUtf8(text);
    for (const char c : text.substr(0, valid)) {
      const unsigned char u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t' && c != '\n') || u == 0x7F) {
        out += kReplacement;
      } else {
        out += c;
      }
    }
    if (valid == text.size()) break;
    out += kReplacement;
    text.remove_prefix(valid + 1);
  }
  return out;
}

std::string_view Utf8Prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  // Back up over continuation bytes to the start of the cut sequence.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

namespace {

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The byte offset after the first `columns` code points of `text`.
size_t PrefixBytes(std::string_view text, size_t columns) {
  size_t i = 0;
  for (size_t seen = 0; i < text.size(); ++i) {
    if (IsContinuation(text[i])) continue;
    if (seen == columns) break;
    ++seen;
  }
  return i;
}

}  // namespace

size_t DisplayWidth(std::string_view text) {
  size_t n = 0;
  for (const char c : text) n += IsContinuation(c) ? 0 : 1;
  return n;
}

std::string ElideMiddle(std::string_view text, size_t width) {
  const size_t have = DisplayWidth(text);
  if (have <= width) return std::string(text);
  if (width < 4) {
    // The end alone: the part of a name that differs most.
    return std::string(text.substr(PrefixBytes(text, have - width)));
  }
  const size_t keep = width - 3;
  const size_t head = (keep + 1) / 2;
  const size_t tail = keep - head;
  return StrCat(text.substr(0, PrefixBytes(text, head)), "...",
                text.substr(PrefixBytes(text, have - tail)));
}

std::string ElideStart(std::string_view text, size_t width) {
  const size_t have = DisplayWidth(text);
  if (have <= width) return std::string(text);
  if (width < 4) return std::string(text.substr(PrefixBytes(text, have - width)));
  return StrCat("...", text.substr(PrefixBytes(text, have - (width - 3))));
}

std::string WrapText(std::string_view text, size_t width, std::string_view indent,
                     size_t first_column) {
  if (width == 0) return std::string(text);
  std::string out;
  size_t column = first_column;
  bool line_empty = true;
  const size_t indent_width = DisplayWidth(indent);
  while (!text.empty()) {
    const size_t space = text.find(' ');
    std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    if (word.empty()) continue;
    const size_t need = DisplayWidth(word) + (line_empty ? 0 : 1);
    if (!line_empty && column + need > width) {
      StrAppend(&out, "\n", indent);
      column = indent_width;
      line_empty = true;
    }
    const size_t room = width > column + (line_empty ? 0 : 1) ? width - column - (line_empty ? 0 : 1) : 0;
    const std::string fitted = DisplayWidth(word) > room && room >= 4 ? ElideMiddle(word, room)
                                                                       : std::string(word);
    StrAppend(&out, line_empty ? "" : " ", fitted);
    column += DisplayWidth(fitted) + (line_empty ? 0 : 1);
    line_empty = false;
  }
  return out;
}

}  // namespace memplan::viz
