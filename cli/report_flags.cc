#include "cli/assigner_flag.h"
#include "cli/commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class ReportSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    ReportFlags flags;
    flags.path = path_;
    flags.module = module_;
    flags.output = output_;
    flags.by = by_;
    flags.plan = plan_;
    if (!assigner_.Apply(&flags.assigner)) return kExitBadInput;
    return RunReport(flags);
  }

 private:
  cl::SubCommand command_{"report",
                          "Write the memory report as one self-contained HTML page"};
  cl::opt<std::string> path_{cl::Positional, cl::Required, cl::sub(command_),
                             cl::desc("<buffer-assignment file or dump directory>")};
  cl::opt<std::string> output_{"o", cl::Required, cl::sub(command_), cl::value_desc("file"),
                               cl::desc("Write the HTML page to <file> (atomically; "
                                        "'-' for stdout)")};
  cl::opt<std::string> by_{"by", cl::sub(command_), cl::init("op"), cl::value_desc("op|source|type"),
                           cl::desc("Attribute the peak by op (op_name path), source (call "
                                    "stack / file:line) or type (op_type)")};
  cl::opt<std::string> plan_{"plan", cl::sub(command_), cl::value_desc("file"),
                             cl::desc("Add the predicted per-device memory under this sharding "
                                      "plan (docs/plan-format.md), as memplan predict")};
  AssignerOption assigner_{command_};
  cl::opt<std::string> module_{"module", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("Module to report in a dump directory "
                                        "(default: the largest)")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeReportSubcommand() {
  return std::make_unique<ReportSubcommand>();
}

}  // namespace memplan::cli
