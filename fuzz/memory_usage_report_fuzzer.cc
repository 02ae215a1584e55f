// libFuzzer target: one memory-usage report
// through the whole `memplan analyze` pipeline (fuzz/fuzz_pipeline.h says
// what is checked). Built as a real libFuzzer binary with clang and
// MEMPLAN_BUILD_FUZZ=ON, else with replay_main.cc so ctest replays the corpus.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_pipeline.h"
#include "parsers/memory_usage_report_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return memplan::fuzz::RunPipeline("memory_usage_report_fuzzer", "fuzz-memory-usage-report.txt", memplan::parsers::ParseMemoryUsageReport, data, size);
}
