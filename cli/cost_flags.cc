#include "cli/simulator_commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class CostSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    CostFlags flags;
    flags.path = path_;
    flags.module = module_;
    flags.hw = hw_;
    flags.f32_dots = f32_dots_;
    flags.format = format_;
    flags.top = top_;
    flags.output = output_;
    return RunCost(flags);
  }

 private:
  cl::SubCommand command_{"cost",
                          "FLOPs, bytes accessed and roofline compute time of a program on one "
                          "device (docs/cost-model.md)"};
  cl::opt<std::string> path_{cl::Positional, cl::Required, cl::sub(command_),
                             cl::desc("<HLO module: HloProto, dump directory, ...>")};
  cl::opt<std::string> hw_{"hw", cl::sub(command_), cl::init("h100"), cl::value_desc("preset|file"),
                           cl::desc("Hardware (docs/hardware.md)")};
  cl::opt<std::string> f32_dots_{"f32-dots", cl::sub(command_), cl::init("tf32"),
                                 cl::value_desc("tf32|f32"),
                                 cl::desc("Rate of f32 dots: tf32 Tensor Cores (JAX's default "
                                          "on NVIDIA GPUs) or f32 (precision=HIGHEST)")};
  cl::opt<CostFormat> format_{
      "format", cl::sub(command_), cl::init(CostFormat::kText), cl::desc("Output format"),
      cl::values(clEnumValN(CostFormat::kText, "text", "aligned text"),
                 clEnumValN(CostFormat::kJson, "json", "JSON (memplan.cost.v1)"))};
  cl::opt<int> top_{"top", cl::sub(command_), cl::init(10),
                    cl::desc("Instructions listed by time (0: all)")};
  cl::opt<std::string> module_{"module", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("Module of a dump directory (default: the largest)")};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write to <file> (atomically)")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeCostSubcommand() { return std::make_unique<CostSubcommand>(); }

}  // namespace memplan::cli
