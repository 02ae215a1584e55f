#include "cli/commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class CalltreeSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    CalltreeFlags flags;
    flags.path = path_;
    flags.format = format_;
    flags.output = output_;
    flags.top = top_;
    flags.top_given = top_.getNumOccurrences() > 0;
    flags.program = program_;
    flags.module = module_;
    return RunCalltree(flags);
  }

 private:
  cl::SubCommand command_{"calltree",
                          "Summarize a call tree or a profiler trace (Chrome trace-event JSON)"};
  cl::opt<std::string> path_{cl::Positional, cl::Required, cl::sub(command_),
                             cl::desc("<text call tree or trace .json[.gz]>")};
  cl::opt<CalltreeFormat> format_{
      "format", cl::sub(command_), cl::init(CalltreeFormat::kText), cl::desc("Output format"),
      cl::values(clEnumValN(CalltreeFormat::kText, "text", "aligned text report"),
                 clEnumValN(CalltreeFormat::kJson, "json", "JSON (docs/calltrees.md)"),
                 clEnumValN(CalltreeFormat::kDot, "dot", "Graphviz DOT of the call graph"),
                 clEnumValN(CalltreeFormat::kFolded, "folded",
                            "folded stacks (flamegraph.pl, speedscope)"),
                 clEnumValN(CalltreeFormat::kHtml, "html", "one self-contained HTML page"))};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write to <file> (atomically)")};
  cl::opt<int> top_{"top", cl::sub(command_), cl::init(10),
                    cl::desc("Rows per table (0: all); functions drawn by dot (default there: "
                             "100)")};
  cl::opt<std::string> program_{"program", cl::sub(command_), cl::value_desc("dump"),
                                cl::desc("Hang this program's peak (an XLA dump, HLO module or jaxpr "
                                         "with source lines) on the tree's nodes")};
  cl::opt<std::string> module_{"module", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("With --program on a dump directory: the module to read")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeCalltreeSubcommand() {
  return std::make_unique<CalltreeSubcommand>();
}

}  // namespace memplan::cli
