// The entry point from a path on disk to a Program: a file or an
// --xla_dump_to directory, sniffed and handed to the parser for its format.
#ifndef MEMPLAN_PARSERS_LOAD_PROGRAM_H_
#define MEMPLAN_PARSERS_LOAD_PROGRAM_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/program.h"
#include "parsers/dump_files.h"

namespace memplan::parsers {

struct LoadOptions {
  // For a dump directory: which module (see ChooseModule); empty = largest.
  std::string module;
};

struct LoadedProgram {
  ir::Program program;
  // The modules a directory held (empty for a single file), and a sentence
  // saying which one was analyzed and why.
  std::vector<DumpModule> modules;
  std::string choice;
};

absl::StatusOr<LoadedProgram> LoadProgram(const std::string& path,
                                          const LoadOptions& options);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_LOAD_PROGRAM_H_
