#include "cli/commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class PredictSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    PredictFlags flags;
    flags.path = path_;
    flags.module = module_;
    flags.plan = plan_;
    flags.format = format_;
    flags.output = output_;
    return RunPredict(flags);
  }

 private:
  cl::SubCommand command_{"predict",
                          "Per-device memory of a program under a sharding plan, predicted from "
                          "its single-device compile"};
  cl::opt<std::string> path_{cl::Positional, cl::Required, cl::sub(command_),
                             cl::desc("<single-device compile: dump directory, .hlo.pb, or HLO "
                                      "text with its buffer assignment beside it>")};
  cl::opt<std::string> plan_{"plan", cl::Required, cl::sub(command_), cl::value_desc("file"),
                             cl::desc("The sharding plan")};
  cl::opt<PredictFormat> format_{
      "format", cl::sub(command_), cl::init(PredictFormat::kText), cl::desc("Output format"),
      cl::values(clEnumValN(PredictFormat::kText, "text", "aligned text"),
                 clEnumValN(PredictFormat::kJson, "json", "JSON (memplan.predict.v1)"))};
  cl::opt<std::string> module_{"module", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("Module of a dump directory (default: the largest)")};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write to <file> (atomically)")};
};

}  // namespace

std::unique_ptr<Subcommand> MakePredictSubcommand() {
  return std::make_unique<PredictSubcommand>();
}

}  // namespace memplan::cli
