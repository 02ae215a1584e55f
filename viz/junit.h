// JUnit XML, the test-report format CI systems read (GitHub Actions via
// test-reporter actions, GitLab, Jenkins): <testsuites> of <testsuite> of
// <testcase>, each passed, failed (<failure>), in error (<error>) or
// skipped (<skipped>). Deterministic: no timestamps, no host names.
#ifndef MEMPLAN_VIZ_JUNIT_H_
#define MEMPLAN_VIZ_JUNIT_H_

#include <string>
#include <string_view>
#include <vector>

namespace memplan::viz {

struct JUnitCase {
  enum class Outcome { kPass, kFailure, kError, kSkipped };
  std::string name;
  std::string classname;
  Outcome outcome = Outcome::kPass;
  std::string message;  // the failure/error/skip message (an attribute)
  std::string details;  // element text; may be empty
};

struct JUnitSuite {
  std::string name;
  std::vector<JUnitCase> cases;
  std::vector<std::pair<std::string, std::string>> properties;  // in order
};

// The document, with an XML declaration; `name` names the <testsuites>.
std::string RenderJUnit(std::string_view name, const std::vector<JUnitSuite>& suites);

// Escapes &, <, >, " and '; invalid UTF-8 and control characters other than
// tab and newline become U+FFFD (MarkupSafeText), so the result is always
// well-formed XML 1.0 character data.
std::string XmlEscape(std::string_view s);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_JUNIT_H_
