// HLO text strings: C-style unescaping and frontend attributes.
#include <string>

#include "absl/status/statusor.h"
#include "parsers/hlo_text_parser.h"
#include "parsers/hlo_text_scanner.h"

namespace memplan::parsers {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string UnescapeHloString(std::string_view escaped) {
  std::string out;
  out.reserve(escaped.size());
  for (size_t i = 0; i < escaped.size(); ++i) {
    const char c = escaped[i];
    if (c != '\\' || i + 1 == escaped.size()) {
      out += c;
      continue;
    }
    const char e = escaped[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\\': case '"': case '\'': case '?': out += e; break;
      case 'x': {
        int value = 0;
        size_t digits = 0;
        while (digits < 2 && i + 1 < escaped.size() && HexValue(escaped[i + 1]) >= 0) {
          value = value * 16 + HexValue(escaped[++i]);
          ++digits;
        }
        if (digits == 0) {
          out += "\\x";  // incomplete: kept as written
        } else {
          out += static_cast<char>(value);
        }
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int value = e - '0';
          for (int k = 0; k < 2 && i + 1 < escaped.size() && escaped[i + 1] >= '0' &&
                          escaped[i + 1] <= '7';
               ++k) {
            value = value * 8 + (escaped[++i] - '0');
          }
          out += static_cast<char>(value & 0xff);
        } else {
          out += '\\';  // unknown escape: kept as written
          out += e;
        }
    }
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseFrontendAttributes(
    std::string_view text) {
  hlo_text::Scanner s(text.data(), text.data() + text.size());
  std::vector<std::pair<std::string, std::string>> out;
  auto fail = [&](std::string_view expected) {
    return absl::InvalidArgumentError(std::string("frontend attributes: expected ") +
                                      std::string(expected) + " at byte " +
                                      std::to_string(s.pos() - text.data()));
  };
  if (!s.Next('{')) return fail("'{'");
  while (true) {
    s.Skip();
    if (s.ConsumeChar('}')) break;
    if (!out.empty() && !s.ConsumeChar(',')) return fail("',' or '}'");
    s.Skip();
    const char* key_start = s.pos();
    while (!s.AtEnd() && s.Peek() != '=' && s.Peek() != ' ' && s.Peek() != ',' && s.Peek() != '}') {
      s.set_pos(s.pos() + 1);
    }
    const std::string key(key_start, static_cast<size_t>(s.pos() - key_start));
    if (key.empty() || !s.Next('=')) return fail("key=value");
    s.Skip();
    std::string value;
    if (s.Peek() == '"') {
      std::string_view inner;
      if (!s.ConsumeQuoted(&inner)) return fail("'\"' closing a value");
      value = UnescapeHloString(inner);
    } else if (s.Peek() == '{') {
      const char* start = s.pos();
      if (!s.SkipBalanced('{', '}')) return fail("'}' closing a value");
      value.assign(start, static_cast<size_t>(s.pos() - start));
    } else {
      return fail("a quoted or braced value");
    }
    out.emplace_back(key, std::move(value));
  }
  s.Skip();
  if (!s.AtEnd()) return fail("the end after '}'");
  return out;
}

}  // namespace memplan::parsers
