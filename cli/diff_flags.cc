#include "cli/commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class DiffSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    DiffFlags flags;
    flags.old_path = old_path_;
    flags.new_path = new_path_;
    flags.module = module_;
    flags.format = format_;
    flags.output = output_;
    flags.top = top_;
    return RunDiff(flags);
  }

 private:
  cl::SubCommand command_{"diff", "Show what changed in memory between two programs"};
  cl::opt<std::string> old_path_{cl::Positional, cl::Required, cl::sub(command_),
                                 cl::desc("<old dump>")};
  cl::opt<std::string> new_path_{cl::Positional, cl::Required, cl::sub(command_),
                                 cl::desc("<new dump>")};
  cl::opt<DiffFormat> format_{
      "format", cl::sub(command_), cl::init(DiffFormat::kText), cl::desc("Output format"),
      cl::values(clEnumValN(DiffFormat::kText, "text", "aligned text report"),
                 clEnumValN(DiffFormat::kJson, "json", "JSON (docs/ci.md)"))};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write the report to <file> (atomically)")};
  cl::opt<int> top_{"top", cl::sub(command_), cl::init(20),
                    cl::desc("Changed values to list, largest change first (0: all)")};
  cl::opt<std::string> module_{"module", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("Module of a dump directory, on both sides "
                                        "(default: the largest)")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeDiffSubcommand() { return std::make_unique<DiffSubcommand>(); }

}  // namespace memplan::cli
