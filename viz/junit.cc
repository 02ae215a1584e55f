#include "viz/junit.h"

#include <cstdint>

#include "ir/strings.h"
#include "viz/format.h"

namespace memplan::viz {
namespace {

struct Counts {
  int64_t tests = 0;
  int64_t failures = 0;
  int64_t errors = 0;
  int64_t skipped = 0;
  void Add(const JUnitCase& c) {
    ++tests;
    if (c.outcome == JUnitCase::Outcome::kFailure) ++failures;
    if (c.outcome == JUnitCase::Outcome::kError) ++errors;
    if (c.outcome == JUnitCase::Outcome::kSkipped) ++skipped;
  }
  void Add(const Counts& c) {
    tests += c.tests;
    failures += c.failures;
    errors += c.errors;
    skipped += c.skipped;
  }
  std::string Attributes(bool with_skipped) const {
    std::string out = StrCat(" tests=\"", tests, "\" failures=\"", failures, "\" errors=\"",
                             errors, "\"");
    if (with_skipped) StrAppend(&out, " skipped=\"", skipped, "\"");
    return out;
  }
};

}  // namespace

std::string XmlEscape(std::string_view text) {
  const std::string s = MarkupSafeText(text);
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 allows tab, newline and carriage return below 0x20.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        out += ch;
    }
  }
  return out;
}

std::string RenderJUnit(std::string_view name, const std::vector<JUnitSuite>& suites) {
  Counts total;
  std::string body;
  for (const JUnitSuite& suite : suites) {
    Counts counts;
    for (const JUnitCase& c : suite.cases) counts.Add(c);
    total.Add(counts);
    StrAppend(&body, "  <testsuite name=\"", XmlEscape(suite.name), "\"",
              counts.Attributes(/*with_skipped=*/true), ">\n");
    if (!suite.properties.empty()) {
      body += "    <properties>\n";
      for (const auto& [key, value] : suite.properties) {
        StrAppend(&body, "      <property name=\"", XmlEscape(key), "\" value=\"",
                  XmlEscape(value), "\"/>\n");
      }
      body += "    </properties>\n";
    }
    for (const JUnitCase& c : suite.cases) {
      StrAppend(&body, "    <testcase name=\"", XmlEscape(c.name), "\" classname=\"",
                XmlEscape(c.classname), "\"");
      const char* element = nullptr;
      switch (c.outcome) {
        case JUnitCase::Outcome::kPass:
          break;
        case JUnitCase::Outcome::kFailure:
          element = "failure";
          break;
        case JUnitCase::Outcome::kError:
          element = "error";
          break;
        case JUnitCase::Outcome::kSkipped:
          element = "skipped";
          break;
      }
      if (element == nullptr) {
        body += "/>\n";
        continue;
      }
      StrAppend(&body, ">\n      <", element, " message=\"", XmlEscape(c.message), "\"");
      if (c.outcome == JUnitCase::Outcome::kFailure) body += " type=\"budget\"";
      if (c.details.empty()) {
        body += "/>\n";
      } else {
        StrAppend(&body, ">", XmlEscape(c.details), "</", element, ">\n");
      }
      body += "    </testcase>\n";
    }
    body += "  </testsuite>\n";
  }
  return StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"",
                XmlEscape(name), "\"", total.Attributes(/*with_skipped=*/false), ">\n", body,
                "</testsuites>\n");
}

}  // namespace memplan::viz
