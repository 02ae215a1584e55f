// libFuzzer target: one HLO module text through ParseHloModuleText, and its
// instruction lines through ParseHloInstructionText. Built as a real
// libFuzzer binary with clang and MEMPLAN_BUILD_FUZZ=ON, else with
// replay_main.cc so ctest replays the corpus.
//
// Beyond "no crash, no sanitizer report, no hang", it aborts when:
//   - an error does not read "fuzz-input.hlo:line:col: error: expected ...";
//   - a warning's location does not name the file;
//   - a module the parser accepts breaks the graph checks
//     (parsers/hlo_graph_checks.h) or is not dense (ids in order);
//   - parsing the same bytes twice gives a different graph.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ir/module.h"
#include "parsers/hlo_graph_checks.h"
#include "parsers/hlo_text_parser.h"
#include "parsers/source_text.h"

namespace {

constexpr std::string_view kFile = "fuzz-input.hlo";

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "hlo_text_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void CheckError(const absl::Status& status) {
  const std::string message(status.message());
  if (!std::string_view(message).starts_with(std::string(kFile) + ":") ||
      message.find(": error: expected") == std::string::npos) {
    Fail("error without a location or an 'expected'", message);
  }
}

void CheckModule(const memplan::ir::Module& module, const memplan::ir::Diagnostics& diagnostics) {
  if (auto problem = memplan::parsers::FindGraphProblem(module)) {
    Fail("accepted module breaks the graph checks", problem->expected);
  }
  for (size_t k = 0; k < module.instruction_count(); ++k) {
    if (module.instructions()[k].id.value() != static_cast<int64_t>(k)) Fail("ids not dense", "");
  }
  if (!module.contains(module.entry)) Fail("no entry computation", "");
  for (const memplan::ir::Warning& w : diagnostics.warnings()) {
    if (!std::string_view(w.first_location).starts_with(std::string(kFile) + ":")) {
      Fail("warning without a location", w.kind + " at " + w.first_location);
    }
  }
}

bool SameGraph(const memplan::ir::Module& a, const memplan::ir::Module& b) {
  if (a.instruction_count() != b.instruction_count() ||
      a.computations().size() != b.computations().size() || a.entry != b.entry) {
    return false;
  }
  for (size_t k = 0; k < a.instruction_count(); ++k) {
    const memplan::ir::Instruction& x = a.instructions()[k];
    const memplan::ir::Instruction& y = b.instructions()[k];
    if (x.name != y.name || x.opcode != y.opcode || x.operands != y.operands || x.calls != y.calls ||
        x.computation != y.computation || !(a.attributes(x) == b.attributes(y))) {
      return false;
    }
  }
  return true;
}

// Each line with " = " through the one-instruction entry point, every name
// resolving to id 0.
void FuzzInstructionLines(const memplan::parsers::SourceText& source) {
  std::string_view text = source.text();
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.find(" = ") == std::string_view::npos) continue;
    memplan::ir::ShapePool shapes;  // the line's own: nothing outlives the line
    memplan::ir::MetadataPool metadata;
    memplan::ir::Instruction parsed;
    memplan::ir::HloAttributes attributes;
    memplan::ir::Diagnostics diagnostics;
    const absl::Status status = memplan::parsers::ParseHloInstructionText(
        source, line, [](std::string_view) { return memplan::ir::InstructionId(0); },
        [](std::string_view) { return memplan::ir::ComputationId(0); }, &shapes, &metadata, &parsed,
        &attributes, &diagnostics);
    if (!status.ok()) CheckError(status);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto source = memplan::parsers::SourceText::FromString(std::string(kFile), bytes);
  memplan::ir::Module module;
  memplan::ir::Diagnostics diagnostics;
  const absl::Status status = memplan::parsers::ParseHloModuleText(*source, &module, &diagnostics);
  if (!status.ok()) {
    CheckError(status);
  } else {
    CheckModule(module, diagnostics);
    memplan::ir::Module again;
    memplan::ir::Diagnostics again_diagnostics;
    if (!memplan::parsers::ParseHloModuleText(*source, &again, &again_diagnostics).ok() ||
        !SameGraph(module, again)) {
      Fail("parsing the same bytes twice differs", "");
    }
  }
  FuzzInstructionLines(*source);
  return 0;
}
