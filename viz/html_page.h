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
// element: '<', '>' and '&' are written as \u escapes, as is every control
// character (U+0000-U+001F, U+007F); invalid UTF-8 becomes U+FFFD.
std::string JsonStringForScript(std::string_view text);

// `text` cut to at most `max_chars` characters (code points) by replacing its
// middle with "…", so both ends stay readable; `text` itself when it fits.
std::string HtmlElideMiddle(std::string_view text, size_t max_chars);

// Escaped `text`, elided in the middle to `max_chars`; when elided, wrapped in
// <span title="the whole text"> so the page still holds it.
std::string ElidedHtml(std::string_view text, size_t max_chars);

// Table cells shared by the HTML views: text escaped here; HtmlTdElided
// cuts a long name in the middle and keeps the whole in a title attribute.
std::string HtmlTd(std::string_view text, std::string_view css_class = {});
std::string HtmlTdElided(std::string_view text, size_t max_chars,
                         std::string_view css_class = {});
std::string HtmlTh(std::string_view text, bool numeric = false);

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
