// Graphviz under the sanitizers (issue 14): renders a DOT graph of hostile
// names to SVG twice in one process (a second render once read freed memory
// inside libgvc's pango plugin, and the gvContext leaked) and checks each SVG
// is well-formed XML (fuzz/markup_check.h). Run by ctest as
// fuzz_svg_render_twice; in the sanitizer build (MEMPLAN_BUILD_FUZZ=ON) with
// ASan, UBSan and leak detection. Exit 0 when both renders are clean.
#include <cstdio>
#include <string>

#include "fuzz/markup_check.h"
#include "viz/dot_report.h"
#include "viz/svg_render.h"

int main() {
  static const char kHostile[] =
      "<script>alert(1)</script> \" ' \\ ]]> &amp; \x01\x1b[31m\x7f \xff\xc0\xaf caf\xc3\xa9";
  const std::string name(kHostile, sizeof(kHostile) - 1);
  const std::string q = memplan::viz::DotQuote(name);
  const std::string dot = "digraph g {\n  a [label=" + q + ", tooltip=" + q + "];\n  b [label=" +
                          q + "];\n  a -> b [label=" + q + "];\n}\n";
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::string> svg = memplan::viz::RenderSvgFromDot(dot);
    if (!svg.ok()) {
      std::fprintf(stderr, "render %d failed: %s\n", i, std::string(svg.status().message()).c_str());
      return 1;
    }
    if (const std::optional<std::string> problem = memplan::fuzz::XmlProblem(*svg)) {
      std::fprintf(stderr, "render %d: SVG not well-formed: %s\n%s\n", i, problem->c_str(),
                   svg->c_str());
      return 1;
    }
  }
  return 0;
}
