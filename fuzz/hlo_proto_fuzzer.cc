// libFuzzer target: one HloProto (*.hlo.pb)
// through the whole `memplan analyze` pipeline (fuzz/fuzz_pipeline.h says
// what is checked). Built as a real libFuzzer binary with clang and
// MEMPLAN_BUILD_FUZZ=ON, else with replay_main.cc so ctest replays the corpus.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_pipeline.h"
#include "parsers/hlo_proto_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return memplan::fuzz::RunPipeline("hlo_proto_fuzzer", "fuzz-input.hlo.pb", memplan::parsers::ParseHloProto, data, size);
}
