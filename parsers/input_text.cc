#include "parsers/input_text.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "ir/strings.h"
#include "parsers/text_lines.h"

namespace memplan::parsers {
namespace {

using MapEntry = SourceText::OffsetMapEntry;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// ------------------------------------------------------------ log prefixes

// A cursor over a candidate prefix; every step fails once one has.
struct PrefixScan {
  std::string_view s;
  size_t n = 0;
  bool ok = true;

  bool AtEnd() const { return n >= s.size(); }
  char Peek() const { return n < s.size() ? s[n] : '\0'; }
  void Char(char c) {
    if (ok && Peek() == c) {
      ++n;
    } else {
      ok = false;
    }
  }
  void Digits(size_t at_least, size_t at_most = 64) {
    size_t k = 0;
    while (ok && k < at_most && IsDigit(Peek())) ++n, ++k;
    if (k < at_least) ok = false;
  }
  void Spaces(size_t at_least) {
    size_t k = 0;
    while (ok && Peek() == ' ') ++n, ++k;
    if (k < at_least) ok = false;
  }
  void AnyOf(std::string_view chars) {
    if (ok && !AtEnd() && chars.find(Peek()) != std::string_view::npos) {
      ++n;
    } else {
      ok = false;
    }
  }
  // [0-9:.,]+
  void Time() {
    size_t k = 0;
    while (ok && (IsDigit(Peek()) || Peek() == ':' || Peek() == '.' || Peek() == ',')) ++n, ++k;
    if (k == 0) ok = false;
  }
  // "file.cc:42]" then one space, or the line's end.
  void SourceLocationEnd() {
    if (!ok) return;
    const size_t close = s.find(']', n);
    if (close == std::string_view::npos || close == n) {
      ok = false;
      return;
    }
    const std::string_view location = s.substr(n, close - n);
    const size_t colon = location.rfind(':');
    if (location.find(' ') != std::string_view::npos || colon == std::string_view::npos ||
        colon + 1 >= location.size() ||
        location.find_first_not_of("0123456789", colon + 1) != std::string_view::npos) {
      ok = false;
      return;
    }
    n = close + 1;
    if (Peek() == ' ') ++n;
    else if (!AtEnd()) ok = false;
  }
  // "YYYY-MM-DD"
  void Date() {
    Digits(4, 4);
    Char('-');
    Digits(2, 2);
    Char('-');
    Digits(2, 2);
  }
  size_t Result() const { return ok ? n : 0; }
};

// "I1122 10:00:00.123456 1234 file.cc:42] ", "E0000 00:00:1700000000.1 9 f.cc:1] "
size_t MatchGlog(std::string_view line) {
  PrefixScan p{line};
  p.AnyOf("IWEF");
  p.Digits(4, 4);
  p.Char(' ');
  p.Time();
  p.Spaces(1);
  p.Digits(1);
  p.Char(' ');
  p.SourceLocationEnd();
  return p.Result();
}

// "2020-05-04 09:05:40.719332: E    1578 tensorflow/x.cc:76] "
size_t MatchTensorFlowLog(std::string_view line) {
  PrefixScan p{line};
  p.Date();
  p.Char(' ');
  p.Time();
  if (p.ok && p.n > 0 && line[p.n - 1] == ':') {
    // Time() took the ':' that ends the timestamp.
  } else {
    p.Char(':');
  }
  p.Char(' ');
  p.AnyOf("IWEF");
  p.Spaces(1);
  if (p.ok && IsDigit(p.Peek())) {
    PrefixScan thread = p;
    thread.Digits(1);
    thread.Spaces(1);
    if (thread.ok) p = thread;
  }
  p.SourceLocationEnd();
  return p.Result();
}

// "2024-01-01 10:00:00,000 - INFO - " or "... - name - WARNING - "
size_t MatchPythonLogging(std::string_view line) {
  PrefixScan p{line};
  p.Date();
  p.Char(' ');
  p.Time();
  p.Char(' ');
  p.Char('-');
  p.Char(' ');
  if (!p.ok) return 0;
  // The level within the next few fields.
  static constexpr std::array<std::string_view, 6> kLevels = {
      "DEBUG - ", "INFO - ", "WARNING - ", "WARN - ", "ERROR - ", "CRITICAL - "};
  size_t at = p.n;
  for (int field = 0; field < 3 && at < line.size(); ++field) {
    for (std::string_view level : kLevels) {
      if (line.substr(at, level.size()) == level) return at + level.size();
    }
    const size_t next = line.find(" - ", at);
    if (next == std::string_view::npos) return 0;
    at = next + 3;
  }
  return 0;
}

// Colour codes whose ESC was lost in a paste: "[2m[36m".
size_t SkipBareColourCodes(std::string_view s, size_t n) {
  while (n < s.size() && s[n] == '[') {
    size_t k = n + 1;
    while (k < s.size() && (IsDigit(s[k]) || s[k] == ';')) ++k;
    if (k >= s.size() || s[k] != 'm' || k == n + 1) break;
    n = k + 1;
  }
  return n;
}

// "(MeshHostWorker pid=489) ", "(pid=12, ip=10.0.0.1) ", possibly inside
// colour codes that lost their ESC.
size_t MatchRay(std::string_view line) {
  size_t n = SkipBareColourCodes(line, 0);
  if (n >= line.size() || line[n] != '(') return 0;
  const size_t close = line.find(')', n);
  if (close == std::string_view::npos) return 0;
  const std::string_view inside = line.substr(n + 1, close - n - 1);
  if (inside.find('(') != std::string_view::npos) return 0;
  const size_t pid = inside.find("pid=");
  const size_t ip = inside.find("ip=");
  const bool pid_ok = pid != std::string_view::npos && pid + 4 < inside.size() &&
                      IsDigit(inside[pid + 4]) && (pid == 0 || inside[pid - 1] == ' ');
  const bool ip_ok = ip != std::string_view::npos && ip + 3 < inside.size() &&
                     IsDigit(inside[ip + 3]);
  if (!pid_ok && !ip_ok) return 0;
  n = SkipBareColourCodes(line, close + 1);
  if (n < line.size()) {
    if (line[n] != ' ') return 0;
    ++n;
  }
  return n;
}

size_t MatchPrefix(LogPrefixKind kind, std::string_view line) {
  switch (kind) {
    case LogPrefixKind::kRay:
      return MatchRay(line);
    case LogPrefixKind::kGlog:
      return MatchGlog(line);
    case LogPrefixKind::kTensorFlowLog:
      return MatchTensorFlowLog(line);
    case LogPrefixKind::kPythonLogging:
      return MatchPythonLogging(line);
    case LogPrefixKind::kNone:
      break;
  }
  return 0;
}

constexpr LogPrefixKind kPrefixKinds[] = {LogPrefixKind::kRay, LogPrefixKind::kGlog,
                                          LogPrefixKind::kTensorFlowLog,
                                          LogPrefixKind::kPythonLogging};

// Removes colour codes from `line` (starting at `origin`): the text, and for
// each kept run where it starts in the line and in the origin.
struct CleanLine {
  std::string text;
  std::vector<MapEntry> runs;  // derived = offset in text, origin = offset in file
};
int64_t RemoveColourCodes(std::string_view line, size_t origin, CleanLine& out) {
  out.text.clear();
  out.runs.clear();
  int64_t removed = 0;
  size_t at = 0;
  while (at < line.size()) {
    const size_t esc = line.find('\x1b', at);
    const size_t end = esc == std::string_view::npos ? line.size() : esc;
    if (end > at) {
      out.runs.push_back({out.text.size(), origin + at});
      out.text.append(line.substr(at, end - at));
    }
    if (esc == std::string_view::npos) break;
    at = esc + AnsiEscapeLength(line.substr(esc));
    ++removed;
  }
  return removed;
}

// Appends out.text from `from` on, mapped through its runs.
void AppendClean(const CleanLine& line, size_t from, DerivedBuilder& builder) {
  for (size_t r = 0; r < line.runs.size(); ++r) {
    const size_t begin = line.runs[r].derived;
    const size_t end = r + 1 < line.runs.size() ? line.runs[r + 1].derived : line.text.size();
    if (end <= from) continue;
    const size_t skip = from > begin ? from - begin : 0;
    builder.Append(std::string_view(line.text).substr(begin + skip, end - begin - skip),
                   line.runs[r].origin + skip);
  }
}

LogPrefixKind DetectPrefix(std::string_view text, bool lone_cr_ends_lines) {
  constexpr int kLinesSampled = 4000;
  std::map<LogPrefixKind, int64_t> counts;
  int64_t non_empty = 0;
  int lines = 0;
  CleanLine clean;
  ForEachLine(text, lone_cr_ends_lines, [&](std::string_view line, size_t start, size_t) {
    if (line.find_first_not_of(" \t") != std::string_view::npos) {
      ++non_empty;
      RemoveColourCodes(line, start, clean);
      for (LogPrefixKind kind : kPrefixKinds) {
        if (MatchPrefix(kind, clean.text) > 0) {
          ++counts[kind];
          break;
        }
      }
    }
    return ++lines < kLinesSampled;
  });
  LogPrefixKind best = LogPrefixKind::kNone;
  int64_t best_count = 0;
  for (const auto& [kind, count] : counts) {
    if (count > best_count) best = kind, best_count = count;
  }
  if (best_count < 2 || 2 * best_count < non_empty) return LogPrefixKind::kNone;
  return best;
}

}  // namespace

std::string_view LogPrefixKindName(LogPrefixKind kind) {
  switch (kind) {
    case LogPrefixKind::kNone:
      return "";
    case LogPrefixKind::kRay:
      return "ray";
    case LogPrefixKind::kGlog:
      return "glog";
    case LogPrefixKind::kTensorFlowLog:
      return "tensorflow-log";
    case LogPrefixKind::kPythonLogging:
      return "python-logging";
  }
  return "";
}

ir::Note CleanupNote(const InputCleanup& c, std::string_view file) {
  return ir::Note{ir::NoteCode::kInputCleaned,
                  {c.byte_order_mark ? 1 : 0, c.crlf_line_ends, c.cr_line_ends, c.colour_codes,
                   c.prefixed_lines, c.joined_lines, c.wrap_width},
                  {std::string(file), std::string(LogPrefixKindName(c.log_prefix))}};
}

bool LooksBinary(std::string_view head) {
  head = head.substr(0, 4096);
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b) {
    return true;
  }
  return head.find('\0') != std::string_view::npos;
}

namespace {

// Whether `source`'s text holds a '\r' and an ESC byte. A large text is
// searched a chunk at a time, each chunk's pages released after it
// (SourceText::ReleaseResident: a no-op unless mapped): the search reads the
// whole file before the parse starts, and the parse releases only what it
// has itself read, so the whole file stayed resident through the first part
// of the parse, on top of the parse's growing heap (the peak of `analyze` on
// a large dump once the dump is released after its parse).
void FindCrAndEscape(const SourceText& source, bool* has_cr, bool* has_escape) {
  const std::string_view text = source.text();
  constexpr size_t kChunk = size_t{8} << 20;
  const bool release = text.size() > 4 * kChunk;
  *has_cr = false;
  *has_escape = false;
  for (size_t at = 0; at < text.size() && !(*has_cr && *has_escape); at += kChunk) {
    const size_t n = std::min(kChunk, text.size() - at);
    if (!*has_cr) *has_cr = std::memchr(text.data() + at, '\r', n) != nullptr;
    if (!*has_escape) *has_escape = std::memchr(text.data() + at, '\x1b', n) != nullptr;
    if (release) source.ReleaseResident(text.data() + at, text.data() + at + n);
  }
}

}  // namespace

std::shared_ptr<const SourceText> CleanInputText(std::shared_ptr<const SourceText> raw,
                                                 InputCleanup* cleanup) {
  const std::string_view text = raw->text();
  if (LooksBinary(text)) return raw;
  const bool bom = text.starts_with("\xEF\xBB\xBF");
  bool has_cr = false;
  bool has_escape = false;
  FindCrAndEscape(*raw, &has_cr, &has_escape);
  // Lone '\r's end lines when they outnumber the '\n's (an old-Mac file).
  int64_t lone_cr = 0;
  int64_t newlines = 0;
  if (has_cr) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') ++newlines;
      if (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n')) ++lone_cr;
    }
  }
  const bool lone_cr_ends_lines = lone_cr > newlines;
  const std::string_view body = text.substr(bom ? 3 : 0);
  const LogPrefixKind prefix = DetectPrefix(body, lone_cr_ends_lines);
  if (!bom && !has_cr && !has_escape && prefix == LogPrefixKind::kNone) return raw;

  InputCleanup done;
  done.byte_order_mark = bom;
  done.log_prefix = prefix;
  DerivedBuilder builder;
  builder.text().reserve(text.size());
  const size_t base = bom ? 3 : 0;
  CleanLine clean;
  ForEachLine(body, lone_cr_ends_lines, [&](std::string_view line, size_t start, size_t end_length) {
    done.colour_codes += RemoveColourCodes(line, base + start, clean);
    size_t from = 0;
    if (prefix != LogPrefixKind::kNone) {
      from = MatchPrefix(prefix, clean.text);
      if (from > 0) ++done.prefixed_lines;
    }
    AppendClean(clean, from, builder);
    const size_t end = base + start + line.size();
    if (end_length == 1 && text[end] == '\n') {
      builder.AppendNewline(end);
    } else if (end_length > 0) {
      if (end_length == 2) ++done.crlf_line_ends;
      else ++done.cr_line_ends;
      builder.AppendReplacedNewline(end);
      if (end_length == 2) builder.map().back().origin = end + 2;
    }
    return true;
  });
  if (cleanup != nullptr) {
    cleanup->byte_order_mark = cleanup->byte_order_mark || done.byte_order_mark;
    cleanup->crlf_line_ends += done.crlf_line_ends;
    cleanup->cr_line_ends += done.cr_line_ends;
    cleanup->colour_codes += done.colour_codes;
    if (done.prefixed_lines > 0) cleanup->log_prefix = done.log_prefix;
    cleanup->prefixed_lines += done.prefixed_lines;
  }
  return SourceText::Derived(std::move(raw), std::move(builder.text()), std::move(builder.map()),
                             lone_cr_ends_lines);
}

size_t AnsiEscapeLength(std::string_view s) {
  if (s.size() < 2) return s.size();
  if (s[1] != '[') return 2;
  size_t n = 2;
  while (n < s.size() && static_cast<unsigned char>(s[n]) >= 0x20 &&
         static_cast<unsigned char>(s[n]) <= 0x3F) {
    ++n;
  }
  while (n < s.size() && static_cast<unsigned char>(s[n]) >= 0x20 &&
         static_cast<unsigned char>(s[n]) <= 0x2F) {
    ++n;
  }
  if (n < s.size() && static_cast<unsigned char>(s[n]) >= 0x40 &&
      static_cast<unsigned char>(s[n]) <= 0x7E) {
    ++n;
  }
  return n;
}

absl::StatusOr<std::shared_ptr<const SourceText>> ReadStandardInput(size_t limit) {
  static std::mutex mutex;
  static std::shared_ptr<const SourceText> read;
  static std::string error;
  std::lock_guard<std::mutex> lock(mutex);
  if (!read && error.empty()) {
    std::string contents;
    char buffer[1 << 16];
    while (true) {
      const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n < 0) {
        if (errno == EINTR) continue;
        error = StrCat("<stdin>: cannot read: ", std::strerror(errno));
        break;
      }
      if (n == 0) break;
      if (contents.size() + static_cast<size_t>(n) > limit) {
        error = StrCat("<stdin>: more than ", limit,
                       " bytes on standard input; save it to a file and pass its path");
        break;
      }
      contents.append(buffer, static_cast<size_t>(n));
    }
    if (error.empty()) read = SourceText::FromString("<stdin>", contents);
  }
  if (!error.empty()) return absl::InvalidArgumentError(error);
  return read;
}

}  // namespace memplan::parsers
