// The HTML page shell every memplan HTML view shares: escaping, and one
// self-contained page (inline CSS and a little plain JavaScript, nothing
// fetched: a Content-Security-Policy forbids any network access) made of a
// list of sections.
#ifndef MEMPLAN_VIZ_HTML_PAGE_H_
#define MEMPLAN_VIZ_HTML_PAGE_H_

#include <string>
#include <string_view>
#include <vector>

namespace memplan::viz {

// Text for an HTML element's content or a quoted attribute value: escapes
// & < > " ' and turns a newline into "&#10;" (so tooltips keep lines);
// invalid UTF-8 and other control characters become U+FFFD.
std::string HtmlEscape(std::string_view text);

// A JSON string literal (quotes included) that is safe inside a <script>
// element: '<', '>' and '&' are written as \u escapes; invalid UTF-8 becomes
// U+FFFD.
std::string JsonStringForScript(std::string_view text);

struct HtmlSection {
  std::string id;     // anchor, unique on the page: [a-z0-9-]
  std::string title;  // plain text
  std::string body;   // HTML
};

struct HtmlPage {
  std::string title;     // plain text, for <title> and the heading
  std::string subtitle;  // plain text under the heading; may be empty
  std::vector<HtmlSection> sections;  // in page order; a contents list links them
};

// The whole document. Deterministic: the same page gives the same bytes.
//
// Elements may carry data-tip="text" (escaped, newlines allowed): the page's
// script shows it in a tooltip while the pointer is over them. An <svg> with
// class "timeline" gets a cursor and a tooltip driven by its JSON data (see
// html_timeline_section.cc for the contract).
std::string RenderHtmlPage(const HtmlPage& page);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_HTML_PAGE_H_
