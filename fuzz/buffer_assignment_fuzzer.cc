// libFuzzer target: one buffer-assignment dump
// through the whole `memplan analyze` pipeline (fuzz/fuzz_pipeline.h says
// what is checked). Built as a real libFuzzer binary with clang and
// MEMPLAN_BUILD_FUZZ=ON, else with replay_main.cc so ctest replays the corpus.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_pipeline.h"
#include "parsers/buffer_assignment_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return memplan::fuzz::RunPipeline("buffer_assignment_fuzzer", "fuzz-input.txt", memplan::parsers::ParseBufferAssignment, data, size);
}
