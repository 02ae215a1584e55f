// libFuzzer target: pasted text cleaning (parsers/input_text.h). Cleans the
// bytes, re-joins wrapped lines by a buffer assignment's rules, and checks
// that every offset of the result maps into the bytes as given, in order,
// that locating and reporting an error anywhere works, and that the buffer
// assignment and OOM parsers read the result (or fail cleanly). Built as a
// real libFuzzer binary with clang and MEMPLAN_BUILD_FUZZ=ON, else with
// replay_main.cc so ctest replays the corpus.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "parsers/buffer_assignment_parser.h"
#include "parsers/input_text.h"
#include "parsers/oom_message_parser.h"

namespace {

bool StartsLine(std::string_view line) {
  return line.empty() || line[0] == ' ' || line[0] == '<' || line.starts_with("allocation ") ||
         line.starts_with("BufferAssignment") || line.starts_with("HloLiveRange");
}

bool Unfinished(std::string_view line) {
  return line.find("Operator: ") != std::string_view::npos &&
         (std::count(line.begin(), line.end(), '"') % 2) == 1;
}

void CheckMapping(const memplan::parsers::SourceText& text) {
  const size_t root_size = text.root().text().size();
  size_t previous = 0;
  for (size_t i = 0; i <= text.text().size(); ++i) {
    const size_t root = text.RootOffset(i);
    if (root > root_size || root < previous) std::abort();
    previous = root;
  }
  const size_t n = text.text().size();
  for (size_t at : {size_t{0}, n / 2, n}) {
    (void)text.LocationString(at);
    (void)text.ErrorAt(text.text().data() + at, "expected anything");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan::parsers;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  InputCleanup cleanup;
  auto cleaned = CleanInputText(SourceText::FromString("fuzz-input.txt", bytes), &cleanup);
  CheckMapping(*cleaned);
  auto joined = JoinWrappedLines(cleaned, {StartsLine, Unfinished}, &cleanup);
  CheckMapping(*joined);
  (void)ParseBufferAssignment({joined}, memplan::ir::Program::Named("fuzz"));
  (void)ParseOomMessage({joined}, memplan::ir::Program::Named("fuzz"));
  return 0;
}
