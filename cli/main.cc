// memplan's command line: flags in, library calls, outputs out.
#include <cstdio>
#include <cstring>

#include "cli/commands.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace {

using memplan::cli::AnalyzeFormat;
namespace cl = llvm::cl;

constexpr const char* kVersion = "memplan 0.1.0";

constexpr const char* kOverview =
    "memplan: memory planning for sharded ML programs\n\n"
    "  memplan analyze PATH   read an XLA buffer assignment (file or --xla_dump_to\n"
    "                         directory) and report bytes per category, the live\n"
    "                         peak and what is live there\n\n"
    "Exit codes: 0 ok, 1 a check failed, 2 bad input or usage.\n";

int Main(int argc, char** argv) {
  cl::SubCommand analyze("analyze", "Report the memory of an XLA buffer assignment");
  cl::opt<std::string> path(cl::Positional, cl::Required, cl::sub(analyze),
                            cl::desc("<buffer-assignment file or dump directory>"));
  cl::opt<AnalyzeFormat> format(
      "format", cl::sub(analyze), cl::init(AnalyzeFormat::kText), cl::desc("Output format"),
      cl::values(clEnumValN(AnalyzeFormat::kText, "text", "aligned text report"),
                 clEnumValN(AnalyzeFormat::kJson, "json", "JSON (docs/json-schema.md)")));
  cl::opt<std::string> output("o", cl::sub(analyze), cl::init("-"), cl::value_desc("file"),
                              cl::desc("Write the report to <file> (atomically)"));
  cl::opt<int> top("top", cl::sub(analyze), cl::init(10),
                   cl::desc("Rows in the allocation and value tables (0: all)"));
  cl::opt<std::string> module("module", cl::sub(analyze), cl::value_desc("name"),
                              cl::desc("Module to analyze in a dump directory "
                                       "(default: the largest)"));

  cl::SetVersionPrinter([](llvm::raw_ostream& os) { os << kVersion << "\n"; });
  if (!cl::ParseCommandLineOptions(argc, argv, kOverview, &llvm::errs())) {
    return memplan::cli::kExitBadInput;
  }
  if (analyze) {
    memplan::cli::AnalyzeFlags flags;
    flags.path = path;
    flags.module = module;
    flags.format = format;
    flags.output = output;
    flags.top = top;
    return memplan::cli::RunAnalyze(flags);
  }
  std::fprintf(stderr, "memplan: expected a subcommand; see 'memplan --help'\n");
  return memplan::cli::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
