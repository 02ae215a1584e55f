#include "fuzz/markup_check.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace memplan::fuzz {
namespace {

using Problem = std::optional<std::string>;

Problem At(size_t offset, std::string_view what) {
  return "byte " + std::to_string(offset) + ": " + std::string(what);
}

// The code point at `text[i]` and its length in bytes; length 0 when the
// bytes there are not well-formed UTF-8 (RFC 3629).
std::pair<uint32_t, size_t> DecodeUtf8(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  size_t length;
  uint32_t cp;
  uint32_t min;
  if ((b0 & 0xE0) == 0xC0) {
    length = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return {0, 0};
  }
  if (i + length > text.size()) return {0, 0};
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
  return {cp, length};
}

bool IsNameStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}
bool IsNameChar(unsigned char c) {
  return IsNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool StartsWithNoCase(std::string_view text, size_t at, std::string_view prefix) {
  if (text.size() - at < prefix.size()) return false;
  for (size_t k = 0; k < prefix.size(); ++k) {
    char c = text[at + k];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[k]) return false;
  }
  return true;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Reads a reference at text[i] == '&'; XML allows only its five names,
// HTML any alphanumeric name. Advances `i` past the ';'.
Problem Reference(std::string_view text, size_t& i, bool html) {
  const size_t start = i++;
  const size_t semi = text.find(';', i);
  if (semi == std::string_view::npos || semi - i > 32 || semi == i) {
    return At(start, "'&' that starts no reference");
  }
  const std::string_view body = text.substr(i, semi - i);
  i = semi + 1;
  if (body[0] == '#') {
    const bool hex = body.size() > 1 && body[1] == 'x';
    const std::string_view digits = body.substr(hex ? 2 : 1);
    if (digits.empty() || digits.size() > 8) return At(start, "bad character reference");
    uint32_t cp = 0;
    for (const char c : digits) {
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (hex && c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (hex && c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return At(start, "bad character reference");
      }
      cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
      if (cp > 0x10FFFF) return At(start, "character reference past U+10FFFF");
    }
    const bool allowed = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                         (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000;
    if (!allowed || (html && cp == 0x7F)) return At(start, "reference to a character not allowed");
    return std::nullopt;
  }
  for (const char c : body) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) return At(start, "'&' that starts no reference");
  }
  if (!html && body != "amp" && body != "lt" && body != "gt" && body != "quot" && body != "apos") {
    return At(start, "reference to an undeclared entity");
  }
  return std::nullopt;
}

// Reads a name at text[i]; empty when none starts there.
std::string_view Name(std::string_view text, size_t& i) {
  const size_t start = i;
  if (i < text.size() && IsNameStart(static_cast<unsigned char>(text[i]))) {
    while (i < text.size() && IsNameChar(static_cast<unsigned char>(text[i]))) ++i;
  }
  return text.substr(start, i - start);
}

void SkipSpace(std::string_view text, size_t& i) {
  while (i < text.size() && IsSpace(text[i])) ++i;
}

// A start tag's attributes up to '>' or "/>", from just after the name.
// Sets `self_closing`. HTML allows bare attribute names and forbids event
// handlers and javascript: URLs.
Problem Attributes(std::string_view text, size_t& i, bool html, bool& self_closing) {
  std::set<std::string> seen;
  while (true) {
    const size_t before = i;
    SkipSpace(text, i);
    if (i >= text.size()) return At(i, "tag not closed");
    if (text[i] == '>') {
      ++i;
      self_closing = false;
      return std::nullopt;
    }
    if (text.substr(i, 2) == "/>") {
      i += 2;
      self_closing = true;
      return std::nullopt;
    }
    if (i == before) return At(i, "expected a space before an attribute");
    const size_t name_at = i;
    const std::string name = Lower(Name(text, i));
    if (name.empty()) return At(i, "expected an attribute name");
    if (!seen.insert(name).second) return At(name_at, "attribute repeated: " + name);
    if (html && name.size() > 2 && name[0] == 'o' && name[1] == 'n') {
      return At(name_at, "event handler attribute: " + name);
    }
    SkipSpace(text, i);
    if (i < text.size() && text[i] != '=') {
      if (!html) return At(i, "expected '=' after an attribute name");
      continue;  // a bare HTML attribute
    }
    ++i;
    SkipSpace(text, i);
    if (i >= text.size() || (text[i] != '"' && text[i] != '\'')) {
      return At(i, "expected a quoted attribute value");
    }
    const char quote = text[i++];
    const size_t value_start = i;
    while (i < text.size() && text[i] != quote) {
      if (text[i] == '<') return At(i, "'<' in an attribute value");
      if (text[i] == '&') {
        if (Problem p = Reference(text, i, html)) return p;
        continue;
      }
      ++i;
    }
    if (i >= text.size()) return At(value_start, "attribute value not closed");
    if (html && (name == "href" || name == "src" || name == "xlink:href" || name == "action")) {
      std::string value = Lower(text.substr(value_start, i - value_start));
      std::erase_if(value, [](char c) { return IsSpace(c); });
      if (value.starts_with("javascript:")) return At(value_start, "javascript: URL");
    }
    ++i;
  }
}

// Text between tags: valid references, no "]]>" in XML.
Problem CharacterData(std::string_view text, size_t& i, bool html) {
  while (i < text.size() && text[i] != '<') {
    if (text[i] == '&') {
      if (Problem p = Reference(text, i, html)) return p;
      continue;
    }
    if (!html && text.substr(i, 3) == "]]>") return At(i, "\"]]>\" in text");
    ++i;
  }
  return std::nullopt;
}

Problem Comment(std::string_view text, size_t& i) {
  const size_t start = i;
  const size_t end = text.find("--", i + 4);
  if (end == std::string_view::npos) return At(start, "comment not closed");
  if (text.substr(end, 3) != "-->") return At(end, "\"--\" inside a comment");
  i = end + 3;
  return std::nullopt;
}

// A DOCTYPE without an internal subset; quoted literals may hold '>'.
Problem Doctype(std::string_view text, size_t& i) {
  const size_t start = i;
  i += 9;
  while (i < text.size() && text[i] != '>') {
    if (text[i] == '[') return At(i, "DOCTYPE with an internal subset");
    if (text[i] == '"' || text[i] == '\'') {
      const size_t close = text.find(text[i], i + 1);
      if (close == std::string_view::npos) return At(i, "DOCTYPE literal not closed");
      i = close;
    }
    ++i;
  }
  if (i >= text.size()) return At(start, "DOCTYPE not closed");
  ++i;
  return std::nullopt;
}

// XML 1.0's Char production, for a decoded code point.
bool XmlChar(uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000;
}

// UTF-8 and the characters XML allows (HTML: no DEL either).
Problem Characters(std::string_view text, bool html) {
  for (size_t i = 0; i < text.size();) {
    const auto [cp, length] = DecodeUtf8(text, i);
    if (length == 0) return At(i, "invalid UTF-8");
    if (!XmlChar(cp) || (html && cp == 0x7F)) return At(i, "character not allowed");
    i += length;
  }
  return std::nullopt;
}

// HTML's void elements: no end tag.
bool HtmlVoid(std::string_view name) {
  static const std::set<std::string_view> kVoid = {"area", "base", "br", "col", "embed", "hr",
                                                    "img", "input", "link", "meta", "source",
                                                    "track", "wbr"};
  return kVoid.contains(name);
}

// The shared tag walk of XML and HTML.
Problem Markup(std::string_view text, bool html) {
  if (Problem p = Characters(text, html)) return p;
  size_t i = 0;
  std::vector<std::string> open;
  bool root_seen = false;
  if (html) {
    if (!StartsWithNoCase(text, 0, "<!doctype html>")) return At(0, "expected <!DOCTYPE html>");
    i = 15;
  } else if (text.starts_with("<?xml")) {
    const size_t end = text.find("?>");
    if (end == std::string_view::npos) return At(0, "XML declaration not closed");
    i = end + 2;
  }
  while (i < text.size()) {
    if (text[i] != '<') {
      const size_t start = i;
      if (Problem p = CharacterData(text, i, html)) return p;
      if (!html && open.empty()) {
        for (size_t k = start; k < i; ++k) {
          if (!IsSpace(text[k])) return At(k, "text outside the root element");
        }
      }
      continue;
    }
    if (text.substr(i, 4) == "<!--") {
      if (Problem p = Comment(text, i)) return p;
    } else if (!html && text.substr(i, 9) == "<![CDATA[") {
      if (open.empty()) return At(i, "CDATA outside the root element");
      const size_t end = text.find("]]>", i + 9);
      if (end == std::string_view::npos) return At(i, "CDATA not closed");
      i = end + 3;
    } else if (!html && text.substr(i, 9) == "<!DOCTYPE") {
      if (root_seen) return At(i, "DOCTYPE after the root element");
      if (Problem p = Doctype(text, i)) return p;
    } else if (!html && text.substr(i, 2) == "<?") {
      const size_t end = text.find("?>", i + 2);
      if (end == std::string_view::npos) return At(i, "processing instruction not closed");
      i = end + 2;
    } else if (text.substr(i, 2) == "</") {
      const size_t at = i;
      i += 2;
      const std::string name = html ? Lower(Name(text, i)) : std::string(Name(text, i));
      SkipSpace(text, i);
      if (name.empty() || i >= text.size() || text[i] != '>') return At(at, "bad end tag");
      ++i;
      if (open.empty() || open.back() != name) {
        return At(at, "end tag </" + name + "> does not match " +
                          (open.empty() ? std::string("any open element") : "<" + open.back() + ">"));
      }
      open.pop_back();
    } else {
      const size_t at = i++;
      const std::string_view raw_name = Name(text, i);
      if (raw_name.empty()) return At(at, "'<' that starts no tag");
      const std::string name = html ? Lower(raw_name) : std::string(raw_name);
      if (!html && open.empty() && root_seen) return At(at, "a second root element");
      root_seen = true;
      bool self_closing = false;
      if (Problem p = Attributes(text, i, html, self_closing)) return p;
      if (html && (name == "script" || name == "style")) {
        // Raw text: ends at the first "</"; nothing in it may look like
        // markup a parser would act on.
        const size_t end = text.find("</", i);
        if (end == std::string_view::npos) return At(at, name + " not closed");
        const std::string_view body = text.substr(i, end - i);
        if (body.find("<!--") != std::string_view::npos) return At(i, "\"<!--\" in " + name);
        if (!StartsWithNoCase(text, end + 2, name)) return At(end, "\"</\" inside " + name);
        i = end;  // the end tag is matched above
        open.push_back(name);
      } else if (!self_closing && !(html && HtmlVoid(name))) {
        open.push_back(name);
      }
    }
  }
  if (!open.empty()) return At(text.size(), "<" + open.back() + "> not closed");
  if (!html && !root_seen) return At(0, "no root element");
  return std::nullopt;
}

}  // namespace

std::optional<std::string> TextProblem(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto [cp, length] = DecodeUtf8(text, i);
    if (length == 0) return At(i, "invalid UTF-8");
    if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7F) {
      return At(i, "control character " + std::to_string(cp));
    }
    i += length;
  }
  return std::nullopt;
}

std::optional<std::string> XmlProblem(std::string_view xml) { return Markup(xml, false); }

std::optional<std::string> HtmlProblem(std::string_view html) {
  if (Problem p = TextProblem(html)) return p;
  return Markup(html, true);
}

std::optional<std::string> DotProblem(std::string_view dot) {
  if (Problem p = TextProblem(dot)) return p;
  size_t i = 0;
  SkipSpace(dot, i);
  const bool strict = dot.substr(i, 7) == "strict ";
  if (strict) i += 7;
  if (dot.substr(i, 7) != "digraph" && dot.substr(i, 5) != "graph") {
    return At(i, "expected digraph or graph");
  }
  std::vector<char> open;
  bool closed = false;
  for (; i < dot.size(); ++i) {
    const char c = dot[i];
    if (closed && !IsSpace(c)) return At(i, "text after the graph's closing brace");
    if (c == '"') {
      const size_t start = i++;
      while (i < dot.size() && dot[i] != '"') {
        if (dot[i] == '\n' || dot[i] == '\r') return At(start, "string not closed on its line");
        if (dot[i] == '\\') {
          ++i;
          if (i >= dot.size() || dot[i] == '\n' || dot[i] == '\r') {
            return At(start, "escape at the end of a string's line");
          }
        }
        ++i;
      }
      if (i >= dot.size()) return At(start, "string not closed");
    } else if (c == '<') {
      return At(i, "HTML-like label");
    } else if (c == '{' || c == '[') {
      open.push_back(c);
    } else if (c == '}' || c == ']') {
      if (open.empty() || open.back() != (c == '}' ? '{' : '[')) return At(i, "unbalanced bracket");
      open.pop_back();
      if (open.empty() && c == '}') closed = true;
    } else if (c == '/' && i + 1 < dot.size() && dot[i + 1] == '/') {
      i = std::min(dot.find('\n', i), dot.size());  // a line comment
    } else if (c == '/' && i + 1 < dot.size() && dot[i + 1] == '*') {
      const size_t end = dot.find("*/", i + 2);
      if (end == std::string_view::npos) return At(i, "comment not closed");
      i = end + 1;
    } else if (c == '#' && (i == 0 || dot[i - 1] == '\n')) {
      return At(i, "preprocessor line");
    }
  }
  if (!closed) return At(dot.size(), "graph not closed");
  return std::nullopt;
}

std::optional<std::string> JsonProblem(std::string_view json) {
  // JSON allows DEL unescaped; the parser refuses raw C0 controls itself.
  for (size_t i = 0; i < json.size();) {
    const size_t length = DecodeUtf8(json, i).second;
    if (length == 0) return At(i, "invalid UTF-8");
    i += length;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) return llvm::toString(parsed.takeError());
  return std::nullopt;
}

}  // namespace memplan::fuzz
