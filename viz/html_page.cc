#include "viz/html_page.h"

#include <cstdio>
#include <vector>

#include "ir/strings.h"
#include "parsers/utf8.h"
#include "viz/format.h"

namespace memplan::viz {
namespace {

// No fonts, images or scripts from anywhere: everything is inline.
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:";

constexpr const char* kStyle = R"css(
:root{--fg:#1d232b;--muted:#5b6573;--line:#d7dde5;--bg:#ffffff;--panel:#f6f8fa;--accent:#2f6fd0;
--ok:#1e7b34;--bad:#b3261e}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif}
header{padding:18px 28px 10px;border-bottom:1px solid var(--line);background:var(--panel)}
header h1{margin:0 0 4px;font-size:20px;font-weight:600;overflow-wrap:anywhere}
header .subtitle{color:var(--muted);margin:0 0 8px;overflow-wrap:anywhere}
nav{display:flex;flex-wrap:wrap;gap:2px 14px}
nav a{color:var(--accent);text-decoration:none;white-space:nowrap}
nav a:hover{text-decoration:underline}
main{padding:8px 28px 40px;max-width:1280px}
section{margin-top:22px}
section h2{font-size:16px;font-weight:600;margin:0 0 8px;padding-bottom:4px;
border-bottom:1px solid var(--line)}
h3{font-size:14px;font-weight:600;margin:14px 0 4px}
p{margin:6px 0}
main p,main li,main td,main th,main summary,main code,main .legend,.tree,.notice{overflow-wrap:anywhere}
.muted{color:var(--muted)}
.notice{background:#fff6dd;border:1px solid #ecd58a;border-radius:4px;padding:4px 8px;margin:6px 0;
display:inline-block}
.ok{color:var(--ok);font-weight:600}
.bad{color:var(--bad);font-weight:600}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0 12px}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 12px;min-width:180px;background:var(--panel)}
.card .label{color:var(--muted);font-size:12px}
.card .big{font-size:20px;font-weight:600}
.card .small{font-size:12px;color:var(--muted)}
table{border-collapse:collapse;margin:6px 0;max-width:100%}
th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600;font-size:13px}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px;
overflow-wrap:anywhere;min-width:13ch}
tr:hover td{background:#eef4fd}
.legend{display:flex;flex-wrap:wrap;gap:14px;margin:4px 0;font-size:13px}
.legend .swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;
vertical-align:-1px}
svg{display:block;max-width:100%;height:auto;font-family:inherit}
svg text{font-size:11px;fill:var(--muted)}
svg .axis{stroke:#9aa4b1;stroke-width:1}
svg .grid{stroke:#e6eaef;stroke-width:1}
svg .peak{stroke:var(--bad);stroke-width:1.5;stroke-dasharray:5 3}
svg text.peaklabel{fill:var(--bad);font-weight:600}
svg .stated{stroke:#555;stroke-width:1;stroke-dasharray:2 2}
svg .added{fill:none;stroke:#1d232b;stroke-width:1.2}
svg text.addedlabel{fill:#1d232b;font-weight:600}
.legend .swatch.line{height:0;border-top:2px solid #1d232b;border-radius:0;vertical-align:3px}
.legend .swatch.dash{height:0;border-top:2px dashed var(--bad);border-radius:0;vertical-align:3px}
.legend .swatch.grid{background:#6b7785;opacity:.5}
.budget{display:inline-block;width:120px;height:10px;background:#e6eaef;border-radius:2px;
vertical-align:-1px}
.budget .fill{display:block;height:10px;background:#59a14f;border-radius:2px}
.budget .fill.over{background:var(--bad)}
svg .allocated{fill:none;stroke:var(--accent);stroke-width:1.5}
ol.stack{margin:4px 0 8px;padding-left:28px;font-family:ui-monospace,"DejaVu Sans Mono",Menlo,
Consolas,monospace;font-size:12px;overflow-wrap:anywhere}
.zoom-label{font-size:13px;margin-left:4px;cursor:pointer}
.timeline-zoomed{display:none}
.zoom-toggle:checked~.timeline-full{display:none}
.zoom-toggle:checked~.timeline-zoomed{display:block}
svg .cursor{stroke:#333;stroke-width:1;pointer-events:none}
svg [data-tip]:hover{stroke:#111;stroke-width:1}
details{margin:1px 0}
details>summary{cursor:pointer;list-style:none}
details>summary::-webkit-details-marker{display:none}
details>summary::before{content:"\25B8";display:inline-block;width:14px;color:var(--muted)}
details[open]>summary::before{content:"\25BE"}
.tree{font-size:13px}
.tree .leaf{padding-left:14px}
.tree .node{padding-left:18px}
.tree .bytes{display:inline-block;min-width:96px;text-align:right;font-variant-numeric:tabular-nums}
.tree .share{display:inline-block;min-width:64px;text-align:right;color:var(--muted);
font-variant-numeric:tabular-nums}
.tree .bar{display:inline-block;height:9px;background:#9cc0ee;margin:0 8px;vertical-align:0}
.tree .name{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
#tip{position:fixed;z-index:10;pointer-events:none;background:#1d232b;color:#fff;padding:6px 9px;
border-radius:4px;font-size:12px;line-height:1.4;white-space:pre;max-width:720px;overflow:hidden;
box-shadow:0 2px 8px rgba(0,0,0,.25)}
footer{color:var(--muted);font-size:12px;padding:0 28px 24px}
)css";

// Tooltips for [data-tip] elements, and the timeline's cursor (see
// html_timeline_section.cc for the data it reads).
constexpr const char* kScript = R"js(
(function () {
  'use strict';
  var tip = document.getElementById('tip');
  function place(e) {
    var x = e.clientX + 14, y = e.clientY + 14;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    if (x + w > window.innerWidth - 4) x = Math.max(4, e.clientX - w - 14);
    if (y + h > window.innerHeight - 4) y = Math.max(4, e.clientY - h - 14);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }
  function show(text, e) {
    tip.textContent = text;
    tip.hidden = false;
    place(e);
  }
  function hide() { tip.hidden = true; }
  function tipTarget(node) {
    return node && node.closest ? node.closest('[data-tip]') : null;
  }
  document.addEventListener('mouseover', function (e) {
    var t = tipTarget(e.target);
    if (t) show(t.getAttribute('data-tip'), e);
  });
  document.addEventListener('mouseout', function (e) {
    if (tipTarget(e.target)) hide();
  });
  document.addEventListener('mousemove', function (e) {
    if (!tip.hidden) place(e);
  });

  function humanBytes(b) {
    if (Math.abs(b) < 1024) return b + ' B';
    var units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
    var v = Math.abs(b), i = -1;
    do { v /= 1024; ++i; } while (v >= 1024 && i < units.length - 1);
    return (b < 0 ? '-' : '') + v.toFixed(2) + ' ' + units[i];
  }
  function grouped(b) {
    return String(b).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }

  function setupTimeline(svg) {
    var source = document.getElementById(svg.getAttribute('data-json'));
    if (!source) return;
    var data = JSON.parse(source.textContent);
    var x0 = +svg.getAttribute('data-x0'), x1 = +svg.getAttribute('data-x1');
    var steps = +svg.getAttribute('data-steps');
    var cursor = svg.querySelector('.cursor');
    function rowAt(step) {
      var lo = 0, hi = data.rows.length - 1, found = -1;
      while (lo <= hi) {
        var mid = (lo + hi) >> 1;
        if (data.rows[mid][0] <= step) { found = mid; lo = mid + 1; } else { hi = mid - 1; }
      }
      return found;
    }
    function nameOf(row, step) {
      if (data.names_per_row) return data.rows[row][2] === step ? data.names[row] : null;
      return step < data.names.length ? data.names[step] : null;
    }
    svg.addEventListener('mousemove', function (e) {
      var m = svg.getScreenCTM();
      if (!m) return;
      var p = svg.createSVGPoint();
      p.x = e.clientX; p.y = e.clientY;
      p = p.matrixTransform(m.inverse());
      if (p.x < x0 || p.x >= x1 || steps <= 0) { hide(); cursor.setAttribute('visibility', 'hidden'); return; }
      var step = Math.min(steps - 1, Math.floor((p.x - x0) / (x1 - x0) * steps));
      var row = rowAt(step);
      var lines = [];
      var shown = step;
      if (row >= 0 && data.bucketed) {
        var r = data.rows[row];
        shown = r[2];
        lines.push('steps ' + r[0] + '\u2013' + (r[1] - 1) + ': the most live at step ' + shown);
      } else {
        lines.push('step ' + step);
      }
      var name = row >= 0 ? nameOf(row, shown) : (step < data.names.length && !data.names_per_row ? data.names[step] : null);
      lines.push('instruction: ' + (name === null || name === '' ? '(not known)' : name));
      var total = 0;
      if (row >= 0) {
        for (var c = 0; c < data.categories.length; ++c) total += data.rows[row][3 + c];
      }
      lines.push('occupied: ' + humanBytes(total) + ' (' + grouped(total) + ' bytes)');
      if (row >= 0) {
        var added = data.rows[row][3 + data.categories.length];
        if (added !== total) {
          lines.push('live value sizes added (XLA): ' + humanBytes(added) + ' (' + grouped(added) + ' bytes)');
        }
      }
      if (row >= 0) {
        for (var k = 0; k < data.categories.length; ++k) {
          var b = data.rows[row][3 + k];
          if (b !== 0) lines.push('  ' + data.categories[k] + ': ' + humanBytes(b));
        }
      }
      var cx = x0 + (step + 0.5) / steps * (x1 - x0);
      cursor.setAttribute('x1', cx); cursor.setAttribute('x2', cx);
      cursor.setAttribute('visibility', 'visible');
      show(lines.join('\n'), e);
    });
    svg.addEventListener('mouseleave', function () {
      hide();
      cursor.setAttribute('visibility', 'hidden');
    });
  }
  var timelines = document.querySelectorAll('svg.timeline');
  for (var i = 0; i < timelines.length; ++i) setupTimeline(timelines[i]);

  // file:///report.html#selftest: hover an allocation-map rectangle, then
  // the middle of the timeline, and log whether the tooltips answered (the
  // headless-browser test reads the console; the tooltip stays visible).
  if (window.location.hash === '#selftest') {
    window.addEventListener('load', function () {
      var problems = [];
      var rect = document.querySelector('svg.allocation-map rect[data-tip]');
      if (rect) {
        var b = rect.getBoundingClientRect();
        rect.dispatchEvent(new MouseEvent('mouseover',
            {clientX: b.left + 1, clientY: b.top + 1, bubbles: true}));
        if (tip.hidden || tip.textContent !== rect.getAttribute('data-tip')) {
          problems.push('allocation map tooltip');
        }
      }
      var svg = document.querySelector('svg.timeline');
      if (svg) {
        var r = svg.getBoundingClientRect();
        svg.dispatchEvent(new MouseEvent('mousemove',
            {clientX: r.left + r.width * 0.5, clientY: r.top + r.height * 0.5, bubbles: true}));
        if (tip.hidden || !/^steps? \d/.test(tip.textContent) ||
            tip.textContent.indexOf('occupied: ') < 0) {
          problems.push('timeline tooltip: ' + tip.textContent);
        }
      }
      if (problems.length) {
        console.error('memplan-selftest: FAILED: ' + problems.join('; '));
      } else {
        console.log('memplan-selftest: ok (' + (rect ? 'map, ' : '') +
                    (svg ? 'timeline' : 'no timeline') + ')');
      }
    });
  }
})();
)js";

}  // namespace

std::string HtmlEscape(std::string_view raw) {
  const std::string text = MarkupSafeText(raw);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': break;
      default: out += c;
    }
  }
  return out;
}

std::string HtmlElideMiddle(std::string_view text, size_t max_chars) {
  // Code point boundaries: every byte that is not a UTF-8 continuation byte.
  std::vector<size_t> starts;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  if (starts.size() <= max_chars || max_chars < 3) return std::string(text);
  const size_t keep = max_chars - 1;  // one for the ellipsis
  const size_t head = (keep + 1) / 2, tail = keep - head;
  return StrCat(text.substr(0, starts[head]), "\xE2\x80\xA6",
                text.substr(starts[starts.size() - tail]));
}

std::string ElidedHtml(std::string_view text, size_t max_chars) {
  const std::string shown = HtmlElideMiddle(text, max_chars);
  if (shown.size() == text.size()) return HtmlEscape(text);
  return StrCat("<span title=\"", HtmlEscape(text), "\">", HtmlEscape(shown), "</span>");
}

std::string HtmlTd(std::string_view text, std::string_view css_class) {
  if (css_class.empty()) return StrCat("<td>", HtmlEscape(text), "</td>");
  return StrCat("<td class=\"", css_class, "\">", HtmlEscape(text), "</td>");
}

std::string HtmlTdElided(std::string_view text, size_t max_chars, std::string_view css_class) {
  if (css_class.empty()) return StrCat("<td>", ElidedHtml(text, max_chars), "</td>");
  return StrCat("<td class=\"", css_class, "\">", ElidedHtml(text, max_chars), "</td>");
}

std::string HtmlTh(std::string_view text, bool numeric) {
  return StrCat(numeric ? "<th class=\"num\">" : "<th>", HtmlEscape(text), "</th>");
}

std::string JsonStringForScript(std::string_view raw) {
  // Valid UTF-8 (JSON requires it); control characters escaped below.
  std::string text;
  text.reserve(raw.size());
  while (!raw.empty()) {
    const size_t valid = parsers::FirstInvalidUtf8(raw);
    text.append(raw.substr(0, valid));
    if (valid == raw.size()) break;
    text += "\xEF\xBF\xBD";  // U+FFFD
    raw.remove_prefix(valid + 1);
  }
  std::string out = "\"";
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default:
        if (u < 0x20 || u == 0x7F) {  // DEL is valid JSON but a control in HTML
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", u);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string RenderHtmlPage(const HtmlPage& page) {
  std::string out;
  StrAppend(&out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"",
            kContentSecurityPolicy,
            "\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<title>",
            HtmlEscape(page.title), "</title>\n<style>", kStyle, "</style>\n</head>\n<body>\n");
  StrAppend(&out, "<header>\n<h1>", HtmlEscape(page.title), "</h1>\n");
  if (!page.subtitle.empty()) {
    StrAppend(&out, "<p class=\"subtitle\">", HtmlEscape(page.subtitle), "</p>\n");
  }
  out += "<nav>";
  for (const HtmlSection& section : page.sections) {
    StrAppend(&out, "<a href=\"#", section.id, "\">", HtmlEscape(section.title), "</a>");
  }
  out += "</nav>\n</header>\n<main>\n";
  for (const HtmlSection& section : page.sections) {
    StrAppend(&out, "<section id=\"", section.id, "\">\n<h2>", HtmlEscape(section.title),
              "</h2>\n", section.body, "</section>\n");
  }
  StrAppend(&out,
            "</main>\n<footer>Written by memplan. Self-contained: nothing on this page is "
            "fetched from the network.</footer>\n<div id=\"tip\" hidden></div>\n<script>",
            kScript, "</script>\n</body>\n</html>\n");
  return out;
}

}  // namespace memplan::viz
