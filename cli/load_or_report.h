// Loading a subcommand's PROGRAM argument, with the error reported the way
// every subcommand reports one.
#ifndef MEMPLAN_CLI_LOAD_OR_REPORT_H_
#define MEMPLAN_CLI_LOAD_OR_REPORT_H_

#include <optional>
#include <string>

#include "parsers/load_program.h"

namespace memplan::cli {

// parsers::LoadProgram(path) with `module` chosen from a dump directory
// (empty: the largest) and a jaxpr file lowered with `jaxpr`. On failure prints "memplan: <error>" to stderr
// (PrintError) and returns nullopt; the caller exits with kExitBadInput.
std::optional<parsers::LoadedProgram> LoadOrReport(const std::string& path,
                                                   const std::string& module,
                                                   const ir::JaxprProgramOptions& jaxpr = {});

// Says on stderr which module of a dump directory was read and how to pick
// another ("memplan: reading module ... (--module picks another)"); nothing
// for a single file or a dump of one module.
void PrintModuleChoice(const parsers::LoadedProgram& loaded);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_LOAD_OR_REPORT_H_
