// libFuzzer target: a text call tree or a Chrome trace (gzip'd or not)
// through the whole `memplan calltree` pipeline: parse, summarize, memory,
// and all four views. Beyond "no crash, no sanitizer report, no hang":
// a parse error names the file; the JSON view parses; every view is
// deterministic.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analyzer/call_tree_analysis.h"
#include "llvm/Support/JSON.h"
#include "parsers/gzip_text.h"
#include "parsers/load_call_tree.h"
#include "viz/call_tree_report.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "call_tree_fuzzer: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  std::string text(reinterpret_cast<const char*>(data), size);
  if (parsers::LooksGzipped(text)) {
    absl::StatusOr<std::string> unzipped = parsers::Gunzip(text, "fuzz-calltree.gz", size_t{64} << 20);
    if (!unzipped.ok()) {
      Check(unzipped.status().message().rfind("fuzz-calltree.gz", 0) == 0, "gzip error without the file name");
      return 0;
    }
    text = std::move(*unzipped);
  }
  auto source = parsers::SourceText::FromString("fuzz-calltree.txt", text);
  absl::StatusOr<ir::CallTree> tree = parsers::ParseCallTree(*source);
  if (!tree.ok()) {
    Check(tree.status().message().rfind("fuzz-calltree.txt:", 0) == 0, "parse error without a location");
    return 0;
  }
  for (size_t i = 0; i < tree->nodes.size(); ++i) {
    Check(tree->nodes[i].id.value() == static_cast<int64_t>(i), "node ids are not dense");
    Check(tree->nodes[i].subtree_end.value() > static_cast<int64_t>(i), "subtree end before its node");
  }
  const analyzer::CallTreeSummary summary = analyzer::SummarizeCallTree(*tree);
  const analyzer::CallTreeMemory memory = analyzer::AnalyzeCallTreeMemory(*tree, summary);
  const viz::CallTreeReportInput input{*tree, summary, memory, 10};
  const std::string json = viz::RenderCallTreeJson(input);
  Check(static_cast<bool>(llvm::json::parse(json)), "the JSON view does not parse");
  Check(json == viz::RenderCallTreeJson(input), "the JSON view is not deterministic");
  Check(viz::RenderCallTreeText(input) == viz::RenderCallTreeText(input), "text not deterministic");
  Check(viz::RenderCallTreeDot(input) == viz::RenderCallTreeDot(input), "DOT not deterministic");
  Check(viz::RenderCallTreeFolded(input) == viz::RenderCallTreeFolded(input), "folded not deterministic");
  return 0;
}
