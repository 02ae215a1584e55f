#include "parsers/load_program.h"

#include <algorithm>
#include <filesystem>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/buffer_assignment_parser.h"
#include "parsers/hlo_proto_parser.h"
#include "parsers/alpa_stage_profile_parser.h"
#include "parsers/hlo_text_program.h"
#include "parsers/jaxpr_parser.h"
#include "parsers/memory_usage_report_parser.h"
#include "parsers/oom_message_parser.h"
#include "parsers/source_text.h"

namespace memplan::parsers {
namespace {

// One input format: how to recognise it from the first bytes of the main
// file (and its name), and how to parse a module's files into a Program.
// A new format is one entry here plus its parser file.
struct InputFormat {
  const char* name;
  bool (*sniff)(std::string_view head, std::string_view file_name);
  absl::StatusOr<ir::Program> (*parse)(const std::vector<std::shared_ptr<const SourceText>>&,
                                       ir::Program program);
};

bool SniffBufferAssignment(std::string_view head, std::string_view) {
  return LooksLikeBufferAssignment(head);
}

// Tried in order; the buffer assignment is also the fallback, so that an
// unrecognised text file gets that parser's "expected ..." error.
constexpr InputFormat kFormats[] = {
    {"hlo-proto", LooksLikeHloProto, ParseHloProto},
    // Before the buffer assignment: an OOM log may quote lines that look like
    // one, and a 2024-style report starts with "Total bytes used:" as the
    // split dump's values file does.
    {"oom-message", LooksLikeOomMessage, ParseOomMessage},
    {"memory-usage-report", LooksLikeMemoryUsageReport, ParseMemoryUsageReport},
    {"hlo-text", LooksLikeHloTextProgram, ParseHloTextProgram},
    {"buffer-assignment", SniffBufferAssignment, ParseBufferAssignment},
};

// Enough for an OOM message after a long Python traceback.
constexpr size_t kSniffBytes = 64 * 1024;

// The format whose sniff rule accepts the main file; else the last entry,
// the buffer assignment, whose parser then says what it expected.
const InputFormat& FormatFor(const SourceText& main) {
  const std::string file_name = std::filesystem::path(main.name()).filename().string();
  for (const InputFormat& format : kFormats) {
    if (format.sniff(main.text().substr(0, kSniffBytes), file_name)) return format;
  }
  return kFormats[std::size(kFormats) - 1];
}

// A program to parse a module's dump into: named after the module, and
// holding the module's graph when its HLO text sits beside a text dump (the
// dump names instructions; they resolve to the graph's). A module text that
// does not read is a note, not an error: the dump alone still has its
// numbers.
ir::Program StartProgram(const DumpModule& module, const InputFormat& format) {
  ir::Program program = ir::Program::Named(module.name);
  const std::string_view format_name = format.name;
  if (module.hlo_text_file.empty() || format_name == "hlo-proto" || format_name == "hlo-text") {
    return program;
  }
  absl::StatusOr<std::shared_ptr<const SourceText>> text =
      SourceText::FromFile(module.hlo_text_file);
  absl::Status read = text.ok() ? ReadModuleText(*text, program) : text.status();
  if (read.ok()) return program;
  ir::Program without = ir::Program::Named(module.name);
  without.notes.push_back(
      {ir::NoteCode::kNoModuleText, {}, {module.hlo_text_file, std::string(read.message())}});
  return without;
}

}  // namespace

absl::StatusOr<ir::Program> LoadModule(const DumpModule& module) {
  std::vector<std::shared_ptr<const SourceText>> sources;
  for (const std::string& file : module.files) {
    ASSIGN_OR_RETURN(auto source, SourceText::FromFile(file));
    sources.push_back(std::move(source));
  }
  const InputFormat& format = FormatFor(*sources.front());
  ASSIGN_OR_RETURN(ir::Program program, format.parse(sources, StartProgram(module, format)));
  // The dump is the input; the module text beside it is listed after it.
  auto& files = program.source_files;
  auto text = std::find(files.begin(), files.end(), module.hlo_text_file);
  if (text != files.end() && format.name != std::string_view("hlo-text")) {
    std::rotate(text, text + 1, files.end());
  }
  return program;
}

absl::StatusOr<LoadedProgram> LoadProgram(const std::string& path,
                                          const LoadOptions& options) {
  std::error_code ec;
  LoadedProgram loaded;
  DumpModule chosen;
  if (std::filesystem::is_directory(path, ec)) {
    ASSIGN_OR_RETURN(loaded.modules, FindDumpModules(path));
    ASSIGN_OR_RETURN(loaded.choice, ChooseModule(loaded.modules, options.module));
    chosen = loaded.modules[loaded.choice->index];
  } else if (std::filesystem::exists(path, ec)) {
    chosen = ModuleForFile(path);
  } else {
    return absl::NotFoundError(StrCat(path, ": no such file or directory"));
  }
  ASSIGN_OR_RETURN(loaded.program, LoadModule(chosen));
  return loaded;
}

AnalyzeInputKind SniffAnalyzeInput(const std::string& path) {
  std::error_code ec;
  // A stream (a FIFO, standard input) can be read only once: the program
  // loader reads it, so only regular files are sniffed for jaxprs.
  if (!std::filesystem::is_regular_file(path, ec)) return AnalyzeInputKind::kProgram;
  absl::StatusOr<std::shared_ptr<const SourceText>> source = SourceText::FromFile(path);
  if (!source.ok()) return AnalyzeInputKind::kProgram;
  const std::string_view head = (*source)->text().substr(0, kSniffBytes);
  if (LooksLikeAlpaStageProfile(head)) return AnalyzeInputKind::kAlpaStageProfile;
  if (LooksLikeJaxpr(head)) return AnalyzeInputKind::kJaxpr;
  return AnalyzeInputKind::kProgram;
}

}  // namespace memplan::parsers
