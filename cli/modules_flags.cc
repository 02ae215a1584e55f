#include "cli/commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class ModulesSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    ModulesFlags flags;
    flags.path = path_;
    flags.format = format_;
    flags.output = output_;
    return RunModules(flags);
  }

 private:
  cl::SubCommand command_{"modules",
                          "List every module of a dump directory: instructions, total, peak, "
                          "temp"};
  cl::opt<std::string> path_{cl::Positional, cl::Required, cl::sub(command_),
                             cl::desc("<--xla_dump_to directory>")};
  cl::opt<ModulesFormat> format_{
      "format", cl::sub(command_), cl::init(ModulesFormat::kText), cl::desc("Output format"),
      cl::values(clEnumValN(ModulesFormat::kText, "text", "aligned table"),
                 clEnumValN(ModulesFormat::kJson, "json", "JSON array, one object per module"))};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write the table to <file> (atomically)")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeModulesSubcommand() {
  return std::make_unique<ModulesSubcommand>();
}

}  // namespace memplan::cli
