// What every memplan fuzz target checks, whatever the parser: the input goes
// through one parser, and on success through the analyzer and the text and
// JSON views. Beyond "no crash, no sanitizer report, no hang", a broken
// promise aborts with a message:
//   - a parse error names the file ("name:line:col: error: ...");
//   - the Program's values and allocations are sorted by id;
//   - both views are deterministic (rendering twice gives the same bytes);
//   - the JSON parses, and so does the Chrome trace;
//   - DOT and the HTML report are valid UTF-8 without raw control characters.
#ifndef MEMPLAN_FUZZ_FUZZ_PIPELINE_H_
#define MEMPLAN_FUZZ_FUZZ_PIPELINE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/program.h"
#include "parsers/source_text.h"

namespace memplan::fuzz {

using ParseFunction = absl::StatusOr<ir::Program> (*)(
    const std::vector<std::shared_ptr<const parsers::SourceText>>&, ir::Program);

// `target` names the fuzzer in failure messages; `file_name` stands for the
// input's name (it must prefix every parse error).
int RunPipeline(std::string_view target, std::string_view file_name, ParseFunction parse,
                const uint8_t* data, size_t size);

}  // namespace memplan::fuzz

#endif  // MEMPLAN_FUZZ_FUZZ_PIPELINE_H_
