// libFuzzer target: Alpa's stage-profile text through its parser and the
// stage table. Beyond "no crash, no sanitizer report, no hang": a parse
// error names the file.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analyzer/alpa_stage_memory.h"
#include "parsers/alpa_stage_profile_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  auto source = parsers::SourceText::FromString(
      "fuzz-alpa.txt", std::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<ir::AlpaStageDocument> doc = parsers::ParseAlpaStageProfile(*source);
  if (!doc.ok()) {
    if (doc.status().message().rfind("fuzz-alpa.txt:", 0) != 0) {
      std::fprintf(stderr, "alpa_stage_profile_fuzzer: parse error without a location\n");
      std::abort();
    }
    return 0;
  }
  for (size_t i = 0; i < doc->profiles.size(); ++i) {
    (void)analyzer::AlpaStageMemoryTable(*doc, i);
  }
  return 0;
}
