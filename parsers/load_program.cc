#include "parsers/load_program.h"

#include <algorithm>
#include <filesystem>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/buffer_assignment_parser.h"
#include "parsers/hlo_proto_parser.h"
#include "parsers/alpa_stage_profile_parser.h"
#include "parsers/hlo_text_program.h"
#include "ir/jaxpr_program.h"
#include "parsers/jaxpr_parser.h"
#include "parsers/input_text.h"
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
  // How its lines begin, to re-join lines a terminal wrapped (none: never).
  LineRules rules{};
};

bool SniffBufferAssignment(std::string_view head, std::string_view) {
  return LooksLikeBufferAssignment(head);
}

bool StartsWithAny(std::string_view line, std::initializer_list<std::string_view> starts) {
  for (std::string_view start : starts) {
    if (line.starts_with(start)) return true;
  }
  return false;
}

// Every line of a buffer assignment but the top-level headers is indented.
bool BufferAssignmentStartsLine(std::string_view line) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '<') return true;
  return StartsWithAny(line, {"allocation ", "BufferAssignment", "Total bytes used",
                              "Used values", "HloLiveRange", "Memory Space"});
}

// The lines of XLA's OOM messages (GPU and TPU), indented or not.
bool OomMessageStartsLine(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return true;
  line.remove_prefix(first);
  if (line[0] == '=' || line[0] == '-' || line[0] == ';') return true;
  if (line[0] >= '0' && line[0] <= '9') return line.find(". Size:") != std::string_view::npos;
  // The line that carries the message's marker, after an exception's name.
  for (std::string_view marker : {"RESOURCE_EXHAUSTED", "Resource exhausted", "Out of memory",
                                  "Compilation failure"}) {
    if (line.find(marker) != std::string_view::npos) return true;
  }
  return StartsWithAny(
      line, {"Size:", "Operator:", "Shape:", "XLA Label:", "XLA label:", "Allocation type:",
             "Unpadded size:", "Extra memory", "Entry Parameter Subshape:", "Buffer ",
             "Peak buffers", "BufferAssignment", "Largest program allocations", "Total ",
             "Program ", "Output size", "reserved", "program", "arguments", "global", "scoped",
             "HLO temp", "overlays", "parameter allocation", "constant allocation",
             "maybe_live_out allocation", "preallocated temp", "total allocation",
             "total fragmentation", "HBM capacity", "Persistent allocations", "output ",
             "heap allocations", "Heap allocator", "Max free chunk", "Top-of-Memory",
             "Currently allocated", "Available after"});
}

// An "Operator:" line whose op_name="..." is still open.
bool OomMessageLineUnfinished(std::string_view line) {
  if (line.find("Operator: ") == std::string_view::npos) return false;
  bool open = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == '"') {
      open = !open;
    }
  }
  return open;
}

// Tried in order; the buffer assignment is also the fallback, so that an
// unrecognised text file gets that parser's "expected ..." error.
constexpr InputFormat kFormats[] = {
    {"hlo-proto", LooksLikeHloProto, ParseHloProto},
    // Before the buffer assignment: an OOM log may quote lines that look like
    // one, and a 2024-style report starts with "Total bytes used:" as the
    // split dump's values file does.
    {"oom-message", LooksLikeOomMessage, ParseOomMessage,
     {OomMessageStartsLine, OomMessageLineUnfinished}},
    {"memory-usage-report", LooksLikeMemoryUsageReport, ParseMemoryUsageReport},
    {"hlo-text", LooksLikeHloTextProgram, ParseHloTextProgram},
    {"buffer-assignment", SniffBufferAssignment, ParseBufferAssignment,
     {BufferAssignmentStartsLine, nullptr}},
};

// Enough for an OOM message after a long Python traceback.
constexpr size_t kSniffBytes = 64 * 1024;

// The format whose sniff rule accepts the main file; nullptr when none does.
const InputFormat* FormatFor(const SourceText& main) {
  const std::string file_name = std::filesystem::path(main.name()).filename().string();
  for (const InputFormat& format : kFormats) {
    if (format.sniff(main.text().substr(0, kSniffBytes), file_name)) return &format;
  }
  return nullptr;
}

// A file as read, cleaned (parsers/input_text.h) unless binary; "-" is
// standard input.
absl::StatusOr<std::shared_ptr<const SourceText>> ReadInput(const std::string& path,
                                                            InputCleanup* cleanup) {
  ASSIGN_OR_RETURN(std::shared_ptr<const SourceText> raw, ReadInputFile(path));
  // An HloProto is bytes, not text, whatever they look like.
  const std::string file_name = std::filesystem::path(path).filename().string();
  if (LooksLikeHloProto(raw->text().substr(0, kSniffBytes), file_name)) return raw;
  return CleanInputText(std::move(raw), cleanup);
}

// The first line of a parser's error ("file:line:col: error: expected ...").
std::string_view FirstLine(std::string_view message) {
  return message.substr(0, message.find('\n'));
}

// A file no sniff rule accepts: the buffer assignment reads it if it can
// (its sniff looks only at the head); else each text format tries, and the
// error says what each expected where it gave up.
absl::StatusOr<ir::Program> ParseUnknown(const std::vector<std::shared_ptr<const SourceText>>& sources,
                                         const DumpModule& module, const InputFormat** used) {
  std::string tried;
  for (const InputFormat* format = std::end(kFormats); format != std::begin(kFormats);) {
    --format;  // the buffer assignment (the last entry) first
    if (std::string_view(format->name) == "hlo-proto") continue;
    absl::StatusOr<ir::Program> parsed =
        format->parse(sources, ir::Program::Named(module.name));
    if (parsed.ok()) {
      *used = format;
      return parsed;
    }
    const absl::string_view message = parsed.status().message();
    StrAppend(&tried, "\n  ", format->name, ": ",
              FirstLine(std::string_view(message.data(), message.size())));
  }
  return absl::InvalidArgumentError(
      StrCat(sources.front()->name(),
             ": error: not a format memplan reads (buffer assignment, XLA OOM message, "
             "memory-usage report, HLO text or HloProto); what each expected where it stopped:",
             tried));
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
  std::vector<InputCleanup> cleanups(module.files.size());
  for (size_t i = 0; i < module.files.size(); ++i) {
    ASSIGN_OR_RETURN(auto source, ReadInput(module.files[i], &cleanups[i]));
    sources.push_back(std::move(source));
  }
  const InputFormat* sniffed = FormatFor(*sources.front());
  if (sniffed == nullptr) {
    // A wrapped line may have broken the text a sniff rule looks for.
    for (const InputFormat& format : kFormats) {
      if (format.rules.starts_line == nullptr) continue;
      InputCleanup joining;
      const std::shared_ptr<const SourceText> joined =
          JoinWrappedLines(sources.front(), format.rules, &joining);
      if (joined != sources.front() && FormatFor(*joined) == &format) {
        sniffed = &format;
        break;
      }
    }
  }
  if (sniffed != nullptr && sniffed->rules.starts_line != nullptr) {
    for (size_t i = 0; i < sources.size(); ++i) {
      sources[i] = JoinWrappedLines(std::move(sources[i]), sniffed->rules, &cleanups[i]);
    }
  }
  const InputFormat* used = sniffed;
  absl::StatusOr<ir::Program> parsed =
      sniffed != nullptr ? sniffed->parse(sources, StartProgram(module, *sniffed))
                         : ParseUnknown(sources, module, &used);
  if (!parsed.ok()) return parsed.status();
  ir::Program program = *std::move(parsed);
  const InputFormat& format = *used;
  for (size_t i = 0; i < sources.size(); ++i) {
    if (cleanups[i].any()) program.notes.push_back(CleanupNote(cleanups[i], module.files[i]));
  }
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
  if (path == kStandardInputPath) {
    chosen.name = "stdin";
    chosen.stem = "stdin";
    chosen.files = {path};
  } else if (std::filesystem::is_directory(path, ec)) {
    ASSIGN_OR_RETURN(loaded.modules, FindDumpModules(path));
    ASSIGN_OR_RETURN(loaded.choice, ChooseModule(loaded.modules, options.module));
    chosen = loaded.modules[loaded.choice->index];
  } else if (std::filesystem::exists(path, ec)) {
    if (SniffAnalyzeInput(path) == AnalyzeInputKind::kJaxpr) {
      ASSIGN_OR_RETURN(loaded.program, LoadJaxprProgram(path, options.jaxpr));
      return loaded;
    }
    chosen = ModuleForFile(path);
  } else {
    return absl::NotFoundError(StrCat(path, ": no such file or directory"));
  }
  ASSIGN_OR_RETURN(loaded.program, LoadModule(chosen));
  return loaded;
}

absl::StatusOr<ir::Program> LoadJaxprProgram(const std::string& path,
                                             const ir::JaxprProgramOptions& options) {
  ASSIGN_OR_RETURN(std::shared_ptr<const SourceText> source, SourceText::FromFile(path));
  ASSIGN_OR_RETURN(ir::JaxprModule jaxpr, ParseJaxpr(*source));
  return ir::BuildJaxprProgram(jaxpr, options);
}

AnalyzeInputKind SniffAnalyzeInput(const std::string& path) {
  std::error_code ec;
  if (path != kStandardInputPath && std::filesystem::is_directory(path, ec)) {
    return AnalyzeInputKind::kProgram;
  }
  // A stream (a FIFO, standard input) is read once, within its size bound,
  // and kept: the reader that parses it gets the same text.
  absl::StatusOr<std::shared_ptr<const SourceText>> source = ReadInputFile(path);
  if (!source.ok()) return AnalyzeInputKind::kProgram;
  const std::string_view head = (*source)->text().substr(0, kSniffBytes);
  if (LooksLikeAlpaStageProfile(head)) return AnalyzeInputKind::kAlpaStageProfile;
  if (LooksLikeJaxpr(head)) return AnalyzeInputKind::kJaxpr;
  return AnalyzeInputKind::kProgram;
}

absl::StatusOr<std::shared_ptr<const SourceText>> ReadInputFile(const std::string& path) {
  if (path == kStandardInputPath) return ReadStandardInput(kStandardInputLimit);
  return SourceText::FromFile(path);
}

}  // namespace memplan::parsers
