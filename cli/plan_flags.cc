#include "cli/family_input_flags.h"
#include "cli/plan_commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class PlanSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    PlanFlags flags;
    flags.path = path_;
    flags.module = module_;
    flags.family = family_;
    flags.mesh = mesh_;
    flags.inputs = inputs_.Flags();
    flags.output = output_;
    return RunPlan(flags);
  }

 private:
  cl::SubCommand command_{"plan",
                          "Write a plan file (docs/plan-format.md) of a standard sharding family for "
                          "a program: dp, fsdp, tp, ep and their '+' combinations"};
  cl::opt<std::string> path_{cl::Positional, cl::Required, cl::sub(command_), cl::value_desc("PROGRAM"),
                             cl::desc("<program: dump directory, .hlo.pb or HLO text>")};
  cl::opt<std::string> module_{"module", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("For a dump directory: the module to read")};
  cl::opt<std::string> family_{"family", cl::sub(command_), cl::value_desc("family"),
                               cl::desc("dp | fsdp | tp | ep, or several joined by '+': dp+tp, fsdp+tp, "
                                        "dp+ep; the mesh has one axis of each name")};
  cl::opt<std::string> mesh_{"mesh", cl::sub(command_), cl::value_desc("mesh"),
                             cl::desc("The mesh, major to minor: dp=2,tp=4")};
  FamilyInputOptions inputs_{command_};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write the plan to <file> (atomically)")};
};

}  // namespace

std::unique_ptr<Subcommand> MakePlanSubcommand() { return std::make_unique<PlanSubcommand>(); }

}  // namespace memplan::cli
