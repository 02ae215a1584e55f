// Python bytes literals (b'\x08\x03...') and hex text: how Alpa and jaxlib
// users hold serialized OpShardings (declared in parsers/op_sharding.h).
#include <string>
#include <string_view>

#include "ir/status_macros.h"
#include "parsers/op_sharding.h"

namespace memplan::parsers {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}


// Reads a Python bytes literal or hex text from `source`, front to back.
class BytesReader {
 public:
  explicit BytesReader(const SourceText& source) : source_(source), text_(source.text()) {}

  absl::StatusOr<std::string> Read() {
    SkipSpace();
    std::string out;
    if (i_ < text_.size() && (text_[i_] == 'b' || text_[i_] == 'B')) {
      ++i_;
      RETURN_IF_ERROR(Literal(out));
    } else {
      RETURN_IF_ERROR(HexPairs(out));
    }
    SkipSpace();
    if (i_ != text_.size()) return Error(i_, "expected the end of the bytes literal");
    return out;
  }

 private:
  absl::Status Error(size_t at, std::string_view what) const { return source_.ErrorAt(text_.data() + at, what); }

  void SkipSpace() {
    while (i_ < text_.size() && (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\n' || text_[i_] == '\r')) {
      ++i_;
    }
  }

  // After the b: a quoted literal of ASCII characters and escapes.
  absl::Status Literal(std::string& out) {
    if (i_ >= text_.size() || (text_[i_] != '\'' && text_[i_] != '"')) {
      return Error(i_, "expected a quote after b to start a bytes literal");
    }
    const char quote = text_[i_++];
    while (true) {
      if (i_ >= text_.size()) return Error(i_, "expected the closing quote of the bytes literal");
      const char c = text_[i_];
      if (c == quote) {
        ++i_;
        return absl::OkStatus();
      }
      if (static_cast<unsigned char>(c) >= 0x80) return Error(i_, "expected ASCII characters in a bytes literal");
      if (c != '\\') {
        out += c;
        ++i_;
        continue;
      }
      RETURN_IF_ERROR(Escape(out));
    }
  }

  // At a backslash: \xHH, up to three octal digits, a one-letter escape or
  // a line continuation.
  absl::Status Escape(std::string& out) {
    const size_t escape = i_++;
    if (i_ >= text_.size()) return Error(escape, "expected an escape after '\\'");
    const char e = text_[i_++];
    if (e == 'x') {
      const int hi = i_ < text_.size() ? HexValue(text_[i_]) : -1;
      const int lo = i_ + 1 < text_.size() ? HexValue(text_[i_ + 1]) : -1;
      if (hi < 0 || lo < 0) return Error(escape, "expected two hex digits after \\x");
      out += static_cast<char>(hi * 16 + lo);
      i_ += 2;
      return absl::OkStatus();
    }
    if (e >= '0' && e <= '7') {
      int value = e - '0';
      for (int k = 0; k < 2 && i_ < text_.size() && text_[i_] >= '0' && text_[i_] <= '7'; ++k) {
        value = value * 8 + (text_[i_++] - '0');
      }
      out += static_cast<char>(value & 0xff);
      return absl::OkStatus();
    }
    static constexpr std::string_view kFrom = "nrtabfv\\'\"\n";
    static constexpr std::string_view kTo = "\n\r\t\a\b\f\v\\'\"";
    const size_t k = kFrom.find(e);
    if (k == std::string_view::npos) {
      return Error(escape, "expected a Python bytes escape (\\xHH, \\n, \\\\, ...)");
    }
    if (k < kTo.size()) out += kTo[k];  // the last, a newline, is a line continuation
    return absl::OkStatus();
  }

  // Hex digit pairs, optionally "0x"-prefixed.
  absl::Status HexPairs(std::string& out) {
    if (text_.substr(i_, 2) == "0x") i_ += 2;
    const size_t start = i_;
    while (i_ < text_.size() && HexValue(text_[i_]) >= 0) {
      if (i_ + 1 >= text_.size() || HexValue(text_[i_ + 1]) < 0) return Error(i_, "expected hex digits in pairs");
      out += static_cast<char>(HexValue(text_[i_]) * 16 + HexValue(text_[i_ + 1]));
      i_ += 2;
    }
    if (i_ == start) {
      SkipSpace();
      if (i_ < text_.size()) return Error(i_, "expected a bytes literal b'...' or hex digits");
    }
    return absl::OkStatus();
  }

  const SourceText& source_;
  std::string_view text_;
  size_t i_ = 0;
};

}  // namespace

absl::StatusOr<std::string> ParsePythonBytesLiteral(const SourceText& source) {
  return BytesReader(source).Read();
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
