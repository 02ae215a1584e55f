#include <cstdio>

#include "cli/assigner_flag.h"
#include "cli/commands.h"
#include "cli/family_input_flags.h"
#include "cli/jaxpr_rules_flag.h"
#include "cli/predict_commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class PredictSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    if (args_.empty()) return kExitBadInput;
    ir::JaxprProgramOptions jaxpr;
    if (!jaxpr_rules_.Apply(&jaxpr)) return kExitBadInput;
    Assigner assigner = Assigner::kRerun;
    if (!assigner_.Apply(&assigner)) return kExitBadInput;
    std::optional<std::vector<std::string>> files = PlanFilesOf("predict", args_, plans_);
    if (!files) return kExitBadInput;
    std::vector<std::string> plans = std::move(*files);
    const bool sweep = !plans.empty() || families_.getNumOccurrences() > 0 ||
                       !meshes_.empty() || devices_.getNumOccurrences() > 0;
    if (!plan_.empty()) {
      if (sweep) {
        std::fprintf(stderr, "memplan: --plan predicts one plan; --plans and --family "
                             "sweep several: expected one or the other\n");
        return kExitBadInput;
      }
      PredictFlags flags;
      flags.path = args_[0];
      flags.module = module_;
      flags.plan = plan_;
      flags.jaxpr = jaxpr;
      flags.assigner = assigner;
      flags.format = format_;
      flags.output = output_;
      return RunPredict(flags);
    }
    PredictSweepFlags flags;
    flags.path = args_[0];
    flags.module = module_;
    flags.plans = std::move(plans);
    if (families_.getNumOccurrences() > 0) flags.families = families_;
    flags.meshes.assign(meshes_.begin(), meshes_.end());
    if (devices_.getNumOccurrences() > 0) flags.devices = devices_;
    flags.inputs = inputs_.Flags();
    flags.jaxpr = jaxpr;
    flags.assigner = assigner;
    flags.format = format_;
    flags.output = output_;
    return RunPredictSweep(flags);
  }

 private:
  cl::SubCommand command_{"predict",
                          "Per-device memory of a program under a sharding plan, predicted from "
                          "its single-device compile; several plans as one table"};
  cl::list<std::string> args_{cl::Positional, cl::OneOrMore, cl::sub(command_),
                              cl::desc("<single-device compile: dump directory, .hlo.pb, or HLO "
                                       "text with its buffer assignment beside it>")};
  cl::opt<std::string> plan_{"plan", cl::sub(command_), cl::value_desc("file"),
                             cl::desc("The sharding plan")};
  cl::list<std::string> plans_{"plans", cl::sub(command_), cl::value_desc("file"),
                               cl::desc("Plan files to predict as one table, sorted by footprint")};
  cl::opt<std::string> families_{"family", cl::sub(command_), cl::value_desc("list"),
                                 cl::desc("Families to predict (dp, fsdp, tp, ep and '+' of them), "
                                          "comma-separated; with --mesh or --devices")};
  cl::list<std::string> meshes_{"mesh", cl::sub(command_), cl::value_desc("axes"),
                                cl::desc("A mesh for --family, such as dp=2,tp=4; repeat for several")};
  cl::opt<int64_t> devices_{"devices", cl::sub(command_), cl::value_desc("N"),
                            cl::desc("Predict --family on every mesh of N devices")};
  FamilyInputOptions inputs_{command_};
  JaxprRulesOption jaxpr_rules_{command_};
  AssignerOption assigner_{command_};
  cl::opt<PredictFormat> format_{
      "format", cl::sub(command_), cl::init(PredictFormat::kText), cl::desc("Output format"),
      cl::values(clEnumValN(PredictFormat::kText, "text", "aligned text"),
                 clEnumValN(PredictFormat::kJson, "json",
                            "JSON (memplan.predict.v1; sweeps memplan.predict_sweep.v1)"))};
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
