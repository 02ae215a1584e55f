// Python bytes literals (b'\x08\x03...') and hex text: how Alpa and jaxlib
// users hold serialized OpShardings (declared in parsers/op_sharding.h).
#include <string>
#include <string_view>

#include "parsers/op_sharding.h"

namespace memplan::parsers {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}


}  // namespace

absl::StatusOr<std::string> ParsePythonBytesLiteral(const SourceText& source) {
  const std::string_view text = source.text();
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
  };
  skip_space();
  std::string out;
  if (i < text.size() && (text[i] == 'b' || text[i] == 'B')) {
    ++i;
    if (i >= text.size() || (text[i] != '\'' && text[i] != '"')) {
      return source.ErrorAt(text.data() + i, "expected a quote after b to start a bytes literal");
    }
    const char quote = text[i++];
    while (true) {
      if (i >= text.size()) return source.ErrorAt(text.data() + i, "expected the closing quote of the bytes literal");
      const char c = text[i];
      if (c == quote) {
        ++i;
        break;
      }
      if (static_cast<unsigned char>(c) >= 0x80) {
        return source.ErrorAt(text.data() + i, "expected ASCII characters in a bytes literal");
      }
      if (c != '\\') {
        out += c;
        ++i;
        continue;
      }
      const size_t escape = i++;
      if (i >= text.size()) return source.ErrorAt(text.data() + escape, "expected an escape after '\\'");
      const char e = text[i++];
      switch (e) {
        case 'x': {
          const int hi = i < text.size() ? HexValue(text[i]) : -1;
          const int lo = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
          if (hi < 0 || lo < 0) return source.ErrorAt(text.data() + escape, "expected two hex digits after \\x");
          out += static_cast<char>(hi * 16 + lo);
          i += 2;
          break;
        }
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'v': out += '\v'; break;
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case '\n': break;  // a line continuation
        default:
          if (e >= '0' && e <= '7') {
            // Up to three octal digits.
            int value = e - '0';
            for (int k = 0; k < 2 && i < text.size() && text[i] >= '0' && text[i] <= '7'; ++k) {
              value = value * 8 + (text[i++] - '0');
            }
            out += static_cast<char>(value & 0xff);
          } else {
            return source.ErrorAt(text.data() + escape, "expected a Python bytes escape (\\xHH, \\n, \\\\, ...)");
          }
      }
    }
  } else {
    // Hex digit pairs, optionally "0x"-prefixed.
    if (text.substr(i, 2) == "0x") i += 2;
    const size_t start = i;
    while (i < text.size() && HexValue(text[i]) >= 0) {
      if (i + 1 >= text.size() || HexValue(text[i + 1]) < 0) {
        return source.ErrorAt(text.data() + i, "expected hex digits in pairs");
      }
      out += static_cast<char>(HexValue(text[i]) * 16 + HexValue(text[i + 1]));
      i += 2;
    }
    if (i == start) {
      skip_space();
      if (i < text.size()) return source.ErrorAt(text.data() + i, "expected a bytes literal b'...' or hex digits");
    }
  }
  skip_space();
  if (i != text.size()) return source.ErrorAt(text.data() + i, "expected the end of the bytes literal");
  return out;
}

std::string PythonBytesRepr(std::string_view bytes) {
  // Python picks double quotes when the bytes hold ' but not ".
  const bool has_single = bytes.find('\'') != std::string_view::npos;
  const bool has_double = bytes.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out = "b";
  out += quote;
  static constexpr char kHex[] = "0123456789abcdef";
  for (char ch : bytes) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == static_cast<unsigned char>(quote)) {
      out += '\\';
      out += ch;
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  out += quote;
  return out;
}

}  // namespace memplan::parsers
