// The entry point from a path on disk to a Program: a file or an
// --xla_dump_to directory, sniffed and handed to the parser for its format.
#ifndef MEMPLAN_PARSERS_LOAD_PROGRAM_H_
#define MEMPLAN_PARSERS_LOAD_PROGRAM_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/jaxpr_program.h"
#include "ir/program.h"
#include "parsers/dump_files.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

struct LoadOptions {
  // For a dump directory: which module (see ChooseModule); empty: the one
  // with the most instructions.
  std::string module;
  // For a jaxpr file: how it is lowered (which of XLA's rules apply, what
  // is donated; ir/jaxpr_program.h). Default: none of the optional rules.
  ir::JaxprProgramOptions jaxpr;
};

struct LoadedProgram {
  ir::Program program;
  // The modules a directory held (empty for a single file), and which one
  // was read and why (absent for a single file).
  std::vector<DumpModule> modules;
  std::optional<ModuleChoice> choice;
};

// Reads `path`: a file of any input format, "-" for standard input (read
// once), or a dump directory (one module of it, per `options`). Text is
// cleaned first (parsers/input_text.h: byte-order mark, CR line ends, colour
// codes, log prefixes, terminal-wrapped lines), and a Program::notes entry
// (kInputCleaned) says what was done; locations in errors and warnings point
// into the file as read. A file no sniff rule accepts is read by the first
// text parser that can; else the error says what each expected where it
// stopped. A regular file holding a jaxpr is lowered into a Program
// (LoadJaxprProgram with options.jaxpr).
absl::StatusOr<LoadedProgram> LoadProgram(const std::string& path,
                                          const LoadOptions& options);

// A jaxpr file as a Program (ir/jaxpr_program.h), lowered with `options`
// (donation per top-level input, XLA's optional rules). LoadProgram reads a
// regular file that sniffs as a jaxpr this way. Errors name
// file:line:column as the jaxpr parser does.
absl::StatusOr<ir::Program> LoadJaxprProgram(const std::string& path,
                                             const ir::JaxprProgramOptions& options);

// `path` as read, once: standard input for "-" (ReadStandardInput), else
// SourceText::FromFile (a FIFO or device read once, within its size bound,
// and the same text returned to every later call).
absl::StatusOr<std::shared_ptr<const SourceText>> ReadInputFile(const std::string& path);

// What a path given to `memplan analyze` holds: an XLA program (a dump, an
// HLO module, a report, an OOM message), a jaxpr, or Alpa's stage profiling
// log. A directory, or a file that cannot be read, is kProgram (LoadProgram
// then says what is wrong). Alpa's sniff rule is tried first: its log holds
// jaxprs. A stream ("-", a FIFO) is sniffed from its one read
// (ReadInputFile), which the reader then parses.
enum class AnalyzeInputKind { kProgram, kJaxpr, kAlpaStageProfile };
AnalyzeInputKind SniffAnalyzeInput(const std::string& path);

// Reads one module of a dump (as FindDumpModules lists them).
absl::StatusOr<ir::Program> LoadModule(const DumpModule& module);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_LOAD_PROGRAM_H_
