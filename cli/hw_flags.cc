#include "cli/simulator_commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class HwSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    HwFlags flags;
    flags.args.assign(args_.begin(), args_.end());
    flags.output = output_;
    return RunHw(flags);
  }

 private:
  cl::SubCommand command_{"hw",
                          "List the hardware presets, or print one (or a file) as YAML "
                          "(docs/hardware.md)"};
  cl::list<std::string> args_{cl::Positional, cl::OneOrMore, cl::sub(command_),
                              cl::desc("list | show <preset or hardware file>")};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write to <file> (atomically)")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeHwSubcommand() { return std::make_unique<HwSubcommand>(); }

}  // namespace memplan::cli
